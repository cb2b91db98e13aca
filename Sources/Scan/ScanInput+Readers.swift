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
}
