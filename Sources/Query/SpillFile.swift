#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Synchronization

/// A temporary file for what does not fit the memory budget: sorted runs, a permutation.
///
/// It is unlinked the moment it is made, so nothing is left behind on any way out (the
/// end of the sort, an error, Ctrl-C, SIGTERM, a crash): the system frees its space when
/// the descriptor closes, which `deinit` does, or the process's end.
///
/// Reads and writes are `pread`/`pwrite` at explicit offsets, safe from several threads;
/// appending is for one thread at a time (the one that fills the file).
package final class SpillFile: Sendable {
    private let file: UnlinkedFile
    private let appended = Atomic<Int64>(0)

    /// Bytes appended so far.
    package var length: Int64 { appended.load(ordering: .acquiring) }

    package init() throws(QueryError) {
        do {
            file = try UnlinkedFile(tag: "sort")
        } catch {
            throw .spill(error.message)
        }
    }

    /// Appends the bytes of `values` at the end.
    package func append<Element>(_ values: [Element]) throws(QueryError) {
        let failure = values.withUnsafeBytes { file.write($0, at: length) }
        guard failure == 0 else { throw .spill("cannot write a temporary file: \(String(cString: strerror(failure)))") }
        appended.add(Int64(values.count * MemoryLayout<Element>.stride), ordering: .releasing)
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many.
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        file.read(at: offset, into: buffer)
    }
}
