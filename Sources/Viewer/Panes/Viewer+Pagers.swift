import CellStore
import FreezeLayout

extension Viewer {
    /// Enter in the grid without `--echo`: the inspector on the cursor's cell.
    func openInspector(_ row: Row) {
        panes.openInspector(row, row: cursorRow, column: cursorColumn, fileColumn: cursorFileColumn,
                            name: columnName(cursorColumn), table: table, screen: screenSize)
    }

    /// `v`: the record view of the cursor's row.
    func openRecordView() {
        guard dataRowCount > 0, let record = table.row(cursorRow) else { return }
        panes.openRecord(record, row: cursorRow, table: table, screen: screenSize)
    }

    /// A key of the inspector, the record view or the help screen: the pane scrolls, or
    /// closes (the record view on its row: the cursor goes there), or has news.
    func applyPager(_ command: PagerCommand) {
        switch panes.apply(command, table: table, screen: screenSize) {
        case .none: break
        case .closed(let row):
            takeInRows(upTo: row)
            navigation.place(row: row)
            navigation.revealCursor()
        case .said(let text): message = text
        }
    }

    /// View column `column`'s name (see `name(ofFileColumn:)`).
    func columnName(_ column: Int) -> String { name(ofFileColumn: table.fileColumn(column)) }

    /// An input column's name (see `TableView.headerName(ofFileColumn:)`).
    func name(ofFileColumn column: Int) -> String { table.headerName(ofFileColumn: column) }

    /// An input column's name as the record view shows it: its unique name, else its number.
    func displayName(ofFileColumn column: Int) -> String { table.columnNames[column] }
}
