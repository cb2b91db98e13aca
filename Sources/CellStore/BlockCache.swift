/// The rows parsed from one checkpoint: the unit the sparse cell store caches.
struct Block {
    /// The number of the block's first record.
    var firstRow: Int
    var rows: [Row]
    /// False when the block was cut short (its end not indexed yet); it is then valid only
    /// for the rows it holds.
    var isComplete: Bool

    func row(_ index: Int) -> Row? {
        let local = index - firstRow
        guard local >= 0, local < rows.count else { return nil }
        return rows[local]
    }
}

/// A small least-recently-used cache of parsed blocks, keyed by checkpoint index: the
/// only place cells live, so memory is bounded by its capacity, not by the file.
struct BlockCache {
    let capacity: Int
    private var entries: [Int: (block: Block, lastUse: Int)] = [:]
    private var clock = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { entries.count }

    mutating func block(at key: Int) -> Block? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.block, clock)
        return entry.block
    }

    mutating func insert(_ block: Block, at key: Int) {
        clock += 1
        entries[key] = (block, clock)
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
        }
    }
}
