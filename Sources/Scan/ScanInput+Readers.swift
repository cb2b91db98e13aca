import CellStore

extension ScanInput {
    /// The input as `readers` sees it now, from any thread (nil until its dialect is
    /// known): what a pass that follows an input still loading takes at each round.
    public init?(readers: RecordReaders) {
        let progress = readers.progress
        guard let reader = readers.current() else { return nil }
        self.init(reader: reader, progress: progress)
    }

    /// Records indexed so far (all of them once `isFinal`).
    public var indexedRecords: Int { reader.checkpoints.last?.row ?? 0 }

    /// Reads `piece` whole into the start of `buffer` (at least the piece's size), as raw
    /// readers do so that nothing they look for is cut at a buffer's edge; returns the
    /// bytes read (fewer when the input ends first).
    package func read(_ piece: Piece, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = min(buffer.count, Int(piece.byteCount))
        var filled = 0
        while filled < size {
            let count = reader.source.read(at: piece.start + Int64(filled),
                                           into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<size]))
            if count <= 0 { break }
            filled += count
        }
        return filled
    }
}
