extension Viewer {
    /// Remembers the cursor's record and column before a jump (`G`, `g`, `250G`, `:`, a
    /// search's match, a sort), for `''` to come back to.
    func markJump() {
        guard dataRowCount > 0, cursorRow < dataRowCount else { return }
        navigation.jumpedFrom = (table.record(ofRow: cursorRow), cursorFileColumn)
    }

    /// `''`: back to the record (and column) the cursor was on before the last jump; the
    /// place it leaves becomes the one `''` comes back to, so `''` twice is where it was.
    func jumpBack() {
        guard let mark = navigation.jumpedFrom else {
            message = "no jump yet: '' comes back after G, g, :, a search or a sort"
            return
        }
        guard let row = table.row(ofRecord: mark.record), row < dataRowCount else {
            message = "row \(Self.grouped(mark.record - options.headerRows + 1)) is not in this view"
            return
        }
        markJump()
        moveCursor(toRow: row, column: table.columns.viewColumn(of: mark.column) ?? cursorColumn)
    }
}
