#if canImport(Glibc)
import Glibc
#endif

/// Mean and spread of numbers. The mean comes from a compensated sum (Neumaier's: the
/// low-order bits each addition loses are summed apart), so it is the correctly rounded
/// mean in all but contrived cases; the spread from Welford's method (Chan's to join two
/// parts), which stays accurate where a sum of squares would cancel. Welford's steps are
/// taken on halves of the values, so a step between finite values never overflows (`1e308`
/// and `-1e308` are 2e308 apart): the spread is then infinite only when its square is.
struct Moments: Sendable, Equatable {
    var count = 0
    var sum = 0.0
    var compensation = 0.0
    var running = 0.0
    /// The sum of squared deviations, in quarters (deviations of the halved values).
    var quarterSquares = 0.0
    /// Values past Double's range (`1e400`), kept out of the sums: a mean is then infinite
    /// (or has none, with both signs), and the spread has none.
    var positiveInfinities = 0
    var negativeInfinities = 0

    @inline(__always)
    private mutating func addToSum(_ value: Double) {
        let total = sum + value
        compensation += abs(sum) >= abs(value) ? (sum - total) + value : (value - total) + sum
        sum = total
    }

    @inline(__always)
    mutating func add(_ value: Double) {
        guard value.isFinite else {
            if value > 0 { positiveInfinities += 1 } else { negativeInfinities += 1 }
            return
        }
        count += 1
        addToSum(value)
        let halfDelta = value / 2 - running / 2
        running += 2 * (halfDelta / Double(count))
        quarterSquares += halfDelta * (value / 2 - running / 2)
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
        let total = count + other.count
        let halfDelta = other.running / 2 - running / 2
        running += 2 * (halfDelta * (Double(other.count) / Double(total)))
        quarterSquares += other.quarterSquares + halfDelta * halfDelta * (Double(count) * (Double(other.count) / Double(total)))
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
        let mean = (sum + compensation) / Double(count)
        return mean.isFinite ? mean : running
    }

    /// The sample standard deviation (n − 1), nil below two values or when a value is past
    /// Double's range; infinite when the squared deviations are past it.
    var standardDeviation: Double? {
        guard count > 1, positiveInfinities == 0, negativeInfinities == 0 else { return nil }
        let deviation = 2 * (quarterSquares / Double(count - 1)).squareRoot()
        return deviation.isNaN ? nil : deviation
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
    var low: (number: ExactNumber, written: [UInt8])?
    var high: (number: ExactNumber, written: [UInt8])?
    /// The earliest and latest date/time cells, by the instant they name (a sort's order).
    var early: (instant: Double, written: [UInt8])?
    var late: (instant: Double, written: [UInt8])?
    /// The least and greatest filled cells by their bytes (for booleans and text).
    var lowBytes: [UInt8]?
    var highBytes: [UInt8]?
    /// When `lowBytes` or `highBytes` is only the start of a long value: that value.
    var lowLong: LongValue?
    var highLong: LongValue?
    var shortest = Int.max
    var longest = 0

    init(counter: ValueCounter) { self.counter = counter }

    @inline(__always)
    mutating func add(_ bytes: UnsafeRawBufferPointer, record: Int) {
        counter.add(bytes, record: record)
        guard bytes.count > 0 else {
            empty += 1
            return
        }
        filled += 1
        let length = CellReader.characterCount(bytes)
        if length < shortest { shortest = length }
        if length > longest { longest = length }
        if lowBytes == nil || (lowLong == nil ? compareBytes(bytes, lowBytes!) < 0 : LongValue.order(Array(bytes), nil, lowBytes!, lowLong) < 0) {
            lowBytes = Array(bytes)
            lowLong = nil
        }
        if highBytes == nil || (highLong == nil ? compareBytes(bytes, highBytes!) > 0 : LongValue.order(Array(bytes), nil, highBytes!, highLong) > 0) {
            highBytes = Array(bytes)
            highLong = nil
        }
        // Once a column is text, it stays text: its cells need no more reading.
        guard kinds & ValueKind.text.bit == 0 else { return }
        let reading = CellReader.classify(bytes)
        kinds |= reading.kind.bit
        if let instant = reading.instant {
            if early == nil || instant < early!.instant { early = (instant, Array(bytes)) }
            if late == nil || instant > late!.instant { late = (instant, Array(bytes)) }
        }
        guard let number = reading.number else { return }
        moments.add(number.value)
        if low == nil || ExactNumber.order(bytes, number, low!.written, low!.number) < 0 { low = (number, Array(bytes)) }
        if high == nil || ExactNumber.order(bytes, number, high!.written, high!.number) > 0 { high = (number, Array(bytes)) }
    }

    /// Folds in the profile of a later part of the input.
    mutating func merge(_ other: ColumnProfile) {
        filled += other.filled
        empty += other.empty
        kinds |= other.kinds
        counter.merge(other.counter)
        moments.merge(other.moments)
        if let theirs = other.low,
           low == nil || theirs.written.withUnsafeBytes({ ExactNumber.order($0, theirs.number, low!.written, low!.number) }) < 0 {
            low = theirs
        }
        if let theirs = other.high,
           high == nil || theirs.written.withUnsafeBytes({ ExactNumber.order($0, theirs.number, high!.written, high!.number) }) > 0 {
            high = theirs
        }
        if let theirs = other.early, early == nil || theirs.instant < early!.instant { early = theirs }
        if let theirs = other.late, late == nil || theirs.instant > late!.instant { late = theirs }
        if let theirs = other.lowBytes, lowBytes == nil || LongValue.order(theirs, other.lowLong, lowBytes!, lowLong) < 0 {
            lowBytes = theirs
            lowLong = other.lowLong
        }
        if let theirs = other.highBytes, highBytes == nil || LongValue.order(theirs, other.highLong, highBytes!, highLong) > 0 {
            highBytes = theirs
            highLong = other.highLong
        }
        shortest = min(shortest, other.shortest)
        longest = max(longest, other.longest)
    }

    /// The profile as a summary row.
    func summary(column: Int, name: String, commonValues: Int, isComplete: Bool) -> ColumnSummary {
        let kind = ValueKind.of(kinds)
        let numeric = kind == .integer || kind == .decimal
        let text: ([UInt8]?) -> String? = { $0.map { String(decoding: $0, as: UTF8.self) } }
        let total = filled + empty
        // Past the budget a kept count may be short by `undercount`: a value is listed only
        // when it surely occurs more often than any value dropped, and the empty value's
        // count is known exactly.
        let common = counter.top(commonValues + 1).compactMap { entry -> FrequencyRow? in
            let count = entry.value.isEmpty ? empty : entry.count
            guard counter.isExact || entry.value.isEmpty || entry.count > counter.undercount else { return nil }
            return FrequencyRow(value: entry.value, count: count, percent: FrequencyTable.percent(count, of: total),
                                wholeLength: entry.wholeLength)
        }.sorted { $0.count > $1.count }.prefix(commonValues).map { $0 }
        return ColumnSummary(column: column, name: name, kind: kind, filled: filled, empty: empty,
                             distinct: counter.distinct, distinctIsEstimate: !counter.isExact,
                             minimum: numeric ? text(low?.written) : kind == .dateTime ? text(early?.written)
                                 : LongValue.shownText(lowBytes, lowLong),
                             maximum: numeric ? text(high?.written) : kind == .dateTime ? text(late?.written)
                                 : LongValue.shownText(highBytes, highLong),
                             mean: numeric ? moments.mean : nil,
                             standardDeviation: numeric ? moments.standardDeviation : nil,
                             shortest: filled > 0 ? shortest : nil, longest: filled > 0 ? longest : nil,
                             common: common, commonIsEstimate: !counter.isExact, isComplete: isComplete)
    }
}

@inline(__always)
private func compareBytes(_ bytes: UnsafeRawBufferPointer, _ other: [UInt8]) -> Int {
    other.withUnsafeBytes { theirs in
        let shared = min(bytes.count, theirs.count)
        let order = shared == 0 ? 0 : memcmp(bytes.baseAddress!, theirs.baseAddress!, shared)
        if order != 0 { return order < 0 ? -1 : 1 }
        return bytes.count < theirs.count ? -1 : bytes.count > theirs.count ? 1 : 0
    }
}

