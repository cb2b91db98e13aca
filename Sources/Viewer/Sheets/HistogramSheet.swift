import CellStore
import Insight
import Query
import Scan
import Table

extension SheetInput {
    func histogram(column: Int, isTime: Bool, headerRows: Int, records: (any RecordSequence)?,
                   wake: @escaping @Sendable () -> Void) -> HistogramCount {
        switch self {
        case .bytes(let input):
            return HistogramCount(input: input, column: column, isTime: isTime, headerRows: headerRows, records: records, wake: wake)
        case .loading(let readers):
            return HistogramCount(completing: readers, column: column, isTime: isTime, headerRows: headerRows, records: records,
                                  wake: wake)
        case .rows(let rows):
            return HistogramCount(rows: rows, column: column, isTime: isTime, headerRows: headerRows, records: records, wake: wake)
        }
    }
}

/// A number or date column's values in bins of one round width (`[10, 20)`), each with its
/// exact count, share and a bar; `%` switches to the column's exact values and back, Enter
/// on a bin keeps the table's rows whose value is in it (a typed filter).
final class HistogramSheet: SheetSource {
    let viewer: Viewer
    private let rows: MemoryRows
    private let count: HistogramCount
    private let column: Int
    private let name: String
    private let isTime: Bool
    private let input: SheetInput
    private let headerRows: Int
    private let records: (any RecordSequence)?
    private weak var table: Viewer?
    /// The input was still loading when the count started: it covers the rows read then.
    private let readSoFar: Bool
    private let wanted: Int
    private var published: HistogramTable?
    private var publishedAt: ContinuousClock.Instant?
    private var note: String?

    static let columns = ["range", "count", "percent", "share"]

    init(input: SheetInput, column: Int, name: String, isTime: Bool, headerRows: Int, records: (any RecordSequence)?,
         table: Viewer, bins: Int? = nil) {
        self.input = input
        self.column = column
        self.name = name
        self.isTime = isTime
        self.headerRows = headerRows
        self.records = records
        self.table = table
        readSoFar = !table.source.isComplete && input.awaitedIndex == nil
        // As many bins as fit on a screen, between 4 and 50.
        wanted = bins ?? max(4, min(50, table.screenSize.height - 4))
        rows = MemoryRows(name: "bins of \(name)", columns: Self.columns, wake: table.source.wake)
        viewer = Viewer(source: rows, options: ViewerOptions.sheet(like: table.options, saving: SheetSaving(drawnColumns: [3])),
                        screenSize: table.screenSize)
        viewer.allowSheetSwitch()
        count = input.histogram(column: column, isTime: isTime, headerRows: headerRows, records: records, wake: table.source.wake)
        update()
    }

    deinit { count.cancel() }

    private var isRunning: Bool {
        if case .running = count.status { return true }
        return false
    }

    func update() {
        if let last = publishedAt, isRunning, ContinuousClock.now - last < .milliseconds(250) { return }
        publishedAt = ContinuousClock.now
        let status = count.status
        if let counts = count.partial {
            let table = counts.table(bins: wanted)
            let before = published
            if before == nil || before?.counts.total != counts.total || before?.isComplete != counts.isComplete {
                published = table
                let entries = table.rows
                let most = max(1, entries.map(\.count).max() ?? 1)
                rows.replace(count: entries.count, columns: Self.columns.count) { HistogramSheet.row(entries[$0], most: most) }
                if counts.isComplete { rows.finish() }
            }
        }
        let previous = note
        var ended = false
        if case .running(let done, let total) = status {
            note = input.waitingNote("binning") ?? "counting… \(Viewer.percent(done, of: total))%  (Esc goes back)"
        } else if let table = published {
            ended = note == nil || note?.hasPrefix("counting") == true
            note = Self.note(table, readSoFar: readSoFar)
        }
        viewer.sayNote(note, replacing: previous, always: ended)
    }

    /// What the status line says once the count is done: what was binned, in which width,
    /// and what was counted apart.
    static func note(_ table: HistogramTable, readSoFar: Bool) -> String {
        let counts = table.counts
        let noun = table.isTime ? "date" : "number"
        var asides: [String] = []
        if counts.others > 0 { asides.append("\(Viewer.grouped(counts.others)) not \(noun)s") }
        if counts.infinities > 0 { asides.append("\(Viewer.grouped(counts.infinities)) past a double's range") }
        if counts.empty > 0 { asides.append("\(Viewer.grouped(counts.empty)) empty") }
        let aside = asides.isEmpty ? "" : "; " + asides.joined(separator: ", ")
        let bins = counts.bins
        guard bins.total > 0 else { return "no \(noun) to bin" + aside + "  (% values)" }
        let place = readSoFar ? " read so far" : ""
        if bins.minimum == bins.maximum {
            return "one value, \(ValueText.value(bins.minimum, isTime: table.isTime)), \(Viewer.times(bins.total))"
                + place + " (a flat line)" + aside + "  (% values)"
        }
        let width = table.width.map { " of " + $0.name(isTime: table.isTime) } ?? ""
        return "\(Viewer.counted(bins.total, noun))\(place) in \(Viewer.counted(table.rows.count, "bin"))\(width)" + aside
            + "  (% values, Enter filters)"
    }

    /// The sheet's row for one bin: its range, count and share, and a bar against the
    /// fullest bin, for reading, which Ctrl-S leaves out.
    static func row(_ bin: HistogramRow, most: Int) -> Row {
        let bar = String(repeating: "█", count: max(bin.count > 0 ? 1 : 0, bin.count * 20 / most))
        return Row(cells: [bin.range, "\(bin.count)", FrequencyRow.text(ofPercent: bin.percent), bar])
    }

    func choose(record: Int) -> SheetChoice {
        let index = record - 1
        guard let published, index >= 0, index < published.rows.count else { return .nothing }
        let bin = published.rows[index]
        return .command(.keepRange(column: column, range: ValueRange(low: bin.lowValue, high: bin.highValue, isTime: isTime,
                                                                    label: bin.range)))
    }

    /// `%`: the column's exact values (its frequency sheet), from which `%` comes back here.
    func switched() -> SheetSource? {
        guard let table else { return nil }
        return HistogramSheet.values(input: input, column: column, name: name, isTime: isTime, headerRows: headerRows,
                                     records: records, table: table)
    }

    /// The frequency sheet of a number or date column, which `%` switches to bins.
    static func values(input: SheetInput, column: Int, name: String, isTime: Bool, headerRows: Int,
                       records: (any RecordSequence)?, table: Viewer) -> FrequencySheet {
        let sheet = FrequencySheet(input: input, column: column, name: name, headerRows: headerRows, records: records, table: table)
        sheet.viewer.allowSheetSwitch()
        sheet.switchTo = { [weak table] in
            guard let table else { return nil }
            return HistogramSheet(input: input, column: column, name: name, isTime: isTime, headerRows: headerRows,
                                  records: records, table: table)
        }
        return sheet
    }

    func cancel() { count.cancel() }
}
