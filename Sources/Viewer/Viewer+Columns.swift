import CellStore
import Scan
import Table

extension Viewer {
    // MARK: Choosing columns

    /// `-`: hides the cursor's column (one always stays); the cursor goes to the next.
    func hideColumn() {
        guard columnCount > 1 else {
            message = "the last column shown stays"
            return
        }
        let name = displayName(ofFileColumn: cursorFileColumn)
        var columns = table.columns
        columns.hide(cursorColumn, of: table.fileColumnCount)
        show(rows: table.rows, columns: columns)
        message = "hid \(name)  (+ shows every column)"
    }

    /// `+`: every column again, in the file's order.
    func showAllColumns() {
        guard !table.columns.isIdentity else { return }
        show(rows: table.rows, columns: .all)
        message = "every column shown"
    }

    /// `H` / `L`: moves the cursor's column one place left or right; the cursor goes with it.
    func moveColumn(by offset: Int) {
        var columns = table.columns
        let column = cursorFileColumn
        let target = columns.move(cursorColumn, by: offset, of: table.fileColumnCount)
        guard target != cursorColumn else { return }
        show(rows: table.rows, columns: columns)
        navigation.place(column: table.columns.viewColumn(of: column) ?? target)
        navigation.revealCursor()
    }

    /// `*` PATTERN: only the columns whose names match (PCRE2, smart case); nothing typed
    /// shows every column.
    func showColumns(matching text: String) {
        guard !text.isEmpty else {
            showAllColumns()
            return
        }
        let matching: [Int]
        do {
            matching = try table.columns(named: text)
        } catch {
            message = error.description
            return
        }
        guard !matching.isEmpty else {
            message = "no column name matches \(text)"
            return
        }
        show(rows: table.rows, columns: ColumnMap(shown: matching))
        message = "\(Self.counted(matching.count, "column")) of \(Self.grouped(table.fileColumnCount)) shown  (+ shows every column)"
    }
}
