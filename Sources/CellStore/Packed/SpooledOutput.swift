import Synchronization

/// Decompressed output kept in a spool, with the last few chunks also in memory: the
/// loader scans each chunk right after it arrives, and reading it back from the spool
/// would copy every byte once more.
package final class SpooledOutput: ByteSource {
    let spool: SpoolSource
    private let recent = Mutex<[GzipSource.Span]>([])

    init(spool: SpoolSource) { self.spool = spool }

    /// Spools a chunk and keeps it at hand; called by the one thread that indexes.
    func append(_ chunk: [UInt8]) {
        let start = spool.length
        chunk.withUnsafeBytes { spool.append($0) }
        recent.withLock { spans in
            spans.append(GzipSource.Span(start: start, bytes: chunk))
            if spans.count > GzipSource.recentChunks { spans.removeFirst() }
        }
    }

    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if let count = recent.withLock({ GzipSource.copy(from: $0, at: offset, into: buffer) }) { return count }
        return spool.read(at: offset, into: buffer)
    }
}
