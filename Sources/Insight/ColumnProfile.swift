#if canImport(Glibc)
import Glibc
#endif
import Query

/// Mean and spread of numbers. The mean comes from a compensated sum (Neumaier's: the
/// low-order bits each addition loses are summed apart) divided with its remainder, so it
/// is the correctly rounded mean in all but contrived cases; the spread from Welford's method (Chan's to join two
/// parts), which stays accurate where a sum of squares would cancel. Welford's steps are
/// taken on the values times 2^−scale, the scale following the largest magnitude seen, so
/// a scaled value is below 1: a step never overflows (`1e308` and `-1e308` are 2e308
/// apart) and a square never underflows (values near 1e-308 squared are 0 unscaled). The
/// scaling is by powers of two, exact: the spread is what Welford's gives unscaled, where
/// that is finite, and infinite only when the spread itself is past Double's range.
struct Moments: Sendable, Equatable {
    var count = 0
    var sum = 0.0
    var compensation = 0.0
    /// Welford's running mean and sum of squared deviations, of the scaled values.
    var running = 0.0
    var squares = 0.0
    /// Values are scaled by 2^−scale (`multiplier`): one more than the binary exponent of
    /// the largest magnitude seen, at least `leastScale` (zeros and subnormals only).
    var scale = Moments.leastScale
    var multiplier = Moments.power(-Moments.leastScale)
    /// Values past Double's range (`1e400`), kept out of the sums: a mean is then infinite
    /// (or has none, with both signs), and the spread has none.
    var positiveInfinities = 0
    var negativeInfinities = 0

    /// The least scale: 2^1000 makes the least subnormal about 5e-23, and is a double.
    static let leastScale = -1000

    /// 2^exponent, exactly, for exponents from −2100 to 2046 (a product of two doubles
    /// past ±1022; 0 or infinity past what a double holds).
    static func power(_ exponent: Int) -> Double {
        let half = exponent / 2
        return Double(sign: .plus, exponent: half, significand: 1) * Double(sign: .plus, exponent: exponent - half, significand: 1)
    }

    @inline(__always)
    private mutating func addToSum(_ value: Double) {
        let total = sum + value
        compensation += abs(sum) >= abs(value) ? (sum - total) + value : (value - total) + sum
        sum = total
    }

    /// Scales the running moments to 2^−`wider` (wider than the scale now).
    private mutating func rescale(to wider: Int) {
        let factor = Self.power(scale - wider)
        running *= factor
        squares = squares * factor * factor
        scale = wider
        multiplier = Self.power(-wider)
    }

    @inline(__always)
    mutating func add(_ value: Double) {
        guard value.isFinite else {
            if value > 0 { positiveInfinities += 1 } else { negativeInfinities += 1 }
            return
        }
        count += 1
        addToSum(value)
        if value != 0 && value.exponent >= scale { rescale(to: Int(value.exponent) + 1) }
        let scaled = value * multiplier
        let delta = scaled - running
        running += delta / Double(count)
        squares += delta * (scaled - running)
    }

    mutating func merge(_ other: Moments) {
        positiveInfinities += other.positiveInfinities
        negativeInfinities += other.negativeInfinities
        guard other.count > 0 else { return }
        guard count > 0 else {
            let infinities = (positiveInfinities, negativeInfinities)
            self = other
            (positiveInfinities, negativeInfinities) = infinities
            return
        }
        var other = other
        if other.scale > scale { rescale(to: other.scale) }
        if scale > other.scale { other.rescale(to: scale) }
        let total = count + other.count
        let delta = other.running - running
        running += delta * (Double(other.count) / Double(total))
        squares += other.squares + delta * delta * (Double(count) * (Double(other.count) / Double(total)))
        addToSum(other.sum)
        compensation += other.compensation
        count = total
    }

    /// The mean: ±infinity when values past Double's range are all of one sign, nil with
    /// both signs or no value; a sum past Double's range falls back on Welford's running
    /// mean, which does not overflow.
    var mean: Double? {
        if positiveInfinities > 0 || negativeInfinities > 0 {
            guard positiveInfinities == 0 || negativeInfinities == 0 else { return nil }
            return positiveInfinities > 0 ? .infinity : -.infinity
        }
        guard count > 0 else { return nil }
        // The quotient of the two-part sum, correctly rounded in all but contrived cases:
        // `sum / n` and its exact remainder (a fused multiply-add), then the compensation.
        // `(sum + compensation) / n` rounds twice: 0.1, 0.2, 0.3 gave 0.19999999999999998.
        let n = Double(count)
        let quotient = sum / n
        let mean = quotient + (sum.addingProduct(-quotient, n) + compensation) / n
        return mean.isFinite ? mean : unscaled(running)
    }

    /// A scaled value as it is: times 2^scale, in two exact steps (2^1024 is no double).
    private func unscaled(_ value: Double) -> Double {
        let half = scale / 2
        return value * Self.power(half) * Self.power(scale - half)
    }

    /// The sample standard deviation (n − 1), nil below two values or when a value is past
    /// Double's range; infinite only when it is itself past Double's range.
    var standardDeviation: Double? {
        guard count > 1, positiveInfinities == 0, negativeInfinities == 0 else { return nil }
        let deviation = unscaled((squares / Double(count - 1)).squareRoot())
        return deviation.isNaN ? nil : deviation
    }
}

/// The least or greatest filled cell of a column in a sort's order: its sort key, its
/// record (equal keys go by the file's order, as in a sort), and the cell as written (a
/// long value by its start, with the value).
struct SortEnd: Sendable, Equatable {
    var key: [UInt8]
    var record: Int
    var written: [UInt8]
    var long: LongValue?

    /// The cell as the summary shows it (a long value by its start, `…` and its size).
    var text: String? { LongValue.shownText(written, long) }

    /// True when this end, from a record `record`, sorts before `key` from `otherRecord`.
    @inline(__always)
    static func precedes(_ key: UnsafeRawBufferPointer, _ record: Int, _ other: [UInt8], _ otherRecord: Int) -> Bool {
        let order = other.withUnsafeBytes { KeyEncoding.order(key, $0) }
        return order != 0 ? order < 0 : record < otherRecord
    }

    static func == (a: SortEnd, b: SortEnd) -> Bool {
        a.key == b.key && a.record == b.record && a.written == b.written && a.long?.length == b.long?.length
    }
}

/// Everything a summary says about one column, gathered cell by cell.
struct ColumnProfile: Sendable {
    var filled = 0
    var empty = 0
    /// The kinds of filled cells seen (bits of `ValueKind`).
    var kinds: UInt8 = 0
    var counter: ValueCounter
    var moments = Moments()
    /// The numbers (or instants) for the quantiles, and in bins for the shape: while the
    /// column is of one number or date kind (nil before its first such cell).
    var quantiles: QuantileSketch? { hasQuantiles ? quantileValues : nil }
    var bins: ValueBins? { binsKind == .none ? nil : binValues }
    /// Kept plain, not optional, with flags: a value added through an optional copied it.
    private var hasQuantiles = false
    private var quantileValues = QuantileSketch(budget: 0)
    private var binValues = ValueBins(capacity: 16)
    /// After a text cell the bins still take numbers (or dates) for the shape, until more
    /// than one filled cell in ten past the first 1,000 is not one: then this is set.
    var binsStopped = false
    /// What `bins` holds (none: nil), and its count of values, kept beside it: reading
    /// them from the optional for each cell copied it.
    private var binsKind = BinsKind.none
    private var binned = 0
    private enum BinsKind { case none, numbers, times }
    /// Values the quantiles keep exactly before their sketch takes over.
    let quantileBudget: Int
    /// How a sort orders the column (judged as the sort judges it): min and max are the
    /// first and last filled cells of an ascending sort.
    let order: ColumnKind
    /// `order`, as flags read for each cell (comparing `ColumnKind`s calls across modules).
    private let isTextOrder: Bool
    private let isNumberOrder: Bool
    private let isDateOrder: Bool
    /// The least and greatest cells so far (their keys empty until a cell is filled): kept
    /// apart, not as `SortEnd`s, so that a cell that changes neither copies nothing.
    private var leastKey: [UInt8] = []
    private var leastRecord = 0
    private var leastWritten: [UInt8] = []
    private var leastLong: LongValue?
    private var greatestKey: [UInt8] = []
    private var greatestRecord = 0
    private var greatestWritten: [UInt8] = []
    private var greatestLong: LongValue?
    var shortest = Int.max
    var longest = 0
    /// The distinct cells whose key ties the greatest (nil: too many to keep, or unknown
    /// after a merge). A cell counted before was placed then, so unless it is one of these
    /// it moves neither end, and its key is not made again (most cells of a column with
    /// few values).
    private var greatestTies: [[UInt8]]? = []
    /// The key of the cell being added (kept to reuse its storage).
    private var scratch: [UInt8] = []
    /// The hash of the cell `announce` was told of, the next one added (0: none; a cell
    /// whose hash is 0 is hashed again, the same).
    private(set) var announced: UInt64 = 0

    init(counter: ValueCounter, order: ColumnKind = .text, quantileBudget: Int = 1 << 20) {
        self.counter = counter
        self.order = order
        switch order {
        case .text: (isTextOrder, isNumberOrder, isDateOrder) = (true, false, false)
        case .number: (isTextOrder, isNumberOrder, isDateOrder) = (false, true, false)
        case .date: (isTextOrder, isNumberOrder, isDateOrder) = (false, false, true)
        }
        self.quantileBudget = quantileBudget
    }

    /// Adds a number or an instant to the quantiles and the bins, of the first such cell's
    /// kind (the other is left out); the summary gives quantiles only when every filled cell
    /// is of one number or date kind. A number past Double's range (`1e400`) is ±infinity
    /// in the quantiles, at its end as in a sort, and in no bin.
    @inline(__always)
    private mutating func addValue(_ value: Double, isTime: Bool, isWhole: Bool) {
        if binsKind == .none {
            quantileValues = QuantileSketch(budget: quantileBudget)
            hasQuantiles = true
            binValues = ValueBins(capacity: ColumnPicture.binCount, isTime: isTime)
            binsKind = isTime ? .times : .numbers
        }
        guard binsKind == (isTime ? .times : .numbers) else { return }
        quantileValues.add(value)
        if value.isFinite {
            binValues.add(value, isWhole: isWhole)
            binned += 1
        }
    }

    /// A cell after the column's first text cell: a number or date goes in the bins only
    /// (the summary gives no quantiles to a text column), so a column of numbers with a few
    /// `n/a` has the shape the band draws; a text column gives up after 1,000 cells.
    private mutating func binAfterText(_ reading: CellReader.Reading) {
        if let number = reading.number {
            addBin(number.value, isTime: false, isWhole: reading.kind == .integer)
        } else if let instant = reading.instant {
            addBin(instant, isTime: true, isWhole: instant.truncatingRemainder(dividingBy: 86_400) == 0)
        }
        if filled >= 1000 && (filled - binned) * 10 > filled { binsStopped = true }
    }

    private mutating func addBin(_ value: Double, isTime: Bool, isWhole: Bool) {
        guard value.isFinite else { return }
        if binsKind == .none {
            binValues = ValueBins(capacity: ColumnPicture.binCount, isTime: isTime)
            binsKind = isTime ? .times : .numbers
        }
        guard binsKind == (isTime ? .times : .numbers) else { return }
        binValues.add(value, isWhole: isWhole)
        binned += 1
    }

    /// The least filled cell in the sort's order (nil while none is filled).
    var least: SortEnd? {
        leastKey.isEmpty ? nil : SortEnd(key: leastKey, record: leastRecord, written: leastWritten, long: leastLong)
    }

    /// The greatest filled cell in the sort's order (nil while none is filled).
    var greatest: SortEnd? {
        greatestKey.isEmpty ? nil : SortEnd(key: greatestKey, record: greatestRecord, written: greatestWritten, long: greatestLong)
    }

    @inline(__always)
    mutating func add(_ bytes: UnsafeRawBufferPointer, record: Int) {
        add(bytes, record: record, hash: valueHash(bytes))
    }

    /// Takes the hash of the cell to be added next (`CellSink.willTake`) and starts
    /// loading the slot it is looked up in.
    @inline(__always)
    mutating func announce(_ hash: UInt64) {
        announced = hash
        counter.prefetch(hash: hash)
    }

    /// Starts loading the entry the announced cell is compared with first.
    @inline(__always)
    mutating func prefetchAnnouncedEntry() {
        if announced != 0 { counter.prefetchEntry(hash: announced) }
    }

    /// Adds a cell by the hash announced for it, if any.
    @inline(__always)
    mutating func addAnnounced(_ bytes: UnsafeRawBufferPointer, record: Int) {
        let hash = announced
        if hash != 0 {
            announced = 0
            add(bytes, record: record, hash: hash)
        } else {
            add(bytes, record: record)
        }
    }

    /// `add(_:record:)` of a cell whose `valueHash` is `hash`.
    @inline(__always)
    mutating func add(_ bytes: UnsafeRawBufferPointer, record: Int, hash: UInt64) {
        let isRepeat = counter.add(bytes, hash: hash, record: record)
        guard bytes.count > 0 else {
            empty += 1
            return
        }
        filled += 1
        let length = CellReader.characterCount(bytes)
        if length < shortest { shortest = length }
        if length > longest { longest = length }
        // Once a column is text, it stays text: its cells need no more reading, but for the
        // bins and a number or date sort's key (read once for both).
        guard kinds & ValueKind.text.bit == 0 else {
            let reading = !binsStopped || !isTextOrder ? CellReader.classify(bytes) : nil
            if !binsStopped, let reading { binAfterText(reading) }
            if isNumberOrder, let number = reading?.number {
                place(bytes, record: record, long: nil, value: number.value)
            } else if isDateOrder, let instant = reading?.instant {
                place(bytes, record: record, long: nil, value: instant)
            } else if !liesWithinEnds(bytes) && !(isRepeat && placedAgain(bytes, record: record)) {
                place(bytes, record: record, long: nil)
            }
            return
        }
        let reading = CellReader.classify(bytes)
        kinds |= reading.kind.bit
        if let number = reading.number {
            moments.add(number.value)
            addValue(number.value, isTime: false, isWhole: reading.kind == .integer)
        } else if let instant = reading.instant {
            addValue(instant, isTime: true, isWhole: instant.truncatingRemainder(dividingBy: 86_400) == 0)
        }
        // The sort reads a cell as `CellValue` does, as `classify` just did: its value is the key.
        if isNumberOrder, let number = reading.number {
            place(bytes, record: record, long: nil, value: number.value)
        } else if isDateOrder, let instant = reading.instant {
            place(bytes, record: record, long: nil, value: instant)
        } else if !(isRepeat && placedAgain(bytes, record: record)) {
            place(bytes, record: record, long: nil)
        }
    }

    /// True when a text column's cell sorts strictly between its least and greatest by its
    /// first bytes alone, as its key folds them (a letter's case; a digit run's mark, where
    /// the reading stops): most cells of a column of many values, whose key is then not
    /// made. Only plain ASCII is read so (its key is its bytes folded, one for one); a cell
    /// undecided by then is placed by its key. (Mutating only so that the profile is
    /// borrowed in place: a call on a copy copied all of it for each cell.)
    @inline(__always)
    private mutating func liesWithinEnds(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard isTextOrder, leastKey.count > 1, greatestKey.count > 1, !bytes.isEmpty,
              leastKey[0] == ColumnProfile.textKeyClass, greatestKey[0] == ColumnProfile.textKeyClass else { return false }
        return leastKey.withUnsafeBufferPointer { least in
            greatestKey.withUnsafeBufferPointer { greatest in
                ColumnProfile.liesBetween(bytes, least, greatest)
            }
        }
    }

    /// `liesWithinEnds` over the two text keys (each its class byte, the folded text, a 0).
    @inline(__always)
    static func liesBetween(_ bytes: UnsafeRawBufferPointer, _ least: UnsafeBufferPointer<UInt8>,
                            _ greatest: UnsafeBufferPointer<UInt8>) -> Bool {
        var aboveLeast = false, belowGreatest = false
        let count = min(bytes.count, 64)
        var index = 0
        while index < count {
            let byte = bytes[index]
            guard byte < 0x80, byte > 1 else { return false }
            let isDigit = byte &- 0x30 < 10
            let folded: UInt8 = isDigit ? 0x30 : byte &- 0x41 < 26 ? byte + 0x20 : byte
            if !aboveLeast {
                let other = index + 1 < least.count ? least[index + 1] : 0
                if folded < other { return false }
                aboveLeast = folded > other
            }
            if !belowGreatest {
                let other = index + 1 < greatest.count ? greatest[index + 1] : 0
                if folded > other { return false }
                belowGreatest = folded < other
            }
            if aboveLeast && belowGreatest { return true }
            // A digit run's key is its mark, its length and its digits: past the mark, unsure.
            if isDigit { return false }
            index += 1
        }
        return false
    }

    /// Places a cell counted before without its key, when that is known to be enough: one
    /// that ties the greatest becomes its last tie; any other changes nothing. False when
    /// the ties are not known (the cell is placed by its key).
    @inline(__always)
    private mutating func placedAgain(_ bytes: UnsafeRawBufferPointer, record: Int) -> Bool {
        guard let ties = greatestTies else { return false }
        guard ties.contains(where: { ColumnProfile.same($0, bytes) }) else { return true }
        greatestRecord = record
        if greatestLong != nil || !ColumnProfile.same(greatestWritten, bytes) {
            greatestWritten.removeAll(keepingCapacity: true)
            greatestWritten.append(contentsOf: bytes)
            greatestLong = nil
        }
        return true
    }

    /// Takes a filled cell (of a long value, its start) as the least or greatest when its
    /// sort key says so; `value`, when given, is the number or instant the key holds.
    /// Cells come in file order: an equal key makes it the greatest (the last of a sort's
    /// ties), never the least.
    @inline(__always)
    mutating func place(_ bytes: UnsafeRawBufferPointer, record: Int, long: LongValue?, value: Double? = nil) {
        // A number or instant strictly between the ends changes neither: its key (the
        // value's bits in order, after the class byte) is compared without being made.
        if let value, !leastKey.isEmpty {
            let bits = KeyEncoding.orderedBits(value)
            let belowLeast = ColumnProfile.valueBits(leastKey).map { bits < $0 } ?? true
            let belowGreatest = ColumnProfile.valueBits(greatestKey).map { bits < $0 } ?? true
            if !belowLeast && belowGreatest { return }
        }
        scratch.removeAll(keepingCapacity: true)
        if let value {
            KeyEncoding.appendSortKey(value: value, to: &scratch)
        } else {
            KeyEncoding.appendSortKey(bytes, kind: order, to: &scratch)
        }
        guard !leastKey.isEmpty else {
            greatestTies = long == nil ? [Array(bytes)] : nil
            leastKey = scratch
            leastRecord = record
            leastWritten = Array(bytes)
            leastLong = long
            greatestKey = scratch
            greatestRecord = record
            greatestWritten = leastWritten
            greatestLong = long
            return
        }
        let (belowLeast, againstGreatest) = scratch.withUnsafeBytes { key in
            (leastKey.withUnsafeBytes { KeyEncoding.order(key, $0) } < 0, greatestKey.withUnsafeBytes { KeyEncoding.order(key, $0) })
        }
        if belowLeast {
            leastKey.removeAll(keepingCapacity: true)
            leastKey.append(contentsOf: scratch)
            leastRecord = record
            leastWritten.removeAll(keepingCapacity: true)
            leastWritten.append(contentsOf: bytes)
            leastLong = long
        }
        guard againstGreatest >= 0 else { return }
        if long != nil {
            greatestTies = nil
        } else if againstGreatest > 0 {
            if greatestTies != nil { ColumnProfile.setOnly(bytes, in: &greatestTies) }
        } else if let ties = greatestTies, !ties.contains(where: { ColumnProfile.same($0, bytes) }) {
            greatestTies = ties.count < 8 ? ties + [Array(bytes)] : nil
        }
        greatestRecord = record
        // A tie: the later cell, its bytes only when they differ (`Zoe`, `zoe`).
        if againstGreatest == 0 && long == nil && greatestLong == nil && ColumnProfile.same(greatestWritten, bytes) { return }
        if againstGreatest > 0 {
            greatestKey.removeAll(keepingCapacity: true)
            greatestKey.append(contentsOf: scratch)
        }
        greatestWritten.removeAll(keepingCapacity: true)
        greatestWritten.append(contentsOf: bytes)
        greatestLong = long
    }

    /// True when `kept` holds the bytes `bytes` does.
    @inline(__always)
    static func same(_ kept: [UInt8], _ bytes: UnsafeRawBufferPointer) -> Bool {
        kept.count == bytes.count && (bytes.count == 0 || kept.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
    }

    /// Makes `ties` (not nil) hold `bytes` alone, reusing its storage (a new greatest in
    /// every record, as an ascending id column has, allocates nothing).
    @inline(__always)
    static func setOnly(_ bytes: UnsafeRawBufferPointer, in ties: inout [[UInt8]]?) {
        guard ties != nil, !ties!.isEmpty else {
            ties = [Array(bytes)]
            return
        }
        if ties!.count > 1 { ties!.removeSubrange(1...) }
        ties![0].removeAll(keepingCapacity: true)
        ties![0].append(contentsOf: bytes)
    }

    /// `KeyEncoding.valueClass` and `textClass`, known here (read across modules, each
    /// look called an accessor).
    static let valueKeyClass: UInt8 = 1
    static let textKeyClass: UInt8 = 2

    /// The value bits of a number's or instant's key (`KeyEncoding.orderedBits`), nil for
    /// a text key (which sorts after every value).
    @inline(__always)
    static func valueBits(_ key: [UInt8]) -> UInt64? {
        guard key.count == 9, key[0] == valueKeyClass else { return nil }
        return key.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 1, as: UInt64.self).bigEndian }
    }

    /// Folds in the profile of a later part of the input.
    mutating func merge(_ other: ColumnProfile) {
        filled += other.filled
        empty += other.empty
        kinds |= other.kinds
        counter.merge(other.counter)
        moments.merge(other.moments)
        if let theirs = other.quantiles {
            if hasQuantiles { quantileValues.merge(theirs) } else { quantileValues = theirs }
            hasQuantiles = true
        }
        binsStopped = binsStopped || other.binsStopped
        if let theirs = other.bins {
            if binsKind == .none { binValues = theirs } else if binValues.isTime == theirs.isTime { binValues.merge(theirs) }
            binsKind = binValues.isTime ? .times : .numbers
            binned = binValues.total
        }
        if let theirs = SortEnd.lesser(least, other.least) {
            (leastKey, leastRecord, leastWritten, leastLong) = (theirs.key, theirs.record, theirs.written, theirs.long)
        }
        if let theirs = SortEnd.greater(greatest, other.greatest) {
            (greatestKey, greatestRecord, greatestWritten, greatestLong) = (theirs.key, theirs.record, theirs.written, theirs.long)
        }
        shortest = min(shortest, other.shortest)
        longest = max(longest, other.longest)
        greatestTies = nil
    }

    /// The profile as a summary row. `common`, past the budget, are the values a second
    /// pass counted exactly (`CommonValues`); without it, the counts so far.
    func summary(column: Int, name: String, commonValues: Int, isComplete: Bool, recounted: [FrequencyRow]? = nil) -> ColumnSummary {
        let kind = ValueKind.of(kinds)
        let numeric = kind == .integer || kind == .decimal
        let total = filled + empty
        let common: [FrequencyRow]
        if let recounted {
            common = Array(recounted.prefix(commonValues))
        } else {
            // Past the budget a kept count may be short by `undercount`: a value is listed
            // only when it surely occurs more often than any value dropped, and the empty
            // value's count is known exactly.
            common = counter.top(commonValues + 1).compactMap { entry -> FrequencyRow? in
                let count = entry.value.isEmpty ? empty : entry.count
                guard counter.isExact || entry.value.isEmpty || entry.count > counter.undercount else { return nil }
                return FrequencyRow(value: entry.value, count: count, percent: FrequencyTable.percent(count, of: total),
                                    wholeLength: entry.wholeLength)
            }.sorted { $0.count > $1.count }.prefix(commonValues).map { $0 }
        }
        var summary = ColumnSummary(column: column, name: name, kind: kind, filled: filled, empty: empty,
                                    distinct: max(counter.distinct, recounted?.count ?? 0), distinctIsEstimate: !counter.isExact,
                                    minimum: least?.text, maximum: greatest?.text,
                                    mean: numeric ? moments.mean : nil,
                                    standardDeviation: numeric ? moments.standardDeviation : nil,
                                    shortest: filled > 0 ? shortest : nil, longest: filled > 0 ? longest : nil,
                                    common: common, commonIsEstimate: !counter.isExact && recounted == nil, isComplete: isComplete)
        summary.least = least
        summary.greatest = greatest
        let hasValues = numeric || kind == .dateTime
        if isComplete, hasValues, let quantiles,
           let values = quantiles.quantiles(percents: ColumnSummary.quantilePercents, interpolates: kind != .dateTime) {
            summary.quantiles = values
            summary.quantilesAreEstimates = !quantiles.isExact
            summary.isTime = kind == .dateTime
        }
        summary.shape = shape(kind: kind, hasValues: hasValues)
        return summary
    }

    /// The column's picture for the summary's `shape`, as the band draws it: its bins when
    /// nine in ten filled cells are numbers or dates (a few `n/a` make the summary's kind
    /// text, not the picture), the shares of its most common values otherwise.
    private func shape(kind: ValueKind, hasValues: Bool) -> ColumnShape {
        if let bins, hasValues || (!binsStopped && bins.total * 10 >= filled * 9) {
            return bins.total == 0 || bins.minimum == bins.maximum ? .flat
                : .histogram(bins.groups(cells: ColumnSummary.shapeWidth).counts)
        }
        let top = counter.top(ColumnShape.segments + 1).filter { !$0.value.isEmpty }.prefix(ColumnShape.segments)
        let distinct = counter.distinct - (empty > 0 ? 1 : 0)
        if distinct <= 1 && counter.isExact { return .flat }
        return .shares(counts: top.map(\.count), total: filled, distinct: max(0, distinct), isEstimate: !counter.isExact)
    }
}

extension SortEnd {
    /// The one of two least cells that sorts first (equal keys: the earlier record).
    static func lesser(_ a: SortEnd?, _ b: SortEnd?) -> SortEnd? {
        guard let a, let b else { return a ?? b }
        return b.key.withUnsafeBytes { precedes($0, b.record, a.key, a.record) } ? b : a
    }

    /// The one of two greatest cells that sorts last (equal keys: the later record).
    static func greater(_ a: SortEnd?, _ b: SortEnd?) -> SortEnd? {
        guard let a, let b else { return a ?? b }
        return a.key.withUnsafeBytes { precedes($0, a.record, b.key, b.record) } ? b : a
    }
}
