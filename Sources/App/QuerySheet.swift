import CellStore
import SQL
import Table
import Viewer

/// The answer to an SQL query (`Q`), as a sheet over the table: its rows come from a
/// `QueryRows`, whose thread steps the statement, and fill in as they come. It can be
/// searched, filtered, sorted and saved like any sheet; Esc stops a statement that runs
/// (the rows so far stay), and goes back.
///
/// A query that SQLite refuses never opens a sheet worth seeing: the sheet closes and
/// the table says SQLite's message (`farewell`), where Q and Up bring the query back to
/// be mended. Enter on a row goes to that row of the table when the answer has `t`'s rowid
/// (`select rowid, … from t`); otherwise it says how to get one.
///
/// It lives beside the event loop, which makes it when a viewer asks for a query
/// (`Viewer.takeQuery()`): the viewer knows no SQL.
final class QuerySheet: SheetSource {
    let viewer: Viewer
    private let rows: QueryRows
    private let headerRows: Int
    private var note: String?
    /// What the table says when the sheet closes itself (a query SQLite refused).
    private(set) var farewell: String?

    init(rows: QueryRows, headerRows: Int, table: Viewer) {
        self.rows = rows
        self.headerRows = headerRows
        viewer = Viewer(source: rows, options: ViewerOptions.sheet(like: table.options), screenSize: table.screenSize)
        update()
        // A quick statement's columns (and end) may be here already: the sheet was laid
        // out before them, and no news may follow to lay it out again.
        viewer.handle(.refresh)
    }

    /// The sheet answering `text` over `file`, as table `t` and by its stem. The query
    /// reads the whole input through the store's index (the file is not opened again; a
    /// stream was spooled), following it while it loads; a followed file's query covers
    /// the rows read so far (a followed file never ends).
    convenience init(query text: String, over file: CellStore, table: Viewer) {
        let headerRows = table.options.headerRows
        let header = headerRows > 0 ? file.row(0)?.strings ?? [] : []
        let names = SQLNames.tableNames(forPaths: [file.name == "stdin" ? nil : file.name]).first ?? ["t"]
        let rows = QueryRows(query: text, readers: file.follows ? file.recordReadersAsOfNow : file.recordReaders,
                             header: header, headerRows: headerRows, names: names, wake: file.wake)
        self.init(rows: rows, headerRows: headerRows, table: table)
    }

    func update() {
        rows.update()
        let previous = note
        let count = Viewer.counted(rows.answerRowCount, "row")
        switch rows.phase {
        case .waiting:
            note = "SQL: waiting for the input's first rows…  (Esc goes back)"
        case .running:
            let read = rows.inputRead
            let part = read.total.flatMap { $0 > 0 ? "\(min(99, Viewer.percent(read.bytes, of: $0)))% of the input read" : nil }
                ?? "\(Viewer.bytes(Double(read.bytes))) read"
            note = "SQL running… \(part), \(count)" + (rows.answerRowCount > 0 ? "  (Esc stops)" : "  (Esc goes back)")
        case .done where rows.columns?.isEmpty == true:
            // A statement with no answer (`begin` alone): nothing to show.
            farewell = "SQL: done; the statement answers with no columns"
            viewer.finish()
        case .done where rows.answerRowCount == 0:
            note = "no rows: the answer is empty"
        case .done:
            note = "\(count) in \(Self.seconds(rows.seconds))"
                + (rows.rowidColumn != nil ? "  (Enter: that row in the table)" : "")
        case .cut:
            note = "the first \(count): an answer on screen keeps no more (--sql writes it all)"
        case .failed(let error) where rows.columns == nil:
            // A refusal says "SQL may only read: …" itself.
            if case .refused = error { farewell = error.description } else { farewell = "SQL: " + error.description }
            viewer.finish()
        case .failed(let error):
            note = "SQL stopped: \(error.description)" + (rows.answerRowCount > 0 ? "  (the \(count) before stay)" : "")
        case .cancelled:
            note = "stopped: the \(count) so far stay  (Esc goes back)"
        }
        let ended = rows.phase.isFinal && (previous == nil || previous?.hasPrefix("SQL") == true)
        if let cut = rows.cutColumns, rows.phase != .waiting, let said = note {
            note = said + "  (SQL sees the first \(cut.seen.grouped) columns of \(cut.of.grouped): SQLite's limit)"
        }
        viewer.sayNote(note, replacing: previous, always: ended && note != previous)
    }

    func choose(record: Int) -> SheetChoice {
        guard let column = rows.rowidColumn else {
            return .stay("Enter goes to a row of the table when the answer has its rowid: select rowid, … from t")
        }
        guard let row = rows.row(record), let rowid = Int(row.string(column)) else {
            return .stay("this row's rowid is empty: it comes from no row of the table")
        }
        return .command(.goToRecord(rowid - 1 + headerRows))
    }

    func cancel() { rows.cancel() }

    /// `41 ms`, `2.5 s`, `12 s`, `2 min`.
    static func seconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        if value < 1 { return "\(Int((value * 1000).rounded())) ms" }
        if value < 10 { return "\((value * 10).rounded() / 10) s" }
        return Viewer.duration(value)
    }
}
