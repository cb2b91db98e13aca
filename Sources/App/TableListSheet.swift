import CellStore
import Table
import Viewer

/// The sheet `T` opens: one line per open table (its file's name, size, rows, columns,
/// dialect, compression and path), filled in as the census counts them; Enter shows the
/// table.
///
/// Its lines come from cheap facts (the name, the size and compression known at start)
/// and from the counts: a table is never opened to be listed.
final class TableListSheet: SheetSource {
    let viewer: Viewer
    private let shelf: TableShelf
    private let rows: MemoryRows
    private let headerRows: Int
    /// The facts the lines show now (they are made again when these change).
    private var shown: [TableFacts] = []
    static let columns = ["table", "size", "rows", "columns", "dialect", "compression", "path"]

    /// The list over `shelf`, the cursor on table `current`; the sheet looks like
    /// `table`'s (its size, bounce, indicators); rows are counted after `headerRows`.
    init(shelf: TableShelf, current: Int, like table: Viewer, headerRows: Int) {
        self.shelf = shelf
        self.headerRows = headerRows
        rows = MemoryRows(name: "\(shelf.count) tables", columns: Self.columns, wake: table.source.wake)
        var options = ViewerOptions(headerRows: 1, frozenColumns: 1, showsRowNumbers: true, bounce: table.options.bounce,
                                    showsIndicators: table.options.showsIndicators)
        options.isSheet = true
        viewer = Viewer(source: rows, options: options, screenSize: table.screenSize)
        update()
        // The rows just made are taken in first: a move is bounded by the rows the viewer knows.
        viewer.handle(.refresh)
        viewer.moveCursor(toRow: current, column: 0)
        viewer.say("Enter shows a table; { and } go to the previous and next  (Esc goes back)")
    }

    func update() {
        let facts = (0..<shelf.count).map(shelf.facts)
        guard facts != shown || rows.rowCount == 1 else { return }
        shown = facts
        let inputs = shelf.inputs, headerRows = self.headerRows
        rows.replace(count: facts.count, columns: Self.columns.count) { index in
            Self.line(inputs[index], facts[index], headerRows: headerRows)
        }
        if facts.allSatisfy(\.isFinal) { rows.finish() }
    }

    /// One table's line.
    static func line(_ input: TableInput, _ facts: TableFacts, headerRows: Int) -> Row {
        // The size when counted (a file that cannot be read now has none to show).
        let size = facts.identity.map { bytes($0.size) } ?? (facts.failure == nil ? input.facts.size.map(bytes) : nil) ?? ""
        // A file that cannot be read has no count: not 0, which reads as an empty table.
        let unreadable = facts.failure != nil && facts.records ?? 0 == 0
        var count = ""
        if unreadable {
            count = ""
        } else if let records = facts.records {
            count = grouped(max(0, records - headerRows)) + (facts.isFinal ? "" : "+")
        } else {
            count = "…"
        }
        let columns = unreadable ? "" : facts.columns.map(grouped) ?? ""
        let dialect = facts.failure.map { "cannot be read: " + $0 } ?? facts.dialect ?? ""
        // The file's name first (a long path would lose it to the column's width), the
        // path as given last.
        let name = (input.path.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "stdin")
            + (input.table.map { ":" + $0 } ?? "")
        return Row(cells: [name, size, count, columns, dialect, input.facts.compression ?? "", input.path ?? "-"])
    }

    func choose(record: Int) -> SheetChoice {
        let index = record - 1
        guard index >= 0, index < shelf.count else { return .nothing }
        return .command(.showTable(index))
    }

    func cancel() {}

    /// `1536` as `1.5 KB`.
    static func bytes(_ value: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var amount = Double(value), unit = 0
        while amount >= 1000 && unit < units.count - 1 { amount /= 1000; unit += 1 }
        let digits = amount >= 100 || unit == 0 ? String(Int(amount.rounded())) : String((amount * 10).rounded() / 10)
        return digits + " " + units[unit]
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 && digit != "-" { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
