import CellStore
import Scan
import Table

extension Viewer {
    // MARK: Choosing columns

    /// `-`, `+` and `*`: the columns the choice makes shown, and its line said.
    func apply(_ choice: ColumnChoice) {
        switch choice {
        case .unchanged: break
        case .say(let text): message = text
        case .show(let columns, let text):
            show(rows: table.rows, columns: columns)
            message = text
        }
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
}
