/// Counts the values of one column within a memory budget.
///
/// Exact while the distinct values fit in `budget` bytes. Past it, the counter keeps the
/// most frequent values (Misra–Gries: when the table doubles past `kept` entries, the
/// count of the entry ranked `kept + 1` is taken from every count and entries at zero are
/// dropped) and estimates the number of distinct values with a HyperLogLog. A value kept
/// is short of its true count by at most `undercount`; a value dropped occurs at most
/// `undercount` times, so every value that occurs more often than that is kept.
///
/// A kept value that was in the table before the first cut and never left it has lost
/// exactly `undercount` (every cut was taken from it): its true count is known. The
/// others may have been dropped before and counted again (`mayBeShort`).
struct ValueCounter {
    private(set) var table = ValueTable()
    /// Non-nil once past the budget.
    private(set) var sketch: HyperLogLog?
    /// How far below its true count a kept count may be (0 while exact).
    private(set) var undercount = 0
    /// For each entry of `table`: true when its count may be short by any amount up to
    /// `undercount` (it came in after a cut), false when it is short by exactly that.
    private(set) var mayBeShort: [Bool] = []
    /// Values counted.
    private(set) var total = 0
    let budget: Int
    let kept: Int
    let precision: Int

    init(budget: Int, kept: Int, precision: Int = 16) {
        self.budget = max(4096, budget)
        self.kept = max(4, kept)
        self.precision = precision
    }

    var isExact: Bool { sketch == nil }

    /// The number of distinct values: exact while `isExact`, else an estimate.
    var distinct: Int {
        guard let sketch else { return table.count }
        // An estimate, never more than the values counted (nor fewer than those kept).
        return max(min(sketch.estimate, total), table.count)
    }

    /// Bytes held, roughly.
    var memoryCost: Int { table.memoryCost + (sketch?.memoryCost ?? 0) }

    /// Counts a value; true when it is known to have been counted before (while exact).
    @inline(__always) @discardableResult
    mutating func add(_ bytes: UnsafeRawBufferPointer, record: Int) -> Bool {
        add(bytes, hash: valueHash(bytes), record: record)
    }

    /// `add(_:record:)` of a value whose `valueHash` is `hash`.
    @inline(__always) @discardableResult
    mutating func add(_ bytes: UnsafeRawBufferPointer, hash: UInt64, record: Int) -> Bool {
        let before = table.count
        count(bytes, hash: hash, isLong: false, record: record)
        return sketch == nil && table.count == before
    }

    /// Starts loading where a value of hash `hash` is looked up (see `CellSink.willTake`).
    @inline(__always)
    mutating func prefetch(hash: UInt64) {
        table.prefetch(hash: hash)
        if sketch != nil { sketch!.prefetch(hash: hash) }
    }

    /// Starts loading the entry a value of hash `hash` is compared with first, once its
    /// slot is loaded (after `prefetch(hash:)`).
    @inline(__always)
    mutating func prefetchEntry(hash: UInt64) { table.prefetchEntry(hash: hash) }

    /// Counts a value longer than a cell kept, under its key (its start, length and hash).
    mutating func add(_ value: LongValue, record: Int) {
        value.key.withUnsafeBytes { count($0, hash: value.hash.0, isLong: true, record: record) }
    }

    @inline(__always)
    private mutating func count(_ bytes: UnsafeRawBufferPointer, hash: UInt64, isLong: Bool, record: Int) {
        total += 1
        let before = table.count
        table.add(bytes, hash: hash, record: record, isLong: isLong)
        if table.count != before { mayBeShort.append(undercount > 0) }
        if sketch == nil {
            if table.count != before && table.memoryCost > budget { overflow() }
        } else {
            sketch!.add(hash: hash)
            // The table's arrays keep their size once past the budget: bound what is used.
            if table.count >= kept * 2 || table.arena.count > budget / 2 { prune() }
        }
    }

    /// Past the budget: from here on, a sketch.
    private mutating func overflow() {
        if sketch == nil {
            var hll = HyperLogLog(precision: precision)
            for entry in table.entries { hll.add(hash: entry.hash) }
            sketch = hll
        }
        prune()
    }

    /// Drops the less frequent half (or down to `kept`), taking the count of the first
    /// entry dropped from every count.
    private mutating func prune() {
        let target = min(kept, max(1, table.count / 2))
        guard table.count > target else { return }
        var counts = table.entries.map(\.count)
        let cut = ValueCounter.select(&counts, rank: target)
        undercount += cut
        mayBeShort = table.entries.indices.filter { table.entries[$0].count > cut }.map { mayBeShort[$0] }
        table.dropCounts(upTo: cut, room: kept * 2)
    }

    /// The value ranked `rank` (from 0, largest first) in `values`, which it reorders:
    /// quickselect, linear on average.
    static func select(_ values: inout [Int], rank: Int) -> Int {
        var low = 0, high = values.count - 1
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        while low < high {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            let pivot = values[low + Int(seed % UInt64(high - low + 1))]
            var left = low, right = high
            while left <= right {
                while values[left] > pivot { left += 1 }
                while values[right] < pivot { right -= 1 }
                if left <= right {
                    values.swapAt(left, right)
                    left += 1
                    right -= 1
                }
            }
            if rank <= right { high = right } else if rank >= left { low = left } else { return values[rank] }
        }
        return values[rank]
    }

    /// Folds in the counts of a later part of the input.
    mutating func merge(_ other: ValueCounter) {
        // A value one side cut may have been dropped there: only counts both sides kept
        // exactly (or a side that never cut did not see) stay exact.
        let cutHere = undercount > 0, cutThere = other.undercount > 0
        total += other.total
        if sketch != nil || other.sketch != nil {
            var hll = sketch ?? HyperLogLog(precision: precision)
            if sketch == nil { for entry in table.entries { hll.add(hash: entry.hash) } }
            if let theirs = other.sketch { hll.merge(theirs) } else { for entry in other.table.entries { hll.add(hash: entry.hash) } }
            sketch = hll
            undercount += other.undercount
        }
        var seen = [Bool](repeating: false, count: table.count)
        var theirs = 0
        other.table.forEach { entry, bytes in
            let short = other.mayBeShort[theirs]
            theirs += 1
            if let index = table.index(of: bytes, hash: entry.hash, isLong: entry.isLong) {
                seen[index] = true
                mayBeShort[index] = mayBeShort[index] || short
            } else {
                mayBeShort.append(short || cutHere)
            }
            table.add(bytes, hash: entry.hash, record: entry.first, by: entry.count, isLong: entry.isLong)
        }
        if cutThere { for index in seen.indices where !seen[index] { mayBeShort[index] = true } }
        if sketch != nil {
            if table.count >= kept * 2 || table.arena.count > budget / 2 { prune() }
        } else if table.memoryCost > budget {
            overflow()
        }
    }

    /// The `limit` most frequent values, most frequent first, ties in order of first
    /// appearance; a long value by its start, with its whole length (nil for a whole value)
    /// and the first record it is in.
    func top(_ limit: Int) -> [(value: [UInt8], count: Int, wholeLength: Int?, first: Int)] {
        table.top(limit).map { index in
            let (value, length) = table.shown(index)
            return (value, table.entries[index].count, length, table.entries[index].first)
        }
    }

    /// The `limit` most frequent values with their true counts, as a second pass counting
    /// the kept values again would list them (`CommonValues`), when this count already
    /// proves them: each known exactly, and more frequent than any other value can be
    /// (strictly, so ties in order of first appearance are theirs too). Nil otherwise.
    /// `empty`: the exact count of the empty value.
    func provenTop(_ limit: Int, empty: Int) -> [FrequencyRow]? {
        var known: [(index: Int, count: Int)] = []
        var bound = undercount
        var unknown = false
        for (index, entry) in table.entries.enumerated() {
            if entry.storedLength == 0 && !entry.isLong {
                known.append((index, empty))
            } else if mayBeShort[index] {
                unknown = true
                bound = max(bound, entry.count + undercount)
            } else {
                known.append((index, entry.count + undercount))
            }
        }
        let listed = known.filter { $0.count > undercount }.sorted {
            $0.count != $1.count ? $0.count > $1.count
                : table.entries[$0.index].first != table.entries[$1.index].first ? table.entries[$0.index].first < table.entries[$1.index].first
                : $0.index < $1.index
        }
        let top = listed.prefix(limit)
        if top.count < limit ? unknown : top.last.map({ $0.count <= bound }) == true { return nil }
        return top.map { table.row($0.index, count: $0.count, total: total) }
    }

    /// An empty table holding the kept values (for a second pass that counts them exactly).
    func candidates() -> ValueTable {
        var result = ValueTable(capacity: table.count)
        table.forEach { entry, bytes in result.add(bytes, hash: entry.hash, record: Int.max, by: 0, isLong: entry.isLong) }
        return result
    }
}
