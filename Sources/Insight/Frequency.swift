import CellStore
import Scan
import Synchronization
import Table

/// One value of a frequency table: how often it occurs and its share of the records.
package struct FrequencyRow: Sendable, Equatable {
    /// The cell's bytes, as the parser reads them (empty: the empty value).
    package var value: [UInt8]
    package var count: Int
    /// `count` as a percentage of the records counted.
    package var percent: Double
    /// For a value longer than a cell kept in memory (1 MiB): its whole length in bytes,
    /// `value` being its start. Nil for a value held whole.
    package var wholeLength: Int?
    /// The first record the value is in (to read a long value again from the input).
    package var firstRecord: Int?
    /// What tells a long value apart from others with the same start (its key).
    var identity: [UInt8]?

    package init(value: [UInt8], count: Int, percent: Double, wholeLength: Int? = nil, firstRecord: Int? = nil) {
        self.value = value
        self.count = count
        self.percent = percent
        self.wholeLength = wholeLength
        self.firstRecord = firstRecord
    }

    /// The value as text (invalid UTF-8 becomes U+FFFD).
    package var text: String { String(decoding: value, as: UTF8.self) }

    /// The percentage as `--frequency` and the frequency sheet write it: two decimals, no sign.
    package var percentText: String { FrequencyRow.text(ofPercent: percent) }

    /// A percentage with two decimals, no sign (`12.50`): as `%.2f` rounds it, with a point
    /// whatever the locale says (`printf` would write a German comma).
    package static func text(ofPercent percent: Double) -> String {
        let hundredths = (percent * 100).rounded(.toNearestOrEven)
        guard hundredths.isFinite, hundredths.magnitude < 1e15 else { return "\(percent)" }
        let whole = Int(hundredths.magnitude), fraction = whole % 100
        return (hundredths < 0 ? "-" : "") + "\(whole / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
    /// True when `value` is only the start of the value (see `wholeLength`).
    package var isShortened: Bool { wholeLength != nil }

    /// The value as text to show: a shortened one ends in `…` and says its size.
    package var shownText: String {
        guard let wholeLength else { return text }
        return text + "… (\(wholeLength) bytes)"
    }
}

extension ValueTable {
    /// Entry `index` as a row of a table of `total` records (counted `count` times, when
    /// given, instead of its own count).
    func row(_ index: Int, count: Int? = nil, total: Int) -> FrequencyRow {
        let (value, length) = shown(index)
        let counted = count ?? entries[index].count
        var row = FrequencyRow(value: value, count: counted, percent: FrequencyTable.percent(counted, of: total),
                               wholeLength: length, firstRecord: entries[index].first)
        if entries[index].isLong { row.identity = self.value(index) }
        return row
    }
}

/// The values of one column, most frequent first (ties: the value seen first comes first).
package struct FrequencyTable: Sendable, Equatable {
    package var rows: [FrequencyRow]
    /// Records counted (every record has one value, the empty value included).
    package var total: Int
    /// Distinct values: exact when `distinctIsEstimate` is false.
    package var distinct: Int
    package var distinctIsEstimate: Bool
    /// Records whose value is not among `rows` (0 when every value is listed).
    package var unlistedCount: Int
    /// Each value not listed occurs at most this many times (0 when every value is listed).
    package var unlistedAtMost: Int
    /// False for a partial table published while the scan runs: counts so far, and values
    /// past the budget still unsettled.
    package var isComplete: Bool

    /// True when every value is listed with its exact count.
    package var isExact: Bool { isComplete && unlistedCount == 0 && !distinctIsEstimate }

    /// True when each of the (more than one) records counted has a value of its own: known
    /// exactly past the budget too, when no value is listed and none left out can occur twice.
    package var areAllUnique: Bool {
        guard isComplete && total > 1 else { return false }
        return isExact ? rows.count == total : rows.isEmpty && unlistedAtMost <= 1
    }

    static func percent(_ count: Int, of total: Int) -> Double { total == 0 ? 0 : Double(count) * 100 / Double(total) }
}

/// Limits that keep a count's memory bounded whatever the input.
package struct InsightBudget: Sendable, Equatable {
    /// Bytes the exact counts of one frequency table (or of all a summary's columns) may hold.
    package var bytes: Int
    /// Values a frequency table keeps once past `bytes` (the most frequent ones).
    package var keptValues: Int
    /// Bytes a summary's quantiles keep exactly, all columns together, before each column's
    /// sketch takes over (past that, quantiles are marked `≈`).
    package var quantileBytes: Int

    package init(bytes: Int = 64 << 20, keptValues: Int = 1 << 16, quantileBytes: Int = 16 << 20) {
        self.bytes = bytes
        self.keptValues = keptValues
        self.quantileBytes = quantileBytes
    }

    /// 64 MiB: exact up to about 600,000 distinct values of a few bytes.
    package static let standard = InsightBudget()

    /// Bytes the count of one column in one share of a pass may hold: half the budget,
    /// shared out between the columns and the shares (the other half is room to prune,
    /// merge and count the kept values again). A frequency table is a one-column summary:
    /// both count a column alike.
    func shareBytes(columns: Int, shares: Int) -> Int { bytes / 2 / max(1, columns) / max(1, shares) }

    /// Values a count of `bytes` keeps once past them: `keptValues`, or fewer when the
    /// twice as many entries a count holds before it prunes would not fit in half of them.
    func kept(forShareBytes bytes: Int) -> Int { max(4, min(keptValues, bytes / 128)) }
}

/// Counts each distinct value of one column, in the background: the frequency sheet's
/// engine, and `--frequency`'s.
///
/// One pass over the input counts every value exactly while the distinct values fit the
/// budget. Past it, the pass keeps the most frequent values and estimates the distinct
/// count (see `ValueCounter`), and a second pass counts the values kept exactly: the
/// table then lists every value that occurs more often than any value it leaves out.
/// While it runs, `partial` holds the counts so far.
package final class FrequencyCount {
    package typealias Status = BackgroundScan<FrequencyTable>.Status

    private let scan: BackgroundScan<FrequencyTable>
    private let board: Board<FrequencyTable>

    /// Starts counting column `column` (from 0) of the records of `input` from
    /// `headerRows` on; only those of `records` when given (a filter's result).
    package convenience init(input: ScanInput, column: Int, headerRows: Int, records: (any RecordSequence)? = nil,
                            budget: InsightBudget = .standard, wake: @escaping @Sendable () -> Void = {}) {
        self.init(Pass(input: input, columns: column..<(column + 1), filter: RecordFilter(first: headerRows)),
                  records: records, budget: budget, wake: wake)
    }

    /// Starts counting column `column` of the records of the input `readers` read, from
    /// `headerRows` on, once it is indexed to its end (a file still being read: it waits for
    /// the index, then reads the whole file as `--frequency` does).
    package convenience init(completing readers: RecordReaders, column: Int, headerRows: Int, records: (any RecordSequence)? = nil,
                            budget: InsightBudget = .standard, wake: @escaping @Sendable () -> Void = {}) {
        self.init(PassPlan(whenIndexed: readers, columns: column..<(column + 1), filter: RecordFilter(first: headerRows)),
                  records: records, budget: budget, wake: wake)
    }

    /// Starts counting column `column` of the data rows of `rows` (a sheet's), as a file's
    /// records are counted.
    package convenience init(rows: RowSnapshot, column: Int, headerRows: Int, records: (any RecordSequence)? = nil,
                            budget: InsightBudget = .standard, wake: @escaping @Sendable () -> Void = {}) {
        self.init(Pass(rows: rows, columns: column..<(column + 1), filter: RecordFilter(first: headerRows)),
                  records: records, budget: budget, wake: wake)
    }

    private convenience init(_ pass: Pass, records: (any RecordSequence)?, budget: InsightBudget, wake: @escaping @Sendable () -> Void) {
        self.init(PassPlan(pass), records: records, budget: budget, wake: wake)
    }

    private init(_ plan: PassPlan, records: (any RecordSequence)?, budget: InsightBudget, wake: @escaping @Sendable () -> Void) {
        let board = Board<FrequencyTable>(wake: wake)
        self.board = board
        scan = BackgroundScan(name: "csvfreeze frequency", total: plan.byteCount, wake: wake) { control in
            guard let pass = plan.pass(control: control), let chosen = pass.restricted(to: records, control: control) else { return nil }
            return FrequencyCount.count(chosen, budget: budget, control: control, board: board)
        }
    }

    /// Where the count is; the table once finished.
    package var status: Status { scan.status }

    /// The table so far (nil before the first piece is counted); the final table once finished.
    package var partial: FrequencyTable? {
        if case .finished(let table) = scan.status { return table }
        let parts = board.values
        guard !parts.isEmpty else { return nil }
        return FrequencyCount.combine(parts)
    }

    package func cancel() { scan.cancel() }
    package func wait() { scan.wait() }

    /// Rows a partial table lists.
    static let partialRows = 500

    /// Counts on the calling thread (and the other core); nil when cancelled.
    static func count(_ pass: Pass, budget: InsightBudget, control: ScanControl, board: Board<FrequencyTable>? = nil) -> FrequencyTable? {
        let column = pass.columns.lowerBound
        // A one-column summary's counter: the same budget, values kept and sketch.
        let shareBudget = budget.shareBytes(columns: 1, shares: pass.workers)
        let kept = budget.kept(forShareBytes: shareBudget)
        let precision = HyperLogLog.precision(forSketches: max(1, pass.workers))
        guard let counters = pass.run(control: control, make: { _ in
            FrequencySink(column: column, counter: ValueCounter(budget: shareBudget, kept: kept, precision: precision))
        }, afterPiece: { share, sink in
            if let board, board.isDue(share: share) { board.publish(sink.counter.table(limit: partialRows), share: share) }
        }) else { return nil }
        var merged = counters[0].counter
        for other in counters.dropFirst() { merged.merge(other.counter) }
        if merged.isExact { return merged.table(limit: Int.max, isComplete: true) }
        // Past the budget: count the kept values again, exactly.
        guard let rows = CommonValues.recount(pass, counters: [column: merged], control: control)?[column] else { return nil }
        let listedCount = rows.reduce(0) { $0 + $1.count }
        return FrequencyTable(rows: rows, total: merged.total, distinct: max(merged.distinct, rows.count), distinctIsEstimate: true,
                              unlistedCount: merged.total - listedCount, unlistedAtMost: merged.undercount, isComplete: true)
    }

    /// The shares' partial tables as one.
    static func combine(_ parts: [FrequencyTable]) -> FrequencyTable {
        var counts: [[UInt8]: (count: Int, order: Int, row: FrequencyRow)] = [:]
        var total = 0, distinct = 0, unlisted = 0, atMost = 0
        for part in parts {
            total += part.total
            distinct = max(distinct, part.distinct)
            unlisted += part.unlistedCount
            atMost += part.unlistedAtMost
            for row in part.rows {
                let order = counts.count
                // A long value is told apart by its key, not by its start.
                let key = row.identity.map { [1] + $0 } ?? [0] + row.value
                counts[key, default: (0, order, row)].count += row.count
            }
        }
        let rows = counts.values.sorted { $0.count != $1.count ? $0.count > $1.count : $0.order < $1.order }
            .prefix(partialRows)
            .map { entry in
                var row = entry.row
                row.count = entry.count
                row.percent = FrequencyTable.percent(entry.count, of: total)
                return row
            }
        return FrequencyTable(rows: Array(rows), total: total, distinct: max(distinct, rows.count), distinctIsEstimate: true,
                              unlistedCount: unlisted, unlistedAtMost: atMost, isComplete: false)
    }
}

extension ValueCounter {
    /// The counts as a table of at most `limit` rows.
    func table(limit: Int, isComplete: Bool = false) -> FrequencyTable {
        let rows = table.top(limit).map { table.row($0, total: total) }
        let listed = rows.reduce(0) { $0 + $1.count }
        return FrequencyTable(rows: rows, total: total, distinct: distinct, distinctIsEstimate: !isExact,
                              unlistedCount: total - listed, unlistedAtMost: isExact ? (rows.last?.count ?? 0) : undercount,
                              isComplete: isComplete)
    }
}

/// Counts the values of one column.
struct FrequencySink: CellSink, Sendable {
    let column: Int
    var counter: ValueCounter

    @inline(__always)
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) {
        counter.add(bytes, record: record)
    }

    mutating func longCell(_ value: LongValue, column: Int, record: Int) {
        counter.add(value, record: record)
    }
}

