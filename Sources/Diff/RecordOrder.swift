import Query

/// Entries put back in the order of a record number (a keyed diff's rows in the new file's
/// order, its removed records in the old file's): gathered up to a memory budget, sorted,
/// and spilled in sorted runs to temporary files past it (the sort's runs, keyed by the
/// number's 8 bytes big-endian), then merged; memory stays bounded whatever the inputs.
struct RecordOrder {
    private var run: SortRun
    private var spilled: [SpillFile] = []
    let trailerSize: Int

    init(budget: Int, trailerSize: Int) {
        run = SortRun(budget: budget, trailerSize: trailerSize)
        self.trailerSize = trailerSize
    }

    /// Adds record `record` (at `offset`) with `trailer` (`trailerSize` bytes) riding along.
    mutating func append(record: Int, offset: Int64, trailer: UnsafeRawBufferPointer) throws(QueryError) {
        if run.isFull(adding: 8) {
            run.sort()
            spilled.append(try run.spill())
            run.removeAll()
        }
        withUnsafeBytes(of: UInt64(truncatingIfNeeded: record).bigEndian) { key in
            run.append(key: key, trailer: trailer, record: record, offset: offset)
        }
    }

    /// Sorts what is in memory; entries added after are not taken.
    mutating func finish() { run.sort() }

    /// The entries in the record numbers' order (after `finish()`), as often as asked.
    func merge() -> RunMerge {
        RunMerge(spilled.map { RunCursor(file: $0, trailerSize: trailerSize, bufferSize: 1 << 16) } + [RunCursor(memory: run)])
    }
}
