import CellStore
import Table
import Viewer

/// The stacked view (`--stack`, `S`): every table in one vertical scroll, a viewer over a
/// `StackRows` made over the tables' own stores. It is kept while a table is shown, so
/// `S` twice comes back to where it was; entering it puts the cursor on the record the
/// table's cursor was on, leaving it shows the table under the cursor, on its record.
extension AppLoop {
    /// The table under the stacked view's cursor (nil when not stacked).
    var sectionUnderCursor: Int? {
        guard isStacked, let stack = table.stack, table.dataRowCount > 0 else { return nil }
        return stack.section(ofRecord: table.table.record(ofRow: table.cursorRow))
    }

    /// Shows the stacked view, made the first time.
    func enterStack() {
        guard let shelf, !isStacked else { return }
        closeTableList()
        let changed = noticeTableChanges()
        let leaving = table
        let record = leaving.dataRowCount > 0 ? leaving.table.record(ofRow: leaving.cursorRow) : nil
        let column = leaving.table.fileColumn(leaving.cursorColumn)
        let arriving = stackEntries ?? [Entry(viewer: stackViewer(over: shelf, like: leaving), source: nil)]
        slots[current].entries = entries
        slots[current].lastUse = useClock
        useClock += 1
        entries = arriving
        stackEntries = nil
        isStacked = true
        table.history = leaving.history
        for entry in entries {
            entry.viewer.handle(.resize(screen.size))
            entry.viewer.handle(.refresh)
        }
        // The cursor on the record it was on, once the stack has come that far.
        if let record, let stack = table.stack, stack.contains(section: current),
           record < stack.recordCount(ofSection: current) {
            table.moveCursor(toRow: stack.start(ofSection: current) + record - tableOptions.headerRows,
                             column: table.table.columns.viewColumn(of: column) ?? 0)
        }
        if let changed { table.say(changed) }
        lastFrame = nil
    }

    /// Leaves the stacked view for table `chosen`, or the table under its cursor (on the
    /// record it was on); the stacked view is kept for next time.
    func leaveStack(to chosen: Int? = nil) {
        guard isStacked else { return }
        closeTableList()
        let stacked = table
        let record = stacked.dataRowCount > 0 ? stacked.table.record(ofRow: stacked.cursorRow) : nil
        let index = chosen ?? sectionUnderCursor ?? current
        guard index >= 0, index < slots.count, let arriving = viewer(of: index) else { return }
        stackEntries = entries
        isStacked = false
        entries = arriving
        slots[index].entries = []
        current = index
        slots[index].lastUse = useClock
        useClock += 1
        table.history = stacked.history
        for entry in entries { entry.viewer.handle(.resize(screen.size)) }
        if chosen == nil, let record, let stack = stacked.stack {
            let local = stack.localRecord(record)
            if local >= tableOptions.headerRows, let row = table.table.row(ofRecord: local) {
                let column = stacked.table.fileColumn(stacked.cursorColumn)
                table.moveCursor(toRow: row, column: table.table.columns.viewColumn(of: column) ?? table.cursorColumn)
            }
        }
        lastFrame = nil
        putAwayUnused()
    }

    /// A viewer over every table of `shelf`, stacked, looking like `table`.
    private func stackViewer(over shelf: TableShelf, like table: Viewer) -> Viewer {
        let stack = StackRows(sections: ShelfSections(shelf: shelf, wake: table.source.wake), headerRows: tableOptions.headerRows)
        var options = tableOptions
        options.place = nil
        return Viewer(source: stack, options: options, screenSize: screen.size)
    }
}
