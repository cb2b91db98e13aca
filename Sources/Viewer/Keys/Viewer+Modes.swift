import CellStore
import FreezeLayout

extension Viewer {
    // MARK: Commands that open modes

    /// Enter on a cell: the inspector, or with `--echo` the choice and the end.
    func inspectOrChoose() {
        guard dataRowCount > 0, let row = table.row(cursorRow) else { return }
        if options.isSheet {
            cancelSearch()
            requests.sheetRecord = table.record(ofRow: cursorRow)
            return
        }
        if options.echo == .rows {
            // The marked records, in the file's order; with none marked, the cursor's.
            let marked = Array(table.marks.marks(in: table.headerRows..<Int.max))
            requests.chosen = .rows(marked.isEmpty ? [table.record(ofRow: cursorRow)] : marked)
            finish()
            return
        }
        if let echo = options.echo {
            switch Echo.choose(echo, row: row, column: cursorFileColumn, table: table, isViewGrowing: query.isRunning) {
            case .chosen(let choice):
                requests.chosen = choice
                finish()
            case .refused(let reason):
                message = reason
            }
            return
        }
        openInspector(row)
    }

    // MARK: Go to

    /// `:` input: a row number, `#` and a column number, or a column name.
    func goTo(_ text: String) {
        let target = text.trimmingSpaces
        if goToSectionRow(target) { return }
        switch GoToTarget(target, in: table) {
        case .row(let number): goToRow(number)
        case .column(let column): moveCursor(toRow: cursorRow, column: column)
        case .say(let text): message = text
        }
    }

    /// Goes to data row `number` (1-based, as the margin numbers rows), saying so when it
    /// is past what is known (see `RowTarget`).
    func goToRow(_ number: Int) {
        // A row of the input: the rows read since the last frame count.
        reconcile()
        if goToRowOfSection(number) { return }
        var pastRead = false
        if !table.isMapped, let file, number > max(0, file.readRowCount - options.headerRows) && !file.isComplete && !options.follows {
            // Past what is read: the end of the file may be in reach already (see `G`).
            file.jumpToEnd(rows: max(200, screenSize.height * 4))
            reconcile()
            pastRead = true
        }
        let target = RowTarget(number: number, table: table, mayBeEstimated: pastRead)
        if let row = target.row { moveCursor(toRow: row, column: cursorColumn) }
        if let text = target.message?(cursorRow) { message = text }
    }

    // MARK: Column widths

    /// `<`, `>`, `=` and `_`: the cursor's column narrower, wider, fitted to its content,
    /// or at its full width (and back).
    func resizeColumn(_ command: Command) {
        let maximum = layout.maximumWidth(gridWidth: gridSize.width), column = cursorFileColumn
        switch command {
        case .fitColumn: layout.setWidth(layout.naturalWidth(column, maximum: maximum), of: column)
        case .toggleFullWidth: layout.toggleFullWidth(column, maximum: maximum)
        default: layout.changeWidth(ofViewColumn: cursorColumn, fileColumn: column, by: command == .widenColumn ? 1 : -1,
                                    maximum: maximum)
        }
        navigation.revealAfterReconcile()
        guard command == .fitColumn else { return }
        // The message says the width in use.
        reconcile()
        message = "column fitted to its content (\(Self.counted(columnWidths[cursorColumn], "cell")))"
    }

    // MARK: Copy

    func copy(row: Bool) {
        guard dataRowCount > 0, let record = table.row(cursorRow) else { return }
        let bytes = row ? table.csvLine(of: record) : Array(record.field(cursorFileColumn))
        requests.clipboard = bytes
        message = "copied \(row ? "the row as CSV" : "the cell") (\(Self.counted(bytes.count, "byte"))) to the clipboard"
    }

}

extension StringProtocol {
    var trimmingSpaces: String {
        var text = String(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension Viewer {

    /// Hands `body` the cell of input column `column` of each row of the view, in its
    /// order (see `TableView.forEachShownCell`).
    public func forEachShownCell(inColumn column: Int, _ body: (ArraySlice<UInt8>) -> Bool) -> String? {
        table.forEachShownCell(inColumn: column, body)
    }
}
