/// The rows parsed from one checkpoint: the unit the sparse cell store caches.
struct Block {
    /// The number of the block's first record.
    var firstRow: Int
    var rows: [Row]
    /// False when the block was cut short (its end not indexed yet); it is then valid only
    /// for the rows it holds.
    var isComplete: Bool
    /// How far the parse read: an incomplete block is parsed again only when there is more.
    var readUpTo: Int64 = 0
    /// The end of the bytes the parse was given.
    var parsedEnd: Int64 = 0
    /// Its last row is a record still open, shown as far as it was read.
    var endsInPartialRecord = false
    /// The parse knew its end to be the input's end (or a checkpoint), so a last record
    /// without a line end was taken; one parsed before then must be parsed again.
    var sawFinalEnd = false
    /// Bytes its rows hold, counted against the cache's budget.
    let memoryCost: Int

    init(firstRow: Int, rows: [Row], isComplete: Bool) {
        self.firstRow = firstRow
        self.rows = rows
        self.isComplete = isComplete
        memoryCost = rows.reduce(0) { $0 + $1.memoryCost }
    }

    func row(_ index: Int) -> Row? {
        let local = index - firstRow
        guard local >= 0, local < rows.count else { return nil }
        return rows[local]
    }
}
