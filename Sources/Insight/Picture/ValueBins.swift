/// Exact counts of a column's values (numbers, or instants) in a fixed number of fine
/// bins whose width grows as the values spread: memory fixed, counts exact.
///
/// The bins are `capacity` consecutive fine bins of one `BinScale` (10^k wide for numbers),
/// kept in a ring. A value outside them that would not fit coarsens the scale (whole bins
/// join: ten decimal bins make one, days make a month), so the range needs no reading in
/// advance and an input still arriving is counted as it comes. After a coarsening at
/// least a tenth of the bins are in use (a thirty-first, from days to months), so a
/// histogram of round bins (`BinWidth`) drawn from them has its counts exact, and a band
/// cell of any whole number of fine bins too.
package struct ValueBins: Sendable, Equatable {
    /// Fine bins kept (a power of two).
    package let capacity: Int
    package private(set) var scale: BinScale {
        didSet { quick = QuickIndex(scale) }
    }
    /// The scale's bin index, fast, for most values.
    private var quick: QuickIndex
    /// Counts by fine index, at `index & (capacity − 1)` (empty until a value comes; not
    /// an optional: unwrapping one for each value cost a copy of the bins).
    private var counts: [Int] = []
    /// The first and last fine index holding a value (low > high while empty).
    package private(set) var low: Int64 = 1
    package private(set) var high: Int64 = 0
    /// Values counted.
    package private(set) var total = 0
    /// The least and greatest value counted (exact, not a bin's bound).
    package private(set) var minimum = Double.infinity
    package private(set) var maximum = -Double.infinity
    /// True while every value is whole: an integer (numbers), a midnight (instants).
    package private(set) var allWhole = true

    package init(capacity: Int = 2048, isTime: Bool = false) {
        var size = 16
        while size < capacity { size <<= 1 }
        self.capacity = size
        scale = BinScale(level: 0, isTime: isTime)
        quick = QuickIndex(scale)
    }

    package var isTime: Bool { scale.isTime }
    package var isEmpty: Bool { total == 0 }
    /// Fine bins from the first holding a value to the last.
    package var usedBins: Int { total == 0 ? 0 : Int(high - low + 1) }
    /// Bytes held.
    package var memoryCost: Int { counts.capacity * 8 + 96 }

    /// The count of fine bin `index` (0 outside the bins in use).
    package func count(at index: Int64) -> Int {
        guard !counts.isEmpty, index >= low && index <= high else { return 0 }
        return counts[Int(truncatingIfNeeded: index) & (capacity - 1)]
    }

    /// Counts a finite value; `isWhole` says it is an integer (a midnight).
    @inline(__always)
    package mutating func add(_ value: Double, isWhole: Bool) {
        if !isWhole { allWhole = false }
        if value < minimum { minimum = value }
        if value > maximum { maximum = value }
        total += 1
        if total > 1, let index = quick.index(of: value) ?? scale.index(of: value), index >= low && index <= high {
            counts[Int(truncatingIfNeeded: index) & (capacity - 1)] += 1
            return
        }
        place(value)
    }

    /// A value outside the bins in use (or the first): the bins move or coarsen.
    private mutating func place(_ value: Double) {
        if counts.isEmpty {
            counts = Array(repeating: 0, count: capacity)
            scale = BinScale.first(for: value, isTime: scale.isTime)
        }
        var index = scale.index(of: value)
        if total == 1 {
            while index == nil {
                scale = scale.coarser
                index = scale.index(of: value)
            }
            low = index!
            high = index!
        }
        while true {
            if let found = index {
                let newLow = min(low, found), newHigh = max(high, found)
                if newHigh - newLow < Int64(capacity) {
                    low = newLow
                    high = newHigh
                    counts[Int(truncatingIfNeeded: found) & (capacity - 1)] += 1
                    return
                }
            }
            coarsen(to: scale.coarser)
            index = scale.index(of: value)
        }
    }

    /// Joins the bins into those of `coarser`.
    private mutating func coarsen(to coarser: BinScale) {
        guard !counts.isEmpty, coarser > scale else { return }
        let old = counts
        var fresh = [Int](repeating: 0, count: capacity)
        var newLow = Int64.max, newHigh = Int64.min
        if low <= high {
            for index in low...high {
                let count = old[Int(truncatingIfNeeded: index) & (capacity - 1)]
                guard count > 0 else { continue }
                let target = scale.index(index, at: coarser)
                newLow = min(newLow, target)
                newHigh = max(newHigh, target)
                fresh[Int(truncatingIfNeeded: target) & (capacity - 1)] += count
            }
        }
        if newLow > newHigh {
            // Nothing counted yet but the value being placed: keep an empty range.
            newLow = 1
            newHigh = 0
        }
        counts = fresh
        scale = coarser
        low = newLow
        high = newHigh
    }

    /// Folds in the bins of another part of the input (of the same kind).
    package mutating func merge(_ other: ValueBins) {
        guard other.total > 0 else { return }
        guard total > 0 else {
            self = other
            return
        }
        var theirs = other
        // One scale, coarse enough for both ranges together.
        while true {
            if scale < theirs.scale { coarsen(to: theirs.scale) }
            if theirs.scale < scale { theirs.coarsen(to: scale) }
            if max(high, theirs.high) - min(low, theirs.low) < Int64(capacity) { break }
            coarsen(to: scale.coarser)
        }
        let from = min(low, theirs.low), to = max(high, theirs.high)
        low = from
        high = to
        for index in theirs.low...theirs.high {
            let count = theirs.count(at: index)
            if count > 0 { counts[Int(truncatingIfNeeded: index) & (capacity - 1)] += count }
        }
        total += theirs.total
        minimum = min(minimum, theirs.minimum)
        maximum = max(maximum, theirs.maximum)
        allWhole = allWhole && theirs.allWhole
    }

    /// Counts of whole numbers of fine bins laid side by side, at most `cells` of them, over
    /// the values' range: what a band draws, one cell per group. A group is `step` fine
    /// bins from `first`; with whole values on a finer scale than 1 (or than a day), groups
    /// start at a whole value and hold whole units, so values never straddle two cells.
    package func groups(cells: Int) -> (counts: [Int], first: Int64, step: Int64) {
        guard total > 0, cells > 0 else { return ([], 0, 1) }
        var first = low
        var unit: Int64 = 1
        if allWhole {
            if scale.isDecimal && scale.level < 0 && !scale.isTime {
                unit = BinScale.integerPower(-scale.level)
            } else if scale.isTime, let seconds = scale.fixedSeconds, seconds < 86_400 {
                unit = 86_400 / seconds
            } else if scale.isTime && scale.level < 0 {
                unit = 86_400 * BinScale.integerPower(-scale.level)
            }
            first = BinScale.floorDivide(low, unit) * unit
        }
        let span = high - first + 1
        let units = (span + unit - 1) / unit
        let step = max(1, (units + Int64(cells) - 1) / Int64(cells)) * unit
        let count = Int((high - first) / step) + 1
        var result = [Int](repeating: 0, count: count)
        for index in low...high {
            let value = self.count(at: index)
            if value > 0 { result[Int((index - first) / step)] += value }
        }
        return (result, first, step)
    }
}

/// `BinScale.index(of:)` for a decimal scale, in one multiplication when the value is not
/// near a bin's bound.
///
/// The estimate `value × 10^−level` (or `value ÷ 10^level`) is rounded once: it is within
/// |estimate| × 2^−53 of the exact quotient, and the bound `BinScale.start(of:)` computes
/// is within as little of the exact bound. So when the estimate is farther than
/// |estimate| × 2^−50 from every integer, its floor is the bin the bounds decide, which
/// `index(of:)` would return after checking them; nearer (or 0, or a scale past 10^±22
/// or not decimal), it says nothing and `index(of:)` decides.
struct QuickIndex: Sendable, Equatable {
    /// 10^|level| (0: no fast index), and whether it divides (level ≥ 0).
    private let power: Double
    private let divides: Bool

    init(_ scale: BinScale) {
        if scale.isDecimal && abs(scale.level) <= 22 {
            power = BinScale.power(abs(scale.level))
        } else {
            power = 0
        }
        divides = scale.level >= 0
    }

    @inline(__always)
    func index(of value: Double) -> Int64? {
        guard power > 0 else { return nil }
        let estimate = divides ? value / power : value * power
        let magnitude = abs(estimate)
        guard magnitude < 1.0e15 else { return nil }
        // The floor, without a call to libm's (truncation is one instruction; exact below 1e15).
        var floor = Int64(estimate)
        if Double(floor) > estimate { floor -= 1 }
        let fraction = estimate - Double(floor)
        let margin = magnitude * 0x1p-50
        guard fraction > margin && fraction < 1 - margin else { return nil }
        return floor
    }
}
