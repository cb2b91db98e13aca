import CellStore
import Foundation
import Scan
import Table

/// One column's numbers (or instants) counted in exact fine bins, and the cells that are
/// not of its kind: what a histogram is drawn from.
package struct HistogramCounts: Sendable {
    package private(set) var bins: ValueBins
    package private(set) var empty = 0
    /// Filled cells that are not numbers (dates), counted apart.
    package private(set) var others = 0
    /// Numbers past a double's range (`1e400`): numbers, but in no bin.
    package private(set) var infinities = 0
    /// False while the pass runs (counts so far).
    package var isComplete = false

    /// Fine bins a histogram counts in: a thousand or more in use once the values spread
    /// (a tenth), so up to a thousand round bins can be drawn from them.
    static let binCount = 16_384

    init(isTime: Bool) {
        bins = ValueBins(capacity: Self.binCount, isTime: isTime)
    }

    package var isTime: Bool { bins.isTime }
    /// Records counted (every record has a cell, empty when it lacks the column).
    package var total: Int { bins.total + empty + others + infinities }

    @inline(__always)
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else {
            empty += 1
            return
        }
        if bins.isTime {
            if let instant = CellValue.instant(bytes) {
                bins.add(instant, isWhole: instant.truncatingRemainder(dividingBy: 86_400) == 0)
            } else {
                others += 1
            }
        } else if let number = CellValue.number(bytes) {
            if number.value.isFinite {
                // Whole as the band judges it: by value, so `4.0` and `1e3` are (every double
                // from 2^52 on is).
                let value = number.value
                bins.add(value, isWhole: number.isInteger || (abs(value) < 0x1p52 ? Double(Int64(value)) == value : true))
            } else {
                infinities += 1
            }
        } else {
            others += 1
        }
    }

    /// Counts a filled cell that is not of the column's kind.
    mutating func addOther() { others += 1 }

    mutating func merge(_ other: HistogramCounts) {
        bins.merge(other.bins)
        empty += other.empty
        others += other.others
        infinities += other.infinities
    }

    /// At most `wanted` bins of one round width (the narrowest that fits), from the first
    /// holding a value to the last, empty ones between included; each count exact.
    package func table(bins wanted: Int) -> HistogramTable {
        var table = HistogramTable(counts: self)
        guard bins.total > 0 else { return table }
        let scale = bins.scale
        // Whole values (integers; dates without a time) get no bin narrower than their
        // unit: ratings 1 to 5 are [1, 2) … [5, 6), not [1, 1.5), [1.5, 2) with every
        // other bin empty.
        let candidates = BinWidth.candidates(over: scale).filter { !bins.allWhole || $0.isWhole(isTime: scale.isTime) }
        guard let width = (bins.minimum == bins.maximum ? Self.widthStarting(at: bins.minimum, fine: bins.low, in: candidates,
                                                                            scale: scale) : nil)
            ?? candidates.first(where: { width in
                width.bin(ofFine: bins.high, scale: scale) - width.bin(ofFine: bins.low, scale: scale) + 1 <= Int64(max(1, wanted))
            }) ?? candidates.last else { return table }
        let first = width.bin(ofFine: bins.low, scale: scale)
        let last = width.bin(ofFine: bins.high, scale: scale)
        var counts = [Int](repeating: 0, count: Int(last - first + 1))
        for index in bins.low...bins.high {
            let count = bins.count(at: index)
            if count > 0 { counts[Int(width.bin(ofFine: index, scale: scale) - first)] += count }
        }
        let total = self.total
        table.width = width
        table.rows = counts.enumerated().map { offset, count in
            let bin = first + Int64(offset)
            return HistogramRow(low: width.text(of: bin, isTime: isTime), high: width.text(of: bin + 1, isTime: isTime),
                                lowValue: width.start(of: bin, isTime: isTime), highValue: width.start(of: bin + 1, isTime: isTime),
                                count: count, percent: total == 0 ? 0 : Double(count) * 100 / Double(total))
        }
        return table
    }
}

extension HistogramCounts {
    /// One value's bin: the coarsest width of 1 × 10^k (for instants a second to a day) that
    /// starts at the value, no wider than its leading digit, so `5` is `[5, 6)` and
    /// `2024-03-01` is a day, not a bin as narrow as the finest bins (`[5, 5.00000000000001)`).
    static func widthStarting(at value: Double, fine: Int64, in candidates: [BinWidth], scale: BinScale) -> BinWidth? {
        let leading = value == 0 ? 0 : Int(log10(abs(value)).rounded(.down))
        return candidates.last { width in
            switch width {
            case .decimal(1, let exponent): if !scale.isTime && exponent > leading || scale.isTime && exponent > 0 { return false }
            case .seconds(let seconds): if ![60, 3600, 86_400].contains(seconds) { return false }
            default: return false
            }
            return width.start(of: width.bin(ofFine: fine, scale: scale), isTime: scale.isTime) == value
        }
    }
}

/// One bin of a histogram: [low, high), its count and its share of the records counted.
package struct HistogramRow: Sendable, Equatable {
    /// The bounds as text (`0.3`, `2024-03-01`), and as the doubles values are compared with.
    package var low: String
    package var high: String
    package var lowValue: Double
    package var highValue: Double
    package var count: Int
    package var percent: Double

    /// `[10, 20)`: the range a bin covers, its low bound in, its high bound out.
    package var range: String { "[\(low), \(high))" }
}

/// A column's histogram: its bins, their width, and what was counted apart.
package struct HistogramTable: Sendable {
    package var rows: [HistogramRow] = []
    package var width: BinWidth?
    package var counts: HistogramCounts
    package var isComplete: Bool { counts.isComplete }
    package var isTime: Bool { counts.isTime }
}

/// Counts one column's values in bins, in the background: the histogram sheet's engine,
/// and `--histogram`'s. One pass, both cores; while it runs, `partial` holds the counts so
/// far.
package final class HistogramCount {
    package typealias Status = BackgroundScan<HistogramCounts>.Status

    private let scan: BackgroundScan<HistogramCounts>
    private let board: Board<HistogramCounts>

    /// Starts counting column `column` (from 0) of `input`'s records from `headerRows` on,
    /// as numbers or (`isTime`) instants; only those of `records` when given.
    package convenience init(input: ScanInput, column: Int, isTime: Bool, headerRows: Int, records: (any RecordSequence)? = nil,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(Pass(input: input, columns: column..<(column + 1), filter: RecordFilter(first: headerRows)), isTime: isTime,
                  records: records, wake: wake)
    }

    /// The same over the data rows of `rows` (a sheet's).
    package convenience init(rows: RowSnapshot, column: Int, isTime: Bool, headerRows: Int, records: (any RecordSequence)? = nil,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(Pass(rows: rows, columns: column..<(column + 1), filter: RecordFilter(first: headerRows)), isTime: isTime,
                  records: records, wake: wake)
    }

    /// The same over every record of a file still being read, once it is indexed to its
    /// end (as `#` waits for the index instead of reading the file twice).
    package convenience init(completing readers: RecordReaders, column: Int, isTime: Bool, headerRows: Int,
                             records: (any RecordSequence)? = nil, wake: @escaping @Sendable () -> Void = {}) {
        self.init(PassPlan(whenIndexed: readers, columns: column..<(column + 1), filter: RecordFilter(first: headerRows)),
                  isTime: isTime, records: records, wake: wake)
    }

    private convenience init(_ pass: Pass, isTime: Bool, records: (any RecordSequence)?, wake: @escaping @Sendable () -> Void) {
        self.init(PassPlan(pass), isTime: isTime, records: records, wake: wake)
    }

    private init(_ plan: PassPlan, isTime: Bool, records: (any RecordSequence)?, wake: @escaping @Sendable () -> Void) {
        let board = Board<HistogramCounts>()
        self.board = board
        scan = BackgroundScan(name: "csvfreeze histogram", total: plan.byteCount, wake: wake) { control in
            guard let pass = plan.pass(control: control), let chosen = pass.restricted(to: records, control: control) else { return nil }
            guard let sinks = chosen.run(control: control, make: { _ in HistogramSink(counts: HistogramCounts(isTime: isTime)) },
                                         afterPiece: { share, sink in
                                             if board.isDue(share: share) { board.publish(sink.counts, share: share) }
                                         }) else { return nil }
            var counts = sinks[0].counts
            for sink in sinks.dropFirst() { counts.merge(sink.counts) }
            counts.isComplete = true
            return counts
        }
    }

    package var status: Status { scan.status }

    /// The counts so far (nil before the first piece); the final counts once finished.
    package var partial: HistogramCounts? {
        if case .finished(let counts) = scan.status { return counts }
        let parts = board.values
        guard var merged = parts.first else { return nil }
        for part in parts.dropFirst() { merged.merge(part) }
        return merged
    }

    package func cancel() { scan.cancel() }
    package func wait() { scan.wait() }
}

/// Counts the one column of a histogram's pass.
struct HistogramSink: CellSink, Sendable {
    var counts: HistogramCounts

    @inline(__always)
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) {
        counts.add(bytes)
    }

    /// A value longer than a cell kept is no number.
    mutating func longCell(_ value: LongValue, column: Int, record: Int) {
        counts.addOther()
    }
}
