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
