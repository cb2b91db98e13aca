import CellStore
import FreezeLayout
import Table

extension Viewer {
    /// Shows other rows or columns (a filter, a sort, hidden or moved columns), keeping
    /// the cursor on its record and its column wherever they still show. Rows frozen with
    /// `F` are view rows, so a new row order unfreezes them; frozen columns stay.
    public func show(rows: (any RecordSequence)?, columns: ColumnMap? = nil) {
        let record = dataRowCount > 0 ? table.record(ofRow: cursorRow) : nil
        let column = cursorFileColumn
        let rowsChange = rows !== table.rows
        if rowsChange {
            table.show(rows: rows)
            navigation.unfreezeRows()
        }
        let hiddenChange = columns.map { Set($0.shown ?? []) != Set(table.columns.shown ?? []) } ?? false
        if let columns { table.columns = columns }
        reconcile()
        // Filters on every column match what is shown: they run again over the new columns.
        if hiddenChange && query.filters.contains(where: { $0.column == nil }) {
            let said = message
            applyQuery(saying: nil)
            if message == nil { message = said }
        }
        if rowsChange {
            let row = record.flatMap(table.row(ofRecord:)) ?? 0
            takeInRows(upTo: row)
            navigation.place(row: row)
            navigation.scroll(toLine: 0)
        }
        navigation.place(column: table.columns.viewColumn(of: column) ?? min(cursorColumn, columnCount - 1))
        navigation.revealCursor()
    }
}
