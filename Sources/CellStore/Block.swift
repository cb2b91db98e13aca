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

/// A small least-recently-used cache of parsed blocks, keyed by checkpoint index: the
/// only place cells live, so memory is bounded by its capacity and its byte budget (blocks
/// of huge records are few), not by the file. The newest block always stays.
struct BlockCache {
    let capacity: Int
    let budget: Int
    private var entries: [Int: (block: Block, lastUse: Int)] = [:]
    private var clock = 0
    private var bytes = 0

    init(capacity: Int, budget: Int = 48 << 20) {
        self.capacity = max(1, capacity)
        self.budget = budget
    }


    var count: Int { entries.count }

    mutating func block(at key: Int) -> Block? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.block, clock)
        return entry.block
    }

    mutating func insert(_ block: Block, at key: Int) {
        clock += 1
        if let old = entries[key] { bytes -= old.block.memoryCost }
        entries[key] = (block, clock)
        bytes += block.memoryCost
        while entries.count > 1 && (entries.count > capacity || bytes > budget),
              let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            bytes -= oldest.value.block.memoryCost
            entries[oldest.key] = nil
        }
    }
}
