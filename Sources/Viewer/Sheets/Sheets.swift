import CellStore
import Export
import FreezeLayout
import Insight
import Query
import Scan
import Table

/// A sheet pushed over the table (a frequency or summary sheet): a viewer over rows that
/// a pass publishes as it runs, and what Enter on one of them does.
///
/// The viewer is made once, over the sheet's `MemoryRows`; news from the pass goes into
/// those rows, and the viewer takes it like a file's new rows, so the cursor, the sheet's
/// own sort and filters and the widths stay while it fills.
public protocol SheetSource: AnyObject {
    /// The sheet's viewer (always the same one).
    var viewer: Viewer { get }
    /// Publishes the pass's news into the sheet's rows (on news, before the viewer
    /// refreshes).
    func update()
    /// True while a pass fills the sheet and taking its news is work (counts merged and
    /// laid out): the event loop then calls `update()` at most four times a second, on
    /// its clock. False (the default) takes news at every look.
    var isFilling: Bool { get }
    /// What Enter on data record `record` of the sheet does.
    func choose(record: Int) -> SheetChoice
    /// Stops the pass (the sheet was closed).
    func cancel()
    /// What the sheet below says when this one closes by itself (an SQL query that
    /// SQLite refused), if anything.
    var farewell: String? { get }
    /// The same column's sheet in its other form, for `%` (bins, or exact values); nil
    /// when there is none.
    func switched() -> SheetSource?
}

extension SheetSource {
    public var farewell: String? { nil }
    public var isFilling: Bool { false }
    public func switched() -> SheetSource? { nil }
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

/// What a sheet's pass reads: a file's bytes, a file still being read, or the rows of the
/// sheet below (a sheet of a sheet).
enum SheetInput {
    case bytes(ScanInput)
    /// A file still being read that will end (a file, not a pipe or a followed file): the
    /// pass waits for its index, then reads it whole as the command line does. Counting the
    /// part read so far and parsing the rest cost three times the count once indexed.
    case loading(RecordReaders)
    case rows(RowSnapshot)

    /// The input for a sheet's pass over `source`: a file, whole (waiting for its index
    /// when it is still being read); what is read now of a followed input (it never ends)
    /// or a pipe; the rows of a sheet, as they are now. Nil when there is nothing to read
    /// yet.
    init?(_ source: any RowSource) {
        guard let file = source.file else {
            guard let rows = source.snapshot() else { return nil }
            self = .rows(rows)
            return
        }
        let progress = file.progress
        if !file.follows && !progress.isComplete && (progress.totalBytes != nil || progress.packedSize != nil) {
            guard file.dialect != nil else { return nil }
            self = .loading(file.recordReaders)
            return
        }
        guard let input = file.follows ? ScanInput(readers: file.recordReadersAsOfNow) : ScanInput(store: file) else { return nil }
        self = .bytes(input)
    }

    /// The readers of a file still being read, whose index the pass waits for.
    var awaitedIndex: RecordReaders? {
        if case .loading(let readers) = self { return readers }
        return nil
    }

    func frequency(column: Int, headerRows: Int, records: (any RecordSequence)?, wake: @escaping @Sendable () -> Void) -> FrequencyCount {
        switch self {
        case .bytes(let input): return FrequencyCount(input: input, column: column, headerRows: headerRows, records: records, wake: wake)
        case .loading(let readers):
            return FrequencyCount(completing: readers, column: column, headerRows: headerRows, records: records, wake: wake)
        case .rows(let rows): return FrequencyCount(rows: rows, column: column, headerRows: headerRows, records: records, wake: wake)
        }
    }

    func summary(names: [String], headerRows: Int, records: (any RecordSequence)?, wake: @escaping @Sendable () -> Void) -> SummaryScan {
        switch self {
        case .bytes(let input): return SummaryScan(input: input, names: names, headerRows: headerRows, records: records, wake: wake)
        case .loading(let readers):
            return SummaryScan(completing: readers, names: names, headerRows: headerRows, records: records, wake: wake)
        case .rows(let rows): return SummaryScan(rows: rows, names: names, headerRows: headerRows, records: records, wake: wake)
        }
    }

    /// What the status line says while the pass waits for the file's index, nil once it
    /// does not (`doing`: what the pass will do).
    func waitingNote(_ doing: String) -> String? {
        guard let readers = awaitedIndex else { return nil }
        let progress = readers.progress
        guard !progress.isComplete && progress.failure == nil else { return nil }
        let done = progress.packedSize != nil ? progress.packedBytesRead : progress.bytesRead
        let total = progress.packedSize ?? progress.totalBytes ?? 0
        return "reading the file to the end first (\(Viewer.percent(done, of: total))%), then \(doing)…  (Esc goes back)"
    }
}

extension Viewer {
    /// `#`: the frequency sheet of the cursor's column, over the rows in view.
    func openFrequency(of column: Int) {
        if isEmptyInput { return }
        guard let input = SheetInput(source) else {
            message = "nothing to count yet"
            return
        }
        requests.sheet = FrequencySheet(input: input, column: column, name: displayName(ofFileColumn: column),
                                        headerRows: options.headerRows, records: recordsForPasses, table: self)
    }

    /// `I`: the summary sheet, one row per column, over the rows in view.
    func openSummary() {
        if isEmptyInput { return }
        guard let input = SheetInput(source) else {
            message = "nothing to summarise yet"
            return
        }
        let names = (0..<table.fileColumnCount).map { displayName(ofFileColumn: $0) }
        requests.sheet = SummarySheet(input: input, names: names, headerRows: options.headerRows, records: recordsForPasses, table: self)
    }

    /// The rows in view (those a filter or sort still running makes), for a pass over the
    /// file's bytes as they are now: offsets noted before the last edits are left out.
    var recordsForPasses: (any RecordSequence)? {
        guard let rows = query.rows else { return table.rowsForPasses }
        guard let file, rows.patch.id != file.patch.id else { return rows }
        return RecordsWithoutOffsets(rows)
    }

    /// True, saying so as `--summary` does, when the whole input holds no record: no
    /// column to count (the one the screen shows is only a place for the cursor).
    private var isEmptyInput: Bool {
        guard source.isComplete && source.rowCount == 0 else { return false }
        message = "empty input, nothing to count"
        return true
    }

    /// A sheet this viewer asks to push (the event loop takes it).
    public func takeSheet() -> SheetSource? {
        defer { requests.sheet = nil }
        return requests.sheet
    }

    /// Keeps the rows whose cell in input column `column` is `value` exactly.
    func keep(value: [UInt8], column: Int) {
        query.add(filter: RecordFilter(pattern: ViewQuery.exactPattern(value[...]), column: column))
        applyQuery(saying: nil)
    }

    /// Says a sheet's note: at once when it is new news (the pass ended), else only over
    /// nothing or over the note before it, so a message of the user's own stays.
    package func sayNote(_ note: String?, replacing previous: String?, always: Bool) {
        guard let note, note != previous || always else { return }
        if always || message == nil || message == previous { message = note }
    }
}

extension Row {
    /// A row of the cells `cells`, given as bytes.
    init(byteCells cells: [[UInt8]]) {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for cell in cells {
            bytes.append(contentsOf: cell)
            ends.append(bytes.count)
        }
        self.init(bytes: bytes, ends: ends)
    }
}

/// One row per distinct value of a column: its count, share and a bar, most frequent
/// first; it fills in while the count runs.
final class FrequencySheet: SheetSource {
    let viewer: Viewer
    /// The sheet's rows: made from the count's table when shown, never all at once.
    private let rows: MemoryRows
    private let count: FrequencyCount
    private let column: Int
    /// What the count reads: where Ctrl-S reads a value shown by its start again.
    private let input: SheetInput
    /// The input was still loading when the count started: it covers the rows read then.
    private let readSoFar: Bool
    /// The table published, the rows of it listed (a sheet can be sorted: records say
    /// which), and how many of those are values shown by their start only.
    private var published: (table: FrequencyTable, listed: Int, shortened: Int)?
    private var note: String?
    /// Rows shown while the count runs (the whole table once it is done).
    static let partialRows = 2000
    /// The sheet `%` puts in this one's place (a number or date column's bins).
    var switchTo: (() -> SheetSource?)?
    static let columns = ["value", "count", "percent", "share"]

    init(input: SheetInput, column: Int, name: String, headerRows: Int, records: (any RecordSequence)?, table: Viewer) {
        self.column = column
        self.input = input
        // A file still being read is counted whole, once read.
        readSoFar = !table.source.isComplete && input.awaitedIndex == nil
        rows = MemoryRows(name: "frequency of \(name)", columns: Self.columns, wake: table.source.wake)
        // Ctrl-S writes what `--frequency --output csv` writes: no bar, long values whole.
        var options = ViewerOptions.sheet(like: table.options, saving: SheetSaving(drawnColumns: [3]))
        // The empty value is an empty cell (search, filters, sort and Ctrl-S see it so),
        // labelled on screen in the style of text the data does not hold.
        options.emptyCellLabels = [0: Self.emptyLabel]
        viewer = Viewer(source: rows, options: options, screenSize: table.screenSize)
        count = input.frequency(column: column, headerRows: headerRows, records: records, wake: table.source.wake)
        update()
    }

    deinit { count.cancel() }

    var isFilling: Bool {
        if case .running = count.status { return true }
        return false
    }

    func update() {
        let status = count.status
        if let current = count.partial {
            let listed = current.isComplete ? current.rows.count : min(current.rows.count, Self.partialRows)
            let before = published
            if before == nil || before?.table.total != current.total || before?.table.isComplete != current.isComplete
                || before?.table.rows.count != current.rows.count {
                let entries = current.rows
                published = (current, listed, current.isComplete ? entries.prefix(listed).filter(\.isShortened).count : 0)
                let most = max(1, entries.first?.count ?? 1)
                rows.replace(count: listed, columns: Self.columns.count) { FrequencySheet.row(entries[$0], most: most) }
                viewer.setSheetSaving(saving(listing: entries.prefix(listed)))
            }
            if current.isComplete { rows.finish() }
        }
        let previous = note
        var ended = false
        if case .running(let done, let total) = status {
            note = input.waitingNote("counting") ?? "counting… \(Viewer.percent(done, of: total))%  (Esc goes back)"
        } else if let current = published?.table {
            ended = note == nil || note?.hasPrefix("counting") == true
            if current.areAllUnique {
                note = "all \(Viewer.grouped(current.total)) values are unique" + (readSoFar ? " in the rows read so far" : "")
                    + (current.isExact ? "  (Enter filters the table)" : "")
            } else if !current.isExact, current.rows.isEmpty {
                note = "≈\(Viewer.grouped(current.distinct)) distinct values in \(Viewer.counted(current.total, "row")), none more than "
                    + "\(Viewer.counted(current.unlistedAtMost, "time")): none stands out"
            } else if !current.isExact {
                note = "≈\(Viewer.grouped(current.distinct)) distinct values: the \(Viewer.grouped(current.rows.count)) most frequent listed"
            } else {
                note = "\(Viewer.counted(current.rows.count, "distinct value")) in \(Viewer.counted(current.total, "row"))"
                    + (readSoFar ? " read so far" : "") + "  (Enter filters the table)"
            }
            if let shortened = published?.shortened, shortened > 0 {
                // Said before the hint about Enter, which the status line drops first.
                note = "\(Viewer.counted(current.rows.count, "distinct value")), \(shortened) over 1 MiB shown by "
                    + "\(shortened == 1 ? "its" : "their") start (…)" + (current.isExact ? "  (Enter filters the table)" : "")
            }
        }
        viewer.sayNote(note, replacing: previous, always: ended)
    }

    /// What the screen shows for the empty value (an empty cell: the label is drawn, never
    /// read, written or searched).
    static let emptyLabel = "(empty)"

    /// The sheet's row for one value: the cells `--frequency --output csv` writes (the empty
    /// value empty), and a bar as long as its count next to the most frequent's, for
    /// reading, which Ctrl-S leaves out.
    static func row(_ entry: FrequencyRow, most: Int) -> Row {
        let bar = String(repeating: "█", count: max(entry.count > 0 ? 1 : 0, entry.count * 20 / most))
        // A value longer than a cell kept shows its start, ending in `…` and its size.
        let value = entry.isShortened ? Array(entry.shownText.utf8) : entry.value
        return Row(byteCells: [value, Array("\(entry.count)".utf8), Array(entry.percentText.utf8), Array(bar.utf8)])
    }

    /// What Ctrl-S leaves out or writes otherwise: the bar, and the values of `listed` shown
    /// by their start, written whole from where the count first met them.
    private func saving(listing listed: ArraySlice<FrequencyRow>) -> SheetSaving {
        var records: [Int: Int] = [:]
        for (index, entry) in zip(listed.indices, listed) where entry.isShortened {
            if let first = entry.firstRecord { records[index - listed.startIndex + 1] = first }
        }
        guard !records.isEmpty else { return SheetSaving(drawnColumns: [3]) }
        let source: WholeCells.Source
        switch input {
        case .bytes(let input): source = .input(input.reader)
        case .loading(let readers):
            // Read by then: the count covers the whole file.
            guard let reader = readers.current() else { return SheetSaving(drawnColumns: [3]) }
            source = .input(reader)
        case .rows(let rows): source = .rows(rows)
        }
        return SheetSaving(drawnColumns: [3], wholeValues: WholeCells(source: source, column: 0, sourceColumn: column, records: records))
    }

    func switched() -> SheetSource? { switchTo?() }

    func choose(record: Int) -> SheetChoice {
        let index = record - 1
        guard let published, index >= 0, index < published.listed else { return .nothing }
        let entry = published.table.rows[index]
        guard !entry.isShortened else {
            return .stay("this value is longer than 1 MiB and shown by its start: it cannot be a filter")
        }
        return .command(.keepValue(column: column, value: entry.value))
    }

    func cancel() { count.cancel() }
}

/// What a summary sheet reads of its pass: a `SummaryScan` (a test stands in for one to
/// finish it at a chosen moment).
protocol SummaryPass: AnyObject {
    var status: SummaryScan.Status { get }
    var partial: [ColumnSummary]? { get }
    func cancel()
}

extension SummaryScan: SummaryPass {}

/// One row per column: its kind, filled and empty counts, distinct values, range, mean,
/// lengths and most common values; it fills in while the pass runs.
final class SummarySheet: SheetSource {
    let viewer: Viewer
    private let rows: MemoryRows
    private let scan: any SummaryPass
    private let input: SheetInput
    private let headerRows: Int
    private let records: (any RecordSequence)?
    private let names: [String]
    private weak var table: Viewer?
    /// The input was still loading when the pass started: it covers the rows read then.
    private let readSoFar: Bool
    private var shownDone: Bool?
    private var shownAt: Int64 = -1
    private var note: String?
    /// How the `shape` column is drawn (ASCII where the terminal draws no blocks).
    private let glyphs: PictureGlyphs

    convenience init(input: SheetInput, names: [String], headerRows: Int, records: (any RecordSequence)?, table: Viewer) {
        self.init(input: input, names: names, headerRows: headerRows, records: records, table: table,
                  scan: input.summary(names: names, headerRows: headerRows, records: records, wake: table.source.wake))
    }

    init(input: SheetInput, names: [String], headerRows: Int, records: (any RecordSequence)?, table: Viewer, scan: any SummaryPass) {
        self.input = input
        self.names = names
        self.headerRows = headerRows
        self.records = records
        self.table = table
        readSoFar = !table.source.isComplete && input.awaitedIndex == nil
        rows = MemoryRows(name: "summary", columns: ColumnSummary.header(withShape: true), wake: table.source.wake)
        glyphs = table.options.drawsBlocks ? .blocks : .ascii
        // Ctrl-S writes what `--summary --output csv` writes: the shape is drawn, not data.
        viewer = Viewer(source: rows, options: ViewerOptions.sheet(like: table.options,
                                                                   saving: SheetSaving(drawnColumns: [ColumnSummary.header.count])),
                        screenSize: table.screenSize)
        self.scan = scan
        update()
    }

    deinit { scan.cancel() }

    var isFilling: Bool {
        if case .running = scan.status { return true }
        return false
    }

    func update() {
        // The pass's state read once: the rows and the note say the same (the pass may
        // end while they are made; its end is the next news).
        let status = scan.status
        var progress: Int64 = -2
        if case .running(let done, _) = status { progress = done }
        if shownDone == nil || progress != shownAt {
            shownAt = progress
            let summaries: [ColumnSummary]
            if case .finished(let final) = status { summaries = final } else { summaries = scan.partial ?? [] }
            shownDone = summaries.first?.isComplete
            let glyphs = self.glyphs
            rows.replace(count: summaries.count, columns: ColumnSummary.header(withShape: true).count) {
                Row(cells: summaries[$0].cells(shape: glyphs))
            }
            if progress < 0 { rows.finish() }
        }
        let previous = note
        if case .running(let done, let total) = status {
            note = input.waitingNote("summarising") ?? "summarising… \(Viewer.percent(done, of: total))%  (Esc goes back)"
        } else {
            note = (readSoFar ? "over the rows read so far.  " : "") + "Enter: the column's frequency sheet"
        }
        let ended = progress < 0 && (previous == nil || previous?.hasPrefix("summarising") == true)
        viewer.sayNote(note, replacing: previous, always: ended)
    }

    func choose(record: Int) -> SheetChoice {
        let column = record - 1
        guard let table, column >= 0, column < names.count else { return .nothing }
        return .push(FrequencySheet(input: input, column: column, name: names[column], headerRows: headerRows,
                                    records: records, table: table))
    }

    func cancel() { scan.cancel() }
}

extension ViewerOptions {
    /// Options for a sheet over a table with `options`: one header row, Enter chooses,
    /// Esc goes back.
    package static func sheet(like options: ViewerOptions, saving: SheetSaving? = nil) -> ViewerOptions {
        var sheet = ViewerOptions(headerRows: 1, frozenColumns: 1, showsRowNumbers: true, bounce: options.bounce,
                                  showsIndicators: options.showsIndicators)
        sheet.isSheet = true
        sheet.sheetSaving = saving
        sheet.drawsBlocks = options.drawsBlocks
        return sheet
    }
}
