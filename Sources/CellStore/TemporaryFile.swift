#if canImport(Glibc)
import Glibc
#endif

/// Files in `$TMPDIR` (or /tmp) that nothing can leave behind: each is unlinked the moment
/// it is made, so the system frees its space when the descriptor closes or the process
/// ends, whatever way it ends. The stdin spool, a sort's runs and SQL's spills use them.
package enum TemporaryFile {
    /// Why a temporary file could not be made, in words a user can act on.
    package struct Failure: Error, Sendable {
        package let message: String
    }

    /// `$TMPDIR`, or /tmp when it is unset or empty.
    package static var directory: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// A new file `csvfreeze-<tag>-XXXXXX` in `directory`, already unlinked: its descriptor,
    /// which the caller closes.
    package static func openUnlinked(tag: String, in directory: String = TemporaryFile.directory) throws(Failure) -> Int32 {
        var template = Array("\(directory)/csvfreeze-\(tag)-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw Failure(message: "cannot make a temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return descriptor
    }
}

/// A temporary file from `TemporaryFile.openUnlinked`, closed with its owner: a sort's
/// runs and SQL's spills. Reads and writes are `pread`/`pwrite` at explicit offsets, safe
/// from several threads.
package final class UnlinkedFile: Sendable {
    private let descriptor: Int32

    package init(tag: String) throws(TemporaryFile.Failure) {
        descriptor = try TemporaryFile.openUnlinked(tag: tag)
    }

    deinit { close(descriptor) }

    /// Writes all of `bytes` at `offset`; 0, or the `errno` that stopped it.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        guard let base = bytes.baseAddress else { return 0 }
        let (done, failure) = Self.repeatedly(bytes.count) { done in
            pwrite(descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
        }
        return done == bytes.count ? 0 : failure == 0 ? ENOSPC : failure
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many (fewer at the end).
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return Self.repeatedly(buffer.count) { done in
            pread(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
        }.done
    }

    /// Calls `io` (given the bytes done so far) until `count` are done or it does nothing
    /// more, again when a signal interrupted it; the bytes done and the `errno` of a failure.
    private static func repeatedly(_ count: Int, _ io: (Int) -> Int) -> (done: Int, failure: Int32) {
        var done = 0
        while done < count {
            let moved = io(done)
            if moved < 0 && errno == EINTR { continue }
            if moved < 0 { return (done, errno) }
            if moved == 0 { break }
            done += moved
        }
        return (done, 0)
    }
}
