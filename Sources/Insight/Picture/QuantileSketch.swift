/// The quantiles of a column's numbers (or instants): exact while the values fit a
/// budget, then from a deterministic sketch whose rank error is bounded.
///
/// Exact: every value is kept, and a quantile is read from them sorted, interpolated
/// between the two values around its rank (as NumPy, R's default and DuckDB's
/// `quantile_cont` do). Past the budget, the values go through compactors (the
/// deterministic form of the Manku–Rajagopalan–Lindsay and KLL sketches): level h holds
/// values that each stand for 2^h; when a level holds `capacity` values it is sorted and
/// every other one (alternately the odd and the even ones) goes up a level. Each such
/// step moves any rank by at most 2^h, and level h is compacted at most n / (capacity·2^h)
/// times, so a rank is off by at most (levels × n) / (capacity − 1): with a capacity of
/// 8,192, at most 21/8,191 ≈ 0.26 % of n for 2^32 values, below 0.5 % up to 2^52. Two
/// sketches merge level by level, with the same bound. A level above the first gets
/// sorted runs, which the standard library's sort merges in linear time.
package struct QuantileSketch: Sendable {
    /// Values kept exactly, while `isExact`.
    private var exact: [Double] = []
    /// Past the budget: the compactors, level by level (level h weighs 2^h).
    private var levels: [[Double]] = []
    /// Values kept before the sketch takes over.
    let budget: Int
    /// Values counted.
    package private(set) var count = 0
    /// Which half a compaction keeps next, per level (alternating).
    private var keepsOdd: [Bool] = []

    /// Values a level holds before it is compacted.
    package static let capacity = 8192

    package init(budget: Int) {
        self.budget = max(Self.capacity, budget)
    }

    package var isExact: Bool { levels.isEmpty }

    /// The most a quantile's rank may be off, as a share of the values (0 while exact).
    package var rankError: Double {
        guard !isExact, count > 0 else { return 0 }
        return Double(max(1, levels.count - 1)) / Double(Self.capacity - 1)
    }

    /// Bytes held.
    package var memoryCost: Int { (exact.capacity + levels.reduce(0) { $0 + $1.capacity }) * 8 + 64 }

    @inline(__always)
    package mutating func add(_ value: Double) {
        count += 1
        if levels.isEmpty {
            exact.append(value)
            if exact.count > budget { startSketch() }
            return
        }
        levels[0].append(value)
        if levels[0].count >= Self.capacity { compact(0) }
    }

    private mutating func startSketch() {
        let values = exact
        exact = []
        levels = [[]]
        keepsOdd = [false]
        levels[0].reserveCapacity(Self.capacity)
        for value in values {
            levels[0].append(value)
            if levels[0].count >= Self.capacity { compact(0) }
        }
    }

    /// Sorts level `level` and sends every other value up (keeping the last one of an odd
    /// count where it is).
    private mutating func compact(_ level: Int) {
        if level + 1 >= levels.count {
            levels.append([])
            keepsOdd.append(false)
        }
        var values = levels[level]
        levels[level] = []
        // The first level arrives in no order; a level above it is sorted runs, which the
        // standard library's sort merges in linear time.
        if level == 0 { Self.sortAsStable(&values) } else { values.sort() }
        var leftover: Double?
        if values.count % 2 == 1 { leftover = values.removeLast() }
        let start = keepsOdd[level] ? 1 : 0
        keepsOdd[level].toggle()
        var index = start
        while index < values.count {
            levels[level + 1].append(values[index])
            index += 2
        }
        levels[level].reserveCapacity(Self.capacity)
        if let leftover { levels[level].append(leftover) }
        if levels[level + 1].count >= Self.capacity { compact(level + 1) }
    }

    /// Sorts `values` into the order `sort()` gives them (stable: `-0` and `0`, which are
    /// equal, keep their order), by the bits of their values a byte at a time (a stable
    /// radix sort: several times faster on a level of random values). With a NaN, which
    /// `<` does not order, it leaves the sort to `sort()`.
    static func sortAsStable(_ values: inout [Double]) {
        let count = values.count
        guard count >= 256 else { return values.sort() }
        struct Item { var key: UInt64; var value: Double }
        withUnsafeTemporaryAllocation(of: Item.self, capacity: 2 * count) { items in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 8 * 256) { counts in
                counts.initialize(repeating: 0)
                var source = UnsafeMutableBufferPointer(rebasing: items[..<count])
                var target = UnsafeMutableBufferPointer(rebasing: items[count...])
                var hasNaN = false
                values.withUnsafeBufferPointer { values in
                    for index in 0..<count {
                        let value = values[index]
                        if value.isNaN { hasNaN = true }
                        // The bits in the order of the values (as a sort key's): `-0` as `0`.
                        let bits = (value == 0 ? 0 : value).bitPattern
                        let key = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
                        source.initializeElement(at: index, to: Item(key: key, value: value))
                        for byte in 0..<8 { counts[byte * 256 + Int((key >> UInt64(byte * 8)) & 0xFF)] += 1 }
                    }
                }
                guard !hasNaN else { return values.sort() }
                for byte in 0..<8 {
                    let base = byte * 256
                    let shift = UInt64(byte * 8)
                    // A byte all keys share moves nothing.
                    if counts[base + Int((source[0].key >> shift) & 0xFF)] == count { continue }
                    var start = 0
                    for digit in 0..<256 {
                        let size = counts[base + digit]
                        counts[base + digit] = start
                        start += size
                    }
                    for index in 0..<count {
                        let item = source[index]
                        let digit = base + Int((item.key >> shift) & 0xFF)
                        target[counts[digit]] = item
                        counts[digit] += 1
                    }
                    swap(&source, &target)
                }
                values.withUnsafeMutableBufferPointer { values in
                    for index in 0..<count { values[index] = source[index].value }
                }
            }
        }
    }

    /// Folds in the values of another part of the input.
    package mutating func merge(_ other: QuantileSketch) {
        // Both parts kept their values already: joined, they stay exact up to twice the budget.
        if isExact && other.isExact && exact.count + other.exact.count <= budget * 2 {
            exact += other.exact
            count += other.count
            return
        }
        if isExact { startSketch() }
        count += other.count
        if other.isExact {
            for value in other.exact {
                levels[0].append(value)
                if levels[0].count >= Self.capacity { compact(0) }
            }
            return
        }
        for (level, values) in other.levels.enumerated() {
            while levels.count <= level {
                levels.append([])
                keepsOdd.append(false)
            }
            levels[level] += values
        }
        for level in levels.indices where levels[level].count >= Self.capacity { compact(level) }
    }

    /// The quantiles at `percents` (each from 0 to 100) of the values, nil when there are
    /// none. Without `interpolates`, an exact quantile is the value at or below its rank
    /// (dates: one the column holds, not a time between two).
    package func quantiles(percents: [Int], interpolates: Bool = true) -> [Double]? {
        guard count > 0 else { return nil }
        if isExact {
            let sorted = exact.sorted()
            return percents.map { percent in
                // Linear between the values around rank p·(n − 1), the rank's fraction in
                // whole hundredths (so p95 of 1…40,000 is 38000.05, not 38000.049999999996).
                let position = percent * (sorted.count - 1)
                let below = position / 100, fraction = position % 100
                let above = min(sorted.count - 1, below + 1)
                if !interpolates || fraction == 0 || sorted[below] == sorted[above] { return sorted[below] }
                return Self.between(sorted[below], sorted[above], Double(fraction) / 100)
            }
        }
        return quantiles(percents.map { Double($0) / 100 })
    }

    /// The point `fraction` of the way from `low` to `high`: low + (high − low) × fraction,
    /// or, where high − low is past Double's range (−1e308 to 1e308), the weighted sum of
    /// the two, whose terms have opposite signs and so cannot overflow.
    static func between(_ low: Double, _ high: Double, _ fraction: Double) -> Double {
        let step = high - low
        return step.isFinite ? low + step * fraction : low * (1 - fraction) + high * fraction
    }

    /// The `p` quantiles (each from 0 to 1) of the values, nil when there are none: exact
    /// ones interpolated, the sketch's the value whose weight reaches the rank.
    package func quantiles(_ ps: [Double]) -> [Double]? {
        guard count > 0 else { return nil }
        if isExact {
            let sorted = exact.sorted()
            return ps.map { p in
                let position = p * Double(sorted.count - 1)
                let below = Int(position.rounded(.down))
                let above = min(sorted.count - 1, below + 1)
                let fraction = position - Double(below)
                if fraction == 0 || sorted[below] == sorted[above] { return sorted[below] }
                return Self.between(sorted[below], sorted[above], fraction)
            }
        }
        // Weighted values in order; a quantile is the first whose weight reaches its rank.
        var weighted: [(value: Double, weight: Int)] = []
        for (level, values) in levels.enumerated() {
            for value in values { weighted.append((value, 1 << level)) }
        }
        weighted.sort { $0.value < $1.value }
        let total = weighted.reduce(0) { $0 + $1.weight }
        return ps.map { p in
            let rank = p * Double(total - 1)
            var seen = 0
            for entry in weighted {
                seen += entry.weight
                if Double(seen) > rank { return entry.value }
            }
            return weighted.last?.value ?? 0
        }
    }
}
