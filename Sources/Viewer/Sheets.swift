import CellStore
import FreezeLayout
import Insight
import Query
import Scan
import Table

/// A sheet pushed over the table (a frequency or summary sheet): a viewer over rows that
/// a pass over the input makes, and what Enter on one of them does.
public protocol SheetSource: AnyObject {
    /// The sheet as it is now, at `size`.
    func viewer(size: Size) -> Viewer
    /// True when the pass has news since the last `viewer(size:)`.
    var hasNews: Bool { get }
    /// What Enter on data record `record` of the sheet does.
    func choose(record: Int) -> SheetChoice
    /// Stops the pass (the sheet was closed).
    func cancel()
}

/// What choosing a row of a sheet does.
public enum SheetChoice {
    case nothing
    /// Close the sheet and apply this to the sheet below.
    case command(Command)
    /// Keep the sheet and push another over it.
    case push(SheetSource)
    /// Keep the sheet, saying why nothing was done.
    case stay(String)
}

extension Viewer {
    /// Options for a sheet: one header row, Enter chooses, Esc goes back.
    static func sheetOptions(like options: ViewerOptions, saving: SheetSaving? = nil) -> ViewerOptions {
        var sheet = ViewerOptions(headerRows: 1, frozenColumns: 1, showsRowNumbers: true, bounce: options.bounce,
                                  showsIndicators: options.showsIndicators)
        sheet.isSheet = true
        sheet.sheetSaving = saving
        return sheet
    }

    /// A sheet's viewer over `rows` (the first is the header), saying `note`. `wake` is the
    /// table's: passes started in the sheet (a sort, a save) wake the event loop through it.
    static func sheet(named name: String, rows: [Row], options: ViewerOptions, size: Size, note: String?, saving: SheetSaving? = nil,
                      wake: @escaping @Sendable () -> Void) -> Viewer {
        var bytes: [UInt8] = []
        for row in rows { OutputWriter.appendDelimited(row, delimiter: 0x2C, lineEnding: [0x0A], to: &bytes) }
        let store = CellStore(bytes: bytes, name: name, delimiter: 0x2C, onChange: wake)
        let viewer = Viewer(store: store, options: sheetOptions(like: options, saving: saving), screenSize: size)
        if let note { viewer.say(note) }
        return viewer
    }

    /// `#`: the frequency sheet of the cursor's column, over the rows in view.
    func openFrequency(of column: Int) {
        if isEmptyInput { return }
        guard let input = scanInput else {
            message = "nothing to count yet"
            return
        }
        requests.sheet = FrequencySheet(input: input, column: column, name: displayName(ofFileColumn: column),
                                        headerRows: options.headerRows, records: query.rows ?? table.rows, table: self)
    }

    /// `I`: the summary sheet, one row per column, over the rows in view.
    func openSummary() {
        if isEmptyInput { return }
        guard let input = scanInput else {
            message = "nothing to summarise yet"
            return
        }
        let names = (0..<table.fileColumnCount).map { displayName(ofFileColumn: $0) }
        requests.sheet = SummarySheet(input: input, names: names, headerRows: options.headerRows, records: query.rows ?? table.rows, table: self)
    }

    /// True, saying so as `--summary` does, when the whole input holds no record: no
    /// column to count (the one the screen shows is only a place for the cursor).
    private var isEmptyInput: Bool {
        guard store.isComplete && store.rowCount == 0 else { return false }
        message = "empty input, nothing to count"
        return true
    }

    /// The input for a sheet's pass: what is read now (a followed input never ends, so
    /// its pass covers the rows read so far).
    private var scanInput: ScanInput? {
        store.follows ? ScanInput(readers: store.recordReadersAsOfNow) : ScanInput(store: store)
    }

    /// A sheet this viewer asks to push (the event loop takes it).
    public func takeSheet() -> SheetSource? {
        defer { requests.sheet = nil }
        return requests.sheet
    }

    /// Keeps the rows whose cell in input column `column` is `value` exactly.
    func keep(value: [UInt8], column: Int) {
        query.filters.append(RecordFilter(pattern: Self.exactPattern(value[...]), column: column))
        applyQuery(saying: nil)
    }
}

/// How often a sheet is rebuilt while its pass runs: counts so far are merged and laid out
/// on the UI thread, so not on every piece the pass finishes.
private let rebuildInterval = Duration.milliseconds(250)

/// True when a running pass's sheet was rebuilt less than `rebuildInterval` ago.
private func tooSoon(_ last: ContinuousClock.Instant?, isRunning: Bool) -> Bool {
    guard isRunning, let last else { return false }
    return ContinuousClock.now - last < rebuildInterval
}

/// One row per distinct value of a column: its count, share and a bar, most frequent
/// first; it fills in while the count runs.
final class FrequencySheet: SheetSource {
    private let count: FrequencyCount
    private let column: Int
    private let name: String
    private let options: ViewerOptions
    private let wake: @Sendable () -> Void
    /// The input was still loading when the count started: it covers the rows read then.
    private let readSoFar: Bool
    /// The values shown, by data record (a sheet can be sorted: records say which); nil
    /// for a value shown by its start only (it cannot be a filter).
    private var values: [[UInt8]?] = []
    private var shown: (rows: Int, total: Int, done: Bool)?
    private var builtAt: ContinuousClock.Instant?
    /// Rows shown while the count runs (the whole table once it is done).
    static let partialRows = 2000

    init(input: ScanInput, column: Int, name: String, headerRows: Int, records: (any RecordSequence)?, table: Viewer) {
        self.column = column
        self.name = name
        options = table.options
        wake = table.store.wake
        readSoFar = !table.store.isComplete
        count = FrequencyCount(input: input, column: column, headerRows: headerRows, records: records, wake: table.store.wake)
    }

    deinit { count.cancel() }

    private var table: FrequencyTable? { count.partial }

    private var isRunning: Bool {
        if case .running = count.status { return true }
        return false
    }

    var hasNews: Bool {
        if tooSoon(builtAt, isRunning: isRunning) { return false }
        guard let table else { return shown == nil }
        return shown.map { $0.total != table.total || $0.done != table.isComplete || $0.rows != table.rows.count } ?? true
    }

    func viewer(size: Size) -> Viewer {
        builtAt = ContinuousClock.now
        let current = table
        let complete = current?.isComplete ?? false
        let listed = complete ? current?.rows ?? [] : Array((current?.rows ?? []).prefix(Self.partialRows))
        shown = (current?.rows.count ?? 0, current?.total ?? 0, complete)
        values = listed.map { $0.isShortened ? nil : $0.value }
        let most = max(1, listed.first?.count ?? 1)
        // The cells `--frequency` writes (a table's `(empty)` for the empty value), and a bar
        // for reading, which Ctrl-S leaves out.
        var rows = [Row(cells: ["value", "count", "percent", "share"])]
        var emptyValueRecords: Set<Int> = []
        for (index, entry) in listed.enumerated() {
            let bar = String(repeating: "█", count: max(entry.count > 0 ? 1 : 0, entry.count * 20 / most))
            if entry.value.isEmpty { emptyValueRecords.insert(index + 1) }
            // A value longer than a cell kept shows its start, ending in `…` and its size.
            let value = entry.value.isEmpty ? Array("(empty)".utf8) : entry.isShortened ? Array(entry.shownText.utf8) : entry.value
            var row = Row(bytes: value, ends: [value.count])
            for cell in ["\(entry.count)", entry.percentText, bar] {
                row.bytes.append(contentsOf: cell.utf8)
                row.ends.append(row.bytes.count)
            }
            rows.append(row)
        }

        var note: String?
        if case .running(let done, let total) = count.status {
            note = "counting… \(Viewer.percent(done, of: total))%  (Esc goes back)"
        } else if let current, current.areAllUnique {
            note = "all \(Viewer.grouped(current.total)) values are unique" + (readSoFar ? " in the rows read so far" : "")
                + (current.isExact ? "  (Enter filters the table)" : "")
        } else if let current, !current.isExact, current.rows.isEmpty {
            note = "≈\(Viewer.grouped(current.distinct)) distinct values in \(Viewer.counted(current.total, "row")), none more than "
                + "\(Viewer.counted(current.unlistedAtMost, "time")): none stands out"
        } else if let current, !current.isExact {
            note = "≈\(Viewer.grouped(current.distinct)) distinct values: the \(Viewer.grouped(current.rows.count)) most frequent listed"
        } else if let current {
            note = "\(Viewer.counted(current.rows.count, "distinct value")) in \(Viewer.counted(current.total, "row"))"
                + (readSoFar ? " read so far" : "") + "  (Enter filters the table)"
        }
        let shortened = listed.filter(\.isShortened).count
        if shortened > 0, case .finished = count.status, let current {
            // Said before the hint about Enter, which the status line drops first.
            note = "\(Viewer.counted(current.rows.count, "distinct value")), \(shortened) over 1 MiB shown by "
                + "\(shortened == 1 ? "its" : "their") start (…)" + (current.isExact ? "  (Enter filters the table)" : "")
        }
        return Viewer.sheet(named: "frequency of \(name)", rows: rows, options: options, size: size, note: note,
                            saving: SheetSaving(drawnColumns: [3], emptyValueRecords: emptyValueRecords), wake: wake)
    }

    func choose(record: Int) -> SheetChoice {
        let index = record - 1
        guard values.indices.contains(index) else { return .nothing }
        guard let value = values[index] else {
            return .stay("this value is longer than 1 MiB and shown by its start: it cannot be a filter")
        }
        return .command(.keepValue(column: column, value: value))
    }

    func cancel() { count.cancel() }
}

/// One row per column: its kind, filled and empty counts, distinct values, range, mean,
/// lengths and most common values; it fills in while the pass runs.
final class SummarySheet: SheetSource {
    private let scan: SummaryScan
    private let options: ViewerOptions
    private let input: ScanInput
    private let headerRows: Int
    private let records: (any RecordSequence)?
    private let names: [String]
    private weak var table: Viewer?
    private let wake: @Sendable () -> Void
    /// The input was still loading when the pass started: it covers the rows read then.
    private let readSoFar: Bool
    private var shownDone: Bool?
    private var shownAt: Int64 = -1
    private var builtAt: ContinuousClock.Instant?

    init(input: ScanInput, names: [String], headerRows: Int, records: (any RecordSequence)?, table: Viewer) {
        self.input = input
        self.names = names
        self.headerRows = headerRows
        self.records = records
        self.table = table
        options = table.options
        wake = table.store.wake
        readSoFar = !table.store.isComplete
        scan = SummaryScan(input: input, names: names, headerRows: headerRows, records: records, wake: table.store.wake)
    }

    deinit { scan.cancel() }

    private var progress: Int64 {
        if case .running(let done, _) = scan.status { return done }
        return -2
    }

    var hasNews: Bool {
        if tooSoon(builtAt, isRunning: progress >= 0) { return false }
        return shownDone == nil || progress != shownAt
    }

    func viewer(size: Size) -> Viewer {
        builtAt = ContinuousClock.now
        shownAt = progress
        let summaries = scan.partial ?? []
        shownDone = summaries.first?.isComplete
        let rows = [Row(cells: ColumnSummary.header)] + summaries.map { Row(cells: $0.cells) }
        var note = (readSoFar ? "over the rows read so far.  " : "") + "Enter: the column's frequency sheet"
        if case .running(let done, let total) = scan.status {
            note = "summarising… \(Viewer.percent(done, of: total))%  (Esc goes back)"
        }
        return Viewer.sheet(named: "summary", rows: rows, options: options, size: size, note: note, wake: wake)
    }

    func choose(record: Int) -> SheetChoice {
        let column = record - 1
        guard let table, column >= 0, column < names.count else { return .nothing }
        return .push(FrequencySheet(input: input, column: column, name: names[column], headerRows: headerRows,
                                    records: records, table: table))
    }

    func cancel() { scan.cancel() }
}
