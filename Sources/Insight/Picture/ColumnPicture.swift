import CellStore

/// What one column holds, gathered cell by cell in fixed memory, for a one-line picture:
/// exact bins of its numbers and of its instants (`ValueBins`), and the counts of its
/// most frequent values (`ValueCounter`, with a small budget).
///
/// Cells are read as `CellValue` reads them (the sort, the summary and the screen read
/// them so too). Once a part of the input has shown 1,000 filled cells, nine in ten of
/// them numbers (or instants), the numbers stop going to the value counts: hashing them
/// would cost more than reading them, and the picture is then a histogram. If the column
/// turns out to be text after all, its bar is marked as missing them (`isTextPartial`).
package struct ColumnPicture: Sendable {
    package private(set) var filled = 0
    package private(set) var empty = 0
    /// Filled cells that read as numbers (values past a double's range among them), as
    /// instants, and as neither.
    package private(set) var numberCount = 0
    package private(set) var instantCount = 0
    package private(set) var infinities = 0
    /// The bins of the numbers and of the instants (nil before the first finite one).
    package var numbers: ValueBins? { numberBins.isEmpty ? nil : numberBins }
    package var instants: ValueBins? { instantBins.isEmpty ? nil : instantBins }
    /// Not optionals: testing and unwrapping one for each value cost a copy of the bins.
    private var numberBins = ValueBins(capacity: ColumnPicture.binCount)
    private var instantBins = ValueBins(capacity: ColumnPicture.binCount, isTime: true)
    var values: ValueCounter
    /// Numbers and instants not given to `values` (see above).
    package private(set) var unfed = 0
    private var feedsAll = true

    /// Bytes the value counts of one column may hold, and the values they keep past it.
    static let valueBudget = 16 << 10
    static let keptValues = 32
    /// Fine bins per kind: 2,048 (16 KiB), at least 204 of them in use once values spread.
    static let binCount = 2048

    package init() {
        values = ValueCounter(budget: Self.valueBudget, kept: Self.keptValues, precision: 10)
    }

    /// Adds one cell (empty when the record lacks it).
    @inline(__always)
    package mutating func add(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else {
            empty += 1
            return
        }
        filled += 1
        switch QuickNumber.read(bytes) {
        case .number(let value, let isInteger):
            addNumber(value, isInteger: isInteger, bytes)
        case .unsure:
            if let number = CellValue.number(bytes) {
                addNumber(number.value, isInteger: number.isInteger, bytes)
            } else {
                addOther(bytes)
            }
        case .notNumber:
            addOther(bytes)
        }
        if feedsAll && filled == 1000 && (numberCount >= 900 || instantCount >= 900) { feedsAll = false }
    }

    /// A filled cell that reads as a number.
    @inline(__always)
    private mutating func addNumber(_ value: Double, isInteger: Bool, _ bytes: UnsafeRawBufferPointer) {
        numberCount += 1
        if value.isFinite {
            // Whole: as `value.rounded() == value` (every double from 2^52 on is whole).
            numberBins.add(value, isWhole: isInteger || (abs(value) < 0x1p52 ? Double(Int64(value)) == value : true))
        } else {
            infinities += 1
        }
        if feedsAll { values.add(bytes, record: 0) } else { unfed += 1 }
    }

    /// A filled cell that does not read as a number: an instant, or text.
    @inline(__always)
    private mutating func addOther(_ bytes: UnsafeRawBufferPointer) {
        // `CellValue.instant` reads at least ten bytes from a digit after leading spaces:
        // most text is refused here without the call.
        let lead = bytes[0]
        if bytes.count >= 10 && (lead &- 0x30 < 10 || lead == 0x20), let instant = CellValue.instant(bytes) {
            instantCount += 1
            instantBins.add(instant, isWhole: Self.isMidnight(instant))
            if feedsAll { values.add(bytes, record: 0) } else { unfed += 1 }
        } else {
            values.add(bytes, record: 0)
        }
    }

    /// True when `instant` is a whole number of days, as `instant.truncatingRemainder(
    /// dividingBy: 86_400) == 0` says (which costs a call of libm's `fmod`): a multiple of
    /// 86,400 below 2^53 divides to a whole quotient exactly, and anything else gives a
    /// quotient whose floor times 86,400 (exact, both whole below 2^53) is not it.
    @inline(__always)
    static func isMidnight(_ instant: Double) -> Bool {
        guard abs(instant) < 0x1p53 else { return instant.truncatingRemainder(dividingBy: 86_400) == 0 }
        return (instant / 86_400).rounded(.down) * 86_400 == instant
    }

    /// Counts `count` empty cells at once (records that lacked the column).
    mutating func addEmpty(_ count: Int) { empty += max(0, count) }

    /// Adds a cell longer than a cell kept: text, counted by its key.
    mutating func add(_ value: LongValue) {
        filled += 1
        values.add(value, record: 0)
    }

    /// Folds in the picture of another part of the input.
    package mutating func merge(_ other: ColumnPicture) {
        filled += other.filled
        empty += other.empty
        numberCount += other.numberCount
        instantCount += other.instantCount
        infinities += other.infinities
        unfed += other.unfed
        numberBins.merge(other.numberBins)
        instantBins.merge(other.instantBins)
        values.merge(other.values)
        feedsAll = feedsAll && other.feedsAll
    }

    /// What the picture shows: nine in ten filled cells numbers (or instants) make a
    /// histogram, as a sort judges a column; else the shares of the most common values.
    package enum Kind: Sendable, Equatable {
        case empty, numbers, instants, text
    }

    package var kind: Kind {
        if filled == 0 { return .empty }
        if numberCount * 10 >= filled * 9 { return .numbers }
        if instantCount * 10 >= filled * 9 { return .instants }
        return .text
    }

    /// The bins the histogram is drawn from (nil for text, or when no value is finite).
    package var bins: ValueBins? {
        switch kind {
        case .numbers: return numbers
        case .instants: return instants
        case .empty, .text: return nil
        }
    }

    /// Filled cells that are not of the histogram's kind ("12 not numbers"): 0 for text.
    package var others: Int {
        switch kind {
        case .numbers: return filled - numberCount
        case .instants: return filled - instantCount
        case .empty, .text: return 0
        }
    }

    /// True when a text bar lacks numbers that were not counted by value (see above).
    package var isTextPartial: Bool { kind == .text && unfed > 0 }

    /// Distinct filled values, and whether that is an estimate (past the budget).
    package var distinct: (count: Int, isEstimate: Bool) {
        (values.distinct, !values.isExact || unfed > 0)
    }

    /// True when the column holds one distinct value, or none: its picture is flat.
    package var isFlat: Bool {
        switch kind {
        case .empty: return true
        case .numbers, .instants:
            guard let bins else { return true }
            return bins.minimum == bins.maximum
        case .text:
            return values.isExact && unfed == 0 && values.distinct <= 1
        }
    }

    /// The most common values and their counts, most common first (at most `limit`).
    package func topValues(_ limit: Int) -> [(value: [UInt8], count: Int)] {
        values.top(limit).map { ($0.value, $0.count) }
    }

    /// Cells counted by value (the denominator of the text bar's shares).
    package var valuesCounted: Int { values.total }

    /// Bytes held, roughly (the budget a band keeps per column).
    package var memoryCost: Int {
        values.memoryCost + (numbers?.memoryCost ?? 0) + (instants?.memoryCost ?? 0) + 128
    }
}

/// Hands a pass's cells to one `ColumnPicture` per column.
struct PictureSink: CellSink, Sendable {
    var pictures: [ColumnPicture]
    /// The first column of the pass.
    let first: Int

    @inline(__always)
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) {
        pictures[column - first].add(bytes)
    }

    mutating func longCell(_ value: LongValue, column: Int, record: Int) {
        pictures[column - first].add(value)
    }
}
