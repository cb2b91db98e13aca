#if canImport(Glibc)
import Glibc
#endif
import CExport

/// Where an export's bytes go: standard output, or a file written through a temporary
/// file beside it and renamed over it at the end.
///
/// Bytes are written as they come; a stretch of an input file that leaves unchanged can be
/// copied inside the kernel (`copy(from:offset:length:)`), never through user memory.
package final class ExportSink {
    /// The descriptor written to.
    package let descriptor: Int32
    /// Why writing stopped, once it has (nil while it works).
    package private(set) var failure: String?
    /// True when the reader went away (a closed pipe: `| head`), which ends an export quietly.
    package private(set) var readerLeft = false
    /// Bytes written so far.
    package private(set) var bytesWritten: Int64 = 0
    /// Where the bytes end up when they go to a file.
    private enum Destination {
        /// A temporary file beside `path`, renamed over it by `commit()`; `mode` is the
        /// permissions to give it (the replaced file's), nil for a new file's.
        case replacing(path: String, temporary: String, mode: mode_t?)
        /// The file itself, written in place: a device or FIFO (`/dev/null`, a pipe), or a
        /// file with other hard links, which a rename would split from them.
        case inPlace(path: String)
    }
    private let destination: Destination?
    /// The target as the user named it, for messages.
    private let targetName: String?
    private var isClosed = false
    /// False after a kernel copy failed: later stretches go through a buffer.
    private var copiesInKernel = true

    /// A sink writing to an open descriptor (standard output: 1). It is not closed.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
        destination = nil
        targetName = nil
    }

    /// A sink for `path`. A regular file is written as a new file `.csvfreeze-save-XXXXXX`
    /// beside it, renamed over it by `commit()`; `discard()` (or dropping the sink) removes
    /// it, so a failed or cancelled export leaves the target as it was and nothing beside
    /// it. A symbolic link is followed (the file it names is replaced, the link stays), a
    /// replaced file keeps its permissions, and a device, FIFO or hard-linked file is
    /// written in place.
    package init(replacing path: String) throws(ExportError) {
        targetName = path
        var resolved = path
        if let real = realpath(path, nil) {
            resolved = String(cString: real)
            free(real)
        }
        var info = stat()
        let exists = stat(resolved, &info) == 0
        if exists && ((info.st_mode & S_IFMT) != S_IFREG || info.st_nlink > 1) {
            let descriptor = open(resolved, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { throw .unwritable("cannot write \(path): \(String(cString: strerror(errno)))") }
            self.descriptor = descriptor
            destination = .inPlace(path: path)
            return
        }
        let directory: String
        if let slash = resolved.lastIndex(of: "/") {
            directory = slash == resolved.startIndex ? "/" : String(resolved[..<slash])
        } else {
            directory = "."
        }
        var template = Array(directory.utf8CString.dropLast()) + Array("/.csvfreeze-save-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .unwritable("cannot write in \(directory): \(String(cString: strerror(errno)))") }
        self.descriptor = descriptor
        if exists { _ = fchown(descriptor, info.st_uid, info.st_gid) }   // as its owner where allowed
        destination = .replacing(path: resolved, temporary: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) },
                                 mode: exists ? info.st_mode & 0o7777 : nil)
    }

    deinit { discard() }

    /// Writes `bytes`; false when they cannot be (see `failure` and `readerLeft`).
    @discardableResult
    package func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil, !isClosed else { return false }
        var done = 0
        while done < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return fail(count < 0 ? errno : ENOSPC) }
            done += count
        }
        bytesWritten += Int64(bytes.count)
        return true
    }

    /// Writes `bytes`; false when they cannot be.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { write($0) } }

    /// Copies `length` bytes of the file open as `input` from `offset` in the kernel
    /// (`copy_file_range`, else `sendfile`). Returns how many were copied: fewer when the
    /// kernel cannot copy between these two (the caller copies the rest itself), or when
    /// the file ended; check `failure` for a write that failed.
    package func copy(from input: Int32, offset: Int64, length: Int64) -> Int64 {
        guard failure == nil, !isClosed, copiesInKernel else { return 0 }
        var position = offset
        while position < offset + length {
            let wanted = Int(min(offset + length - position, 1 << 30))
            let count = cx_copy_span(input, &position, descriptor, wanted)
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                switch errno {
                case EINVAL, EXDEV, ENOSYS, EBADF, EOPNOTSUPP, ESPIPE:
                    copiesInKernel = false
                default:
                    _ = fail(errno)
                }
                break
            }
            if count == 0 { break }
        }
        bytesWritten += position - offset
        return position - offset
    }

    private func fail(_ code: Int32) -> Bool {
        if code == EPIPE && destination == nil {
            readerLeft = true
            failure = "the reader went away"
        } else {
            failure = "cannot write \(targetName ?? "the output"): \(String(cString: strerror(code)))"
        }
        return false
    }

    /// Ends a sink for a file: gives the temporary file the replaced file's permissions (a
    /// new file's, if none) and renames it over the target. False (see `failure`) when that
    /// fails.
    ///
    /// `durably`: the bytes reach the disk (`fsync`) before the rename, and the rename
    /// after it (the folder's `fsync`), as git's lock files do: a crash leaves the old file
    /// or the new one, never an empty one. `check`, when given, is asked last, just before
    /// the rename: a reason it returns stops the commit (the target is left as it was).
    package func commit(durably: Bool = false, check: (() -> String?)? = nil) -> Bool {
        guard let destination, !isClosed else { return failure == nil }
        guard failure == nil else {
            discard()
            return false
        }
        if durably && fsync(descriptor) != 0 && errno != EINVAL && errno != EROFS {
            failure = "cannot write \(targetName ?? "the output"): \(String(cString: strerror(errno)))"
            discard()
            return false
        }
        if let reason = check?() {
            failure = reason
            discard()
            return false
        }
        isClosed = true
        switch destination {
        case .inPlace(let path):
            guard close(descriptor) == 0 else {
                failure = "cannot write \(path): \(String(cString: strerror(errno)))"
                return false
            }
            return true
        case .replacing(let path, let temporary, let mode):
            let mask = umask(0)
            umask(mask)
            _ = fchmod(descriptor, mode ?? (0o666 & ~mask))
            guard close(descriptor) == 0, rename(temporary, path) == 0 else {
                failure = "cannot write \(targetName ?? path): \(String(cString: strerror(errno)))"
                unlink(temporary)
                return false
            }
            if durably {
                let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
                let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                if directory >= 0 {
                    _ = fsync(directory)
                    close(directory)
                }
            }
            return true
        }
    }

    /// True when the sink writes the target in place (a device, a FIFO, a file with other
    /// hard links), not through a file renamed over it.
    package var writesInPlace: Bool {
        if case .inPlace? = destination { return true }
        return false
    }

    /// Removes the temporary file of a sink for a file that was not committed (a file
    /// written in place keeps what was written).
    package func discard() {
        guard let destination, !isClosed else { return }
        isClosed = true
        close(descriptor)
        if case .replacing(_, let temporary, _) = destination { unlink(temporary) }
    }
}
