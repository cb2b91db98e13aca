import CellStore
import Query
import Scan
import Table

/// One row of the summary: what one column holds.
package struct ColumnSummary: Sendable, Equatable {
    /// The column's position (from 0) and its name (`ColumnNames`: `column N` without one).
    package var column: Int
    package var name: String
    package var kind: ValueKind
    /// Records with a value in this column, and records with an empty one (or none).
    package var filled: Int
    package var empty: Int
    /// Distinct values, the empty value included: exact unless `distinctIsEstimate`.
    package var distinct: Int
    package var distinctIsEstimate: Bool
    /// The least and greatest values as written: the first and last filled cells of an
    /// ascending sort on the column (`--sort`, `[`), whatever its kind: a sort by numbers
    /// or dates when nine in ten of the first thousand cells are ones (the rest after them,
    /// as text), else natural text order ignoring case; equal keys by the file's order.
    package var minimum: String?
    package var maximum: String?
    /// For number columns: the mean and the sample standard deviation (the mean is ±infinity
    /// when values past Double's range are all of one sign, nil with both; the deviation
    /// nil then).
    package var mean: Double?
    package var standardDeviation: Double?
    /// The shortest and longest filled value, in characters (Unicode scalars).
    package var shortest: Int?
    package var longest: Int?
    /// The most common values, most common first (the empty value among them).
    package var common: [FrequencyRow]
    /// True when the column had more distinct values than the budget: `common` counts are
    /// then lower bounds, and `distinct` an estimate.
    package var commonIsEstimate: Bool
    /// False in a partial summary published while the scan runs.
    package var isComplete: Bool
    /// The cells behind `minimum` and `maximum`, with their sort keys (to join partial
    /// summaries as the sort would).
    var least: SortEnd?
    var greatest: SortEnd?
    /// For number and date columns, once complete: the quantiles at `quantileShares`
    /// (median, p25, p75, p5, p95), exact or (`quantilesAreEstimates`) from a sketch;
    /// instants when `isTime`.
    package var quantiles: [Double]?
    package var quantilesAreEstimates = false
    package var isTime = false
    /// The column's picture (nil in a partial summary joined from parts).
    package var shape: ColumnShape?

    /// The percents the quantiles are at, in the order the summary writes them.
    static let quantilePercents = [50, 25, 75, 5, 95]
    /// Cells of the `shape` column.
    package static let shapeWidth = 16
}

/// Summarises the columns in one pass, in the background: the summary sheet's engine,
/// and `--summary`'s. While it runs, `partial` holds the summary so far.
///
/// Columns past their share of the budget get a second pass, the frequency table's: the
/// values its count kept are counted again exactly (`CommonValues`), so the most common
/// values and the distinct estimate are those `FrequencyCount` finds for the column.
package final class SummaryScan {
    package typealias Status = BackgroundScan<[ColumnSummary]>.Status

    private let scan: BackgroundScan<[ColumnSummary]>
    private let board: Board<[ColumnSummary]>
    private let names: [String]
    private let columns: [Int]
    private let commonValues: Int

    /// Starts summarising columns `columns` (from 0, in that order; nil: the `names.count`
    /// columns) of `input`'s records from `headerRows` on; only those of `records` when
    /// given (a filter's result). `names` names the columns (`ColumnNames`: a column past
    /// them is `column N`). `commonValues` most common values are kept per column. `kinds`
    /// says how a sort orders each of `columns` (nil: judged from the first thousand data
    /// records, as a sort judges them).
    package convenience init(input: ScanInput, names: [String], headerRows: Int, records: (any RecordSequence)? = nil,
                            columns: [Int]? = nil, kinds: [ColumnKind]? = nil,
                            budget: InsightBudget = .standard, commonValues: Int = 3,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(PassPlan(Pass(input: input, columns: 0..<names.count, filter: RecordFilter(first: headerRows))), names: names,
                  records: records, columns: columns, kinds: kinds, budget: budget, commonValues: commonValues, wake: wake)
    }

    /// Starts summarising as `init(input:…)` does the records of the input `readers` read,
    /// once it is indexed to its end (a file still being read: it waits for the index, then
    /// reads the whole file as `--summary` does).
    package convenience init(completing readers: RecordReaders, names: [String], headerRows: Int,
                            records: (any RecordSequence)? = nil, budget: InsightBudget = .standard, commonValues: Int = 3,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(PassPlan(whenIndexed: readers, columns: 0..<names.count, filter: RecordFilter(first: headerRows)), names: names,
                  records: records, columns: nil, kinds: nil, budget: budget, commonValues: commonValues, wake: wake)
    }

    /// Starts summarising the columns of the data rows of `rows` (a sheet's), as a file's
    /// records are summarised.
    package convenience init(rows: RowSnapshot, names: [String], headerRows: Int, records: (any RecordSequence)? = nil,
                            columns: [Int]? = nil, budget: InsightBudget = .standard, commonValues: Int = 3,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(PassPlan(Pass(rows: rows, columns: 0..<names.count, filter: RecordFilter(first: headerRows))), names: names,
                  records: records, columns: columns, kinds: nil, budget: budget, commonValues: commonValues, wake: wake)
    }

    private init(_ whole: PassPlan, names: [String], records: (any RecordSequence)?, columns: [Int]?, kinds: [ColumnKind]?,
                 budget: InsightBudget, commonValues: Int, wake: @escaping @Sendable () -> Void) {
        let board = Board<[ColumnSummary]>(wake: wake)
        self.board = board
        self.names = names
        let columns = columns ?? Array(0..<names.count)
        self.columns = columns
        self.commonValues = commonValues
        // Each column once, in file order: what the pass profiles.
        let profiled = Array(Set(columns)).sorted()
        let plan = whole.over(columns: (profiled.first ?? 0)..<((profiled.last ?? 0) + 1))
        scan = BackgroundScan(name: "csvfreeze summary", total: plan.byteCount, wake: wake) { control in
            guard let pass = plan.pass(control: control), let chosen = pass.restricted(to: records, control: control) else { return nil }
            let orders = kinds.map { given in profiled.map { given[columns.firstIndex(of: $0) ?? 0] } }
                ?? SummaryScan.judge(profiled, in: pass)
            guard let profiles = SummaryScan.profile(chosen, columns: profiled, orders: orders, budget: budget, control: control,
                                                     board: board, names: names) else { return nil }
            // Past the budget: the frequency table's second pass, for the columns whose
            // count does not already prove its most common values.
            var past: [Int: ValueCounter] = [:]
            var proven: [Int: [FrequencyRow]] = [:]
            for (index, profile) in profiles.enumerated() where !profile.counter.isExact {
                if let top = profile.counter.provenTop(commonValues, empty: profile.empty) {
                    proven[profiled[index]] = top
                } else {
                    past[profiled[index]] = profile.counter
                }
            }
            guard let counted = CommonValues.recount(chosen, counters: past, control: control) else { return nil }
            let recounted = counted.merging(proven) { counted, _ in counted }
            return columns.map { column in
                let index = profiled.firstIndex(of: column) ?? 0
                return profiles[index].summary(column: column, name: SummaryScan.name(of: column, in: names),
                                               commonValues: commonValues, isComplete: true, recounted: recounted[column])
            }
        }
    }

    package var status: Status { scan.status }

    /// The summary so far (nil before the first piece is read); the final one once finished.
    package var partial: [ColumnSummary]? {
        if case .finished(let rows) = scan.status { return rows }
        let parts = board.values
        guard var merged = parts.first else { return nil }
        for part in parts.dropFirst() { merged = zip(merged, part).map { $0.joined(with: $1) } }
        // The pass profiles each column once; the rows follow `columns`.
        let byColumn = Dictionary(merged.map { ($0.column, $0) }, uniquingKeysWith: { first, _ in first })
        return columns.compactMap { byColumn[$0] }
    }

    package func cancel() { scan.cancel() }
    package func wait() { scan.wait() }

    /// The name of column `column`: `names` has it, else `column N` (`ColumnNames`).
    static func name(of column: Int, in names: [String]) -> String {
        column < names.count ? names[column] : ColumnNames.numbered(column)
    }

    /// How a sort orders each of `columns`, judged as it judges them: from the first
    /// `ColumnKind.sample` filled cells of each in the first `ColumnKind.reach` data records
    /// of what `pass` reads (its filter aside, as the sort's).
    static func judge(_ columns: [Int], in pass: Pass) -> [ColumnKind] {
        switch pass.source {
        case .bytes(let input):
            return judge(columns, reader: input.reader, headerRows: pass.filter.first)
        case .rows(let rows):
            var tallies = [ColumnKind.Tally](repeating: ColumnKind.Tally(), count: columns.count)
            let first = min(pass.filter.first, rows.count)
            var start = first
            while tallies.contains(where: { !$0.isSettled }) && start < min(rows.count, first + ColumnKind.reach) {
                let end = min(rows.count, start + ColumnKind.sample)
                for row in rows.rows(in: start..<end) {
                    for (index, column) in columns.enumerated() where column < row.count {
                        row.field(column).withUnsafeBytes { tallies[index].add($0) }
                    }
                }
                start = end
            }
            return tallies.map(\.kind)
        }
    }

    /// `judge(_:in:)` over a file's records, read from `headerRows` on.
    static func judge(_ columns: [Int], reader: RecordReader, headerRows: Int) -> [ColumnKind] {
        var tallies = [ColumnKind.Tally](repeating: ColumnKind.Tally(), count: columns.count)
        var read = 0
        reader.forEachRecord(from: headerRows) { _, row in
            for (index, column) in columns.enumerated() where column < row.count {
                row.field(column).withUnsafeBytes { tallies[index].add($0) }
            }
            read += 1
            return read < ColumnKind.reach && tallies.contains { !$0.isSettled }
        }
        return tallies.map(\.kind)
    }

    /// Profiles columns `columns` (in file order, within the pass's columns) on the calling
    /// thread (and the other core); nil when cancelled.
    static func profile(_ pass: Pass, columns: [Int], orders: [ColumnKind], budget: InsightBudget, control: ScanControl,
                        board: Board<[ColumnSummary]>? = nil, names: [String] = []) -> [ColumnProfile]? {
        let count = max(1, columns.count)
        let perColumn = budget.shareBytes(columns: count, shares: pass.workers)
        let precision = HyperLogLog.precision(forSketches: count * max(1, pass.workers))
        let kept = budget.kept(forShareBytes: perColumn)
        var places = [Int](repeating: -1, count: pass.columns.count)
        for (index, column) in columns.enumerated() { places[column - pass.columns.lowerBound] = index }
        let slots = places
        let first = pass.columns.lowerBound
        // Values kept exactly for the quantiles, per column and share (at least a sketch's level).
        let quantileValues = max(QuantileSketch.capacity, budget.quantileBytes / 8 / count / max(1, pass.workers))
        let profiles = columns.indices.map { index in
            ColumnProfile(counter: ValueCounter(budget: perColumn, kept: kept, precision: precision, bounds: true), order: orders[index],
                          quantileBudget: quantileValues)
        }
        guard let sinks = pass.run(control: control, make: { _ in
            SummarySink(profiles: profiles, slots: slots, first: first)
        }, afterPiece: { share, sink in
            if let board, board.isDue(share: share) {
                board.publish(sink.profiles.enumerated().map {
                    $1.summary(column: columns[$0], name: SummaryScan.name(of: columns[$0], in: names), commonValues: 3,
                               isComplete: false)
                }, share: share)
            }
        }) else { return nil }
        var merged = sinks[0].profiles
        for sink in sinks.dropFirst() { for index in merged.indices { merged[index].merge(sink.profiles[index]) } }
        return merged
    }
}

/// Profiles the chosen columns.
struct SummarySink: CellSink, Sendable {
    var profiles: [ColumnProfile]
    /// For each column of the pass (from `first`), its profile, or -1.
    let slots: [Int]
    let first: Int

    init(profiles: [ColumnProfile], slots: [Int], first: Int) {
        self.profiles = profiles
        self.slots = slots
        self.first = first
    }

    // Each cell's hash is kept in its profile (`announce`), not in an array of the sink's:
    // every write to a sink's array checked that it was not shared, three more per cell.
    @inline(__always)
    mutating func willTake(_ bytes: UnsafeRawBufferPointer, column: Int) {
        let slot = slots[column - first]
        guard slot >= 0 else { return }
        profiles[slot].announce(valueHash(bytes))
    }

    @inline(__always)
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) {
        let slot = slots[column - first]
        guard slot >= 0 else { return }
        // The entry two columns on, whose slot `willTake` loaded: the next but one lookup.
        let ahead = column - first + 2
        if ahead < slots.count {
            let next = slots[ahead]
            if next >= 0 && profiles[next].announced != 0 { profiles[next].prefetchAnnouncedEntry() }
        }
        profiles[slot].addAnnounced(bytes, record: record)
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
        // `other` is a later part of the input: the sort's order and its ties decide.
        result.least = SortEnd.lesser(least, other.least)
        result.greatest = SortEnd.greater(greatest, other.greatest)
        result.minimum = result.least?.text
        result.maximum = result.greatest?.text
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
        result.shape = nil
        return result
    }
}

extension ColumnSummary {
    /// The summary's columns, as `--summary` writes them in csv and json; the summary sheet
    /// and a table add `shape` (`header(withShape:)`).
    package static let header = ["column", "type", "filled", "empty", "distinct", "min", "max", "mean", "stddev",
                                "shortest", "longest", "common", "median", "p25", "p75", "p5", "p95"]

    /// The header, with `shape` last when asked for.
    package static func header(withShape: Bool) -> [String] { withShape ? header + ["shape"] : header }

    /// A mean or a deviation as text: the shortest that reads back as the same Double
    /// (`CellValue.text(of:)`), `inf` or `-inf` past Double's range,
    /// nothing when there is none.
    static func text(of value: Double?) -> String {
        guard let value, !value.isNaN else { return "" }
        return value.isInfinite ? (value < 0 ? "-inf" : "inf") : CellValue.text(of: value)
    }

    /// This summary as text cells under `header(withShape:)`, the shape drawn with `glyphs`
    /// when given.
    package func cells(shape glyphs: PictureGlyphs?) -> [String] {
        guard let glyphs else { return cells }
        return cells + [shape?.text(width: Self.shapeWidth, glyphs: glyphs) ?? ""]
    }

    /// The quantiles as text (`≈` marks a sketch's), blank where there are none.
    var quantileCells: [String] {
        guard let quantiles else { return Array(repeating: "", count: Self.quantilePercents.count) }
        return quantiles.map { (quantilesAreEstimates ? "≈" : "") + ValueText.value($0, isTime: isTime) }
    }

    /// This summary as text cells under `header` (`≈` marks estimates; the empty value's
    /// count is exact).
    package var cells: [String] {
        let listed = common.map {
            "\($0.value.isEmpty ? "(empty)" : $0.shownText) (\(commonIsEstimate && !$0.value.isEmpty ? "≈" : "")\($0.count))"
        }
        return [
            name, kind.rawValue, "\(filled)", "\(empty)", (distinctIsEstimate ? "≈" : "") + "\(distinct)",
            minimum ?? "", maximum ?? "",
            ColumnSummary.text(of: mean), ColumnSummary.text(of: standardDeviation),
            shortest.map(String.init) ?? "", longest.map(String.init) ?? "",
            listed.joined(separator: ", "),
        ] + quantileCells
    }
}
