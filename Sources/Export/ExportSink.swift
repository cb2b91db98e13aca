#if canImport(Glibc)
import Glibc
#endif
import CExport

/// Where an export's bytes go: standard output, or a file written through a temporary
/// file beside it and renamed over it at the end.
///
/// Bytes are written as they come; a stretch of an input file that leaves unchanged can be
/// copied inside the kernel (`copy(from:offset:length:)`), never through user memory.
public final class ExportSink {
    /// The descriptor written to.
    public let descriptor: Int32
    /// Why writing stopped, once it has (nil while it works).
    public private(set) var failure: String?
    /// True when the reader went away (a closed pipe: `| head`), which ends an export quietly.
    public private(set) var readerLeft = false
    /// Bytes written so far.
    public private(set) var bytesWritten: Int64 = 0
    /// The file a temporary file stands for, and the temporary file.
    private let target: (path: String, temporary: String)?
    private var isClosed = false
    /// False after a kernel copy failed: later stretches go through a buffer.
    private var copiesInKernel = true

    /// A sink writing to an open descriptor (standard output: 1). It is not closed.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        target = nil
    }

    /// A sink for `path`: a new file `.csvfreeze-save-XXXXXX` beside it, renamed over it by
    /// `commit()`; `discard()` (or dropping the sink) removes it, so a failed or cancelled
    /// export leaves the target as it was and nothing beside it.
    public init(replacing path: String) throws(ExportError) {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        var template = Array(directory.utf8CString.dropLast()) + Array("/.csvfreeze-save-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .unwritable("cannot write in \(directory): \(String(cString: strerror(errno)))") }
        self.descriptor = descriptor
        target = (path, template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    deinit { discard() }

    /// Writes `bytes`; false when they cannot be (see `failure` and `readerLeft`).
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
    public func write(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { write($0) } }

    /// Copies `length` bytes of the file open as `input` from `offset` in the kernel
    /// (`copy_file_range`, else `sendfile`). Returns how many were copied: fewer when the
    /// kernel cannot copy between these two (the caller copies the rest itself), or when
    /// the file ended; check `failure` for a write that failed.
    public func copy(from input: Int32, offset: Int64, length: Int64) -> Int64 {
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
        if code == EPIPE && target == nil {
            readerLeft = true
            failure = "the reader went away"
        } else {
            failure = "cannot write \(target?.path ?? "the output"): \(String(cString: strerror(code)))"
        }
        return false
    }

    /// Ends a sink for a file: gives the temporary file the permissions a new file gets
    /// and renames it over the target. False (see `failure`) when that fails.
    public func commit() -> Bool {
        guard let target, !isClosed else { return failure == nil }
        guard failure == nil else {
            discard()
            return false
        }
        let mask = umask(0)
        umask(mask)
        _ = fchmod(descriptor, 0o666 & ~mask)
        isClosed = true
        let closed = close(descriptor) == 0
        guard closed, rename(target.temporary, target.path) == 0 else {
            failure = "cannot write \(target.path): \(String(cString: strerror(errno)))"
            unlink(target.temporary)
            return false
        }
        return true
    }

    /// Removes the temporary file of a sink for a file that was not committed.
    public func discard() {
        guard let target, !isClosed else { return }
        isClosed = true
        close(descriptor)
        unlink(target.temporary)
    }
}
