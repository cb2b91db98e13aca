import CFieldScan
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
    /// With `bounds`, past the budget: values counted per bucket of hashes (`2^precision`
    /// buckets, a count-min sketch of one row, 65,535 meaning that many or more), so that
    /// no value occurs more often than its bucket holds. A value the count kept whose
    /// bucket holds at most `undercount` is surely not among those a second pass lists
    /// (`provenTop`): in a column of unique values, none is, and no second pass is needed.
    private(set) var buckets: [UInt16] = []
    let bounds: Bool

    init(budget: Int, kept: Int, precision: Int = 16, bounds: Bool = false) {
        self.budget = max(4096, budget)
        self.kept = max(4, kept)
        self.precision = precision
        self.bounds = bounds
    }

    /// The bucket of hash `hash` (bits neither a table slot nor the sketch's register reads first).
    @inline(__always)
    private func bucket(_ hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> 20) & (buckets.count - 1)
    }

    /// Adds `amount` to the bucket of `hash`, stopping at 65,535.
    @inline(__always)
    private mutating func bump(_ hash: UInt64, by amount: Int = 1) {
        let index = bucket(hash)
        buckets.withUnsafeMutableBufferPointer { buckets in
            buckets[index] = UInt16(min(Int(buckets[index]) + amount, Int(UInt16.max)))
        }
    }

    /// The most a value of hash `hash` can occur (nil: no bound known).
    func mostOften(hash: UInt64) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let held = buckets[bucket(hash)]
        return held == UInt16.max ? nil : Int(held)
    }

    /// Starts bounding counts per bucket, from the table's counts (exact: called while
    /// the count is, or on its first cut).
    private mutating func startBuckets() {
        guard bounds && buckets.isEmpty else { return }
        buckets = Array(repeating: 0, count: 1 << precision)
        for entry in table.entries { bump(entry.hash, by: entry.count) }
    }

    var isExact: Bool { sketch == nil }

    /// The number of distinct values: exact while `isExact`, else an estimate.
    var distinct: Int {
        guard let sketch else { return table.count }
        // An estimate, never more than the values counted (nor fewer than those kept).
        return max(min(sketch.estimate, total), table.count)
    }

    /// Bytes held, roughly.
    var memoryCost: Int { table.memoryCost + (sketch?.memoryCost ?? 0) + buckets.count * 2 }

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
        if sketch != nil {
            sketch!.prefetch(hash: hash)
            if !buckets.isEmpty { buckets.withUnsafeBufferPointer { cf_prefetch($0.baseAddress! + bucket(hash)) } }
        }
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
            if !buckets.isEmpty { bump(hash) }
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
            startBuckets()
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
            // Buckets of both parts (a part still exact adds its exact counts); a part
            // without them leaves none.
            if bounds {
                if sketch == nil { startBuckets() }
                if !other.buckets.isEmpty && other.buckets.count == buckets.count {
                    buckets.withUnsafeMutableBufferPointer { mine in
                        for index in mine.indices { mine[index] = UInt16(min(Int(mine[index]) + Int(other.buckets[index]), Int(UInt16.max))) }
                    }
                } else if other.sketch == nil && !buckets.isEmpty {
                    for entry in other.table.entries { bump(entry.hash, by: entry.count) }
                } else {
                    buckets = []
                }
            }
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
                let most = min(entry.count + undercount, mostOften(hash: entry.hash) ?? Int.max)
                // At most `undercount`: surely not listed (a second pass lists more only).
                if most <= undercount { continue }
                unknown = true
                bound = max(bound, most)
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
