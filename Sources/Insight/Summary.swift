import CellStore
import Foundation
import Scan
import Table

/// One row of the summary: what one column holds.
public struct ColumnSummary: Sendable, Equatable {
    /// The column's position (from 0) and its header name (its number, without a header).
    public var column: Int
    public var name: String
    public var kind: ValueKind
    /// Records with a value in this column, and records with an empty one (or none).
    public var filled: Int
    public var empty: Int
    /// Distinct values, the empty value included: exact unless `distinctIsEstimate`.
    public var distinct: Int
    public var distinctIsEstimate: Bool
    /// The least and greatest values as written: compared as numbers in a number column
    /// and as instants in a date/time column (as the sort compares them: see `CellValue`),
    /// by their bytes (UTF-8 code point order) otherwise.
    public var minimum: String?
    public var maximum: String?
    /// For number columns: the mean and the sample standard deviation (the mean is ±infinity
    /// when values past Double's range are all of one sign, nil with both; the deviation
    /// nil then).
    public var mean: Double?
    public var standardDeviation: Double?
    /// The shortest and longest filled value, in characters (Unicode scalars).
    public var shortest: Int?
    public var longest: Int?
    /// The most common values, most common first (the empty value among them).
    public var common: [FrequencyRow]
    /// True when the column had more distinct values than the budget: `common` counts are
    /// then lower bounds, and `distinct` an estimate.
    public var commonIsEstimate: Bool
    /// False in a partial summary published while the scan runs.
    public var isComplete: Bool
}

/// Summarises every column in one pass, in the background: the summary sheet's engine,
/// and `--summary`'s. While it runs, `partial` holds the summary so far.
public final class SummaryScan {
    public typealias Status = BackgroundScan<[ColumnSummary]>.Status

    private let scan: BackgroundScan<[ColumnSummary]>
    private let board: Board<[ColumnSummary]>
    private let names: [String]
    private let commonValues: Int

    /// Starts summarising the `names.count` columns of `input`'s records from `headerRows`
    /// on; only those of `records` when given (a filter's result). `commonValues` most
    /// common values are kept per column.
    public convenience init(input: ScanInput, names: [String], headerRows: Int, records: (any RecordSequence)? = nil,
                            budget: InsightBudget = InsightBudget(bytes: 48 << 20), commonValues: Int = 3,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(Pass(input: input, columns: 0..<names.count, filter: RecordFilter(first: headerRows)), names: names,
                  records: records, budget: budget, commonValues: commonValues, wake: wake)
    }

    /// Starts summarising the columns of the data rows of `rows` (a sheet's), as a file's
    /// records are summarised.
    public convenience init(rows: RowSnapshot, names: [String], headerRows: Int, records: (any RecordSequence)? = nil,
                            budget: InsightBudget = InsightBudget(bytes: 48 << 20), commonValues: Int = 3,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(Pass(rows: rows, columns: 0..<names.count, filter: RecordFilter(first: headerRows)), names: names,
                  records: records, budget: budget, commonValues: commonValues, wake: wake)
    }

    private init(_ pass: Pass, names: [String], records: (any RecordSequence)?, budget: InsightBudget, commonValues: Int,
                 wake: @escaping @Sendable () -> Void) {
        let board = Board<[ColumnSummary]>()
        self.board = board
        self.names = names
        self.commonValues = commonValues
        scan = BackgroundScan(name: "csvfreeze summary", total: pass.byteCount, wake: wake) { control in
            var chosen = pass
            if let records {
                guard let filter = RecordFilter.of(records, first: pass.filter.first, control: control) else { return nil }
                chosen.filter = filter
            }
            guard let profiles = SummaryScan.profile(chosen, budget: budget, control: control, board: board) else { return nil }
            return SummaryScan.rows(profiles, names: names, commonValues: commonValues, isComplete: true)
        }
    }

    public var status: Status { scan.status }

    /// The summary so far (nil before the first piece is read); the final one once finished.
    public var partial: [ColumnSummary]? {
        if case .finished(let rows) = scan.status { return rows }
        let parts = board.values
        guard var merged = parts.first else { return nil }
        for part in parts.dropFirst() { merged = zip(merged, part).map { $0.joined(with: $1) } }
        return merged.map { row in
            var named = row
            named.name = row.column < names.count ? names[row.column] : ""
            return named
        }
    }

    public func cancel() { scan.cancel() }
    public func wait() { scan.wait() }

    static func rows(_ profiles: [ColumnProfile], names: [String], commonValues: Int, isComplete: Bool) -> [ColumnSummary] {
        profiles.enumerated().map { index, profile in
            profile.summary(column: index, name: index < names.count ? names[index] : "\(index + 1)", commonValues: commonValues,
                            isComplete: isComplete)
        }
    }

    /// Profiles every column on the calling thread (and the other core); nil when cancelled.
    static func profile(_ pass: Pass, budget: InsightBudget, control: ScanControl, board: Board<[ColumnSummary]>? = nil) -> [ColumnProfile]? {
        let columns = max(1, pass.columns.count)
        let shares = max(1, pass.workers)
        let perColumn = budget.bytes / columns / shares
        // Distinct-count sketches of 32 KiB (0.57 % standard error), so that a core's
        // sketches stay in its cache; smaller past 128 columns, to share 8 MiB.
        var precision = 15
        while precision > 10 && (1 << precision) * columns * shares > 8 << 20 { precision -= 1 }
        let chosenPrecision = precision
        guard let sinks = pass.run(control: control, make: { _ in
            SummarySink(profiles: Array(repeating: ColumnProfile(counter: ValueCounter(budget: perColumn, kept: 256, precision: chosenPrecision)),
                                        count: columns))
        }, afterPiece: { share, sink in
            if let board, board.isDue(share: share) {
                board.publish(sink.profiles.enumerated().map { $1.summary(column: $0, name: "", commonValues: 3, isComplete: false) },
                              share: share)
            }
        }) else { return nil }
        var merged = sinks[0].profiles
        for sink in sinks.dropFirst() { for index in merged.indices { merged[index].merge(sink.profiles[index]) } }
        return merged
    }
}

/// Profiles every column.
struct SummarySink: CellSink, Sendable {
    var profiles: [ColumnProfile]

    @inline(__always)
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) {
        profiles[column].add(bytes, record: record)
    }
}

extension ColumnSummary {
    /// This partial summary and that of a later part of the input, as one (for display
    /// while a scan runs: the distinct count is a lower bound until the end).
    func joined(with other: ColumnSummary) -> ColumnSummary {
        var result = self
        result.kind = ValueKind.of(kind.bit | other.kind.bit)
        result.filled += other.filled
        result.empty += other.empty
        result.distinct = max(distinct, other.distinct)
        result.distinctIsEstimate = true
        let numeric = result.kind == .integer || result.kind == .decimal
        func order(_ a: String, _ b: String) -> Int {
            let (x, y) = (Array(a.utf8), Array(b.utf8))
            if numeric, let first = x.withUnsafeBytes({ CellReader.number($0)?.1 }), let second = y.withUnsafeBytes({ CellReader.number($0)?.1 }) {
                return first.compare(second)
            }
            if result.kind == .dateTime, let first = x.withUnsafeBytes({ CellValue.instant($0) }),
               let second = y.withUnsafeBytes({ CellValue.instant($0) }) {
                return first < second ? -1 : first > second ? 1 : 0
            }
            return x.lexicographicallyPrecedes(y) ? -1 : x == y ? 0 : 1
        }
        if let theirs = other.minimum { result.minimum = minimum.map { order(theirs, $0) < 0 ? theirs : $0 } ?? theirs }
        if let theirs = other.maximum { result.maximum = maximum.map { order(theirs, $0) > 0 ? theirs : $0 } ?? theirs }
        if let a = mean, let b = other.mean, filled + other.filled > 0 {
            let joined = (a * Double(filled) + b * Double(other.filled)) / Double(filled + other.filled)
            result.mean = joined.isNaN ? nil : joined
        } else {
            result.mean = mean ?? other.mean
        }
        result.standardDeviation = standardDeviation ?? other.standardDeviation
        result.shortest = [shortest, other.shortest].compactMap { $0 }.min()
        result.longest = [longest, other.longest].compactMap { $0 }.max()
        var common: [[UInt8]: Int] = [:]
        var order: [[UInt8]] = []
        for row in self.common + other.common {
            if common[row.value] == nil { order.append(row.value) }
            common[row.value, default: 0] += row.count
        }
        let total = result.filled + result.empty
        result.common = order.map { FrequencyRow(value: $0, count: common[$0]!, percent: FrequencyTable.percent(common[$0]!, of: total)) }
            .enumerated().sorted { $0.element.count != $1.element.count ? $0.element.count > $1.element.count : $0.offset < $1.offset }
            .prefix(self.common.count).map(\.element)
        result.commonIsEstimate = true
        return result
    }
}

extension ColumnSummary {
    /// The summary's columns, as `--summary` writes them and the summary sheet shows them.
    public static let header = ["column", "type", "filled", "empty", "distinct", "min", "max", "mean", "stddev",
                                "shortest", "longest", "common"]

    /// A mean or a deviation as text: Swift's shortest form that reads back exactly,
    /// `inf` or `-inf` past Double's range, nothing when there is none.
    static func text(of value: Double?) -> String {
        guard let value, !value.isNaN else { return "" }
        return value.isInfinite ? (value < 0 ? "-inf" : "inf") : "\(value)"
    }

    /// This summary as text cells under `header` (`≈` marks estimates; the empty value's
    /// count is exact).
    public var cells: [String] {
        let listed = common.map {
            "\($0.value.isEmpty ? "(empty)" : $0.shownText) (\(commonIsEstimate && !$0.value.isEmpty ? "≈" : "")\($0.count))"
        }
        return [
            name, kind.rawValue, "\(filled)", "\(empty)", (distinctIsEstimate ? "≈" : "") + "\(distinct)",
            minimum ?? "", maximum ?? "",
            ColumnSummary.text(of: mean), ColumnSummary.text(of: standardDeviation),
            shortest.map(String.init) ?? "", longest.map(String.init) ?? "",
            listed.joined(separator: ", "),
        ]
    }
}
