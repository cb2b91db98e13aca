import CellStore
import FreezeLayout
import Query
import Scan
import Table

extension Viewer {
    // MARK: Filters

    /// What the status line says is in force: `sorted by price ↓  2 filters`.
    package var queryNote: String? {
        let marks = table.marks.isEmpty ? nil : Self.counted(table.marks.count, "mark")
        let parts = [query.note(naming: name(ofFileColumn:)), marks].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "  ")
    }

    /// `&` / `|` input: keeps rows where some cell (or the cell in `column`) matches;
    /// `!` first keeps those where none does. Nothing typed clears every filter.
    func addFilter(_ text: String, column: Int?) {
        guard query.addFilter(text, column: column) else { return }
        applyQuery(saying: text.isEmpty ? "filters cleared" : nil)
    }

    /// `@`: keeps rows whose cell in the cursor's column equals the cursor's cell.
    func filterToCursorValue() {
        guard dataRowCount > 0, let row = table.row(cursorRow) else { return }
        let column = cursorFileColumn
        guard !row.isClipped(column) else {
            message = "this cell is longer than what is kept in memory: it cannot be matched whole"
            return
        }
        keep(value: Array(row.field(column)), column: column)
    }

    // MARK: Sort

    /// `[` / `]` (replacing the sort) and `z[` / `z]` (adding a key): sorts by the
    /// cursor's column.
    func sortByCursorColumn(descending: Bool, adding: Bool) {
        guard query.sort(by: SortKey(column: cursorFileColumn, descending: descending), adding: adding) else { return }
        markJump()
        applyQuery(saying: nil)
    }

    /// `o`: the file's order again (filters stay).
    func unsort() {
        guard !query.sortKeys.isEmpty else { return }
        query.dropSort()
        applyQuery(saying: "the file's order")
    }

    // MARK: Running

    /// Starts the passes for the filters and sort in force and shows their rows as they
    /// come; the cursor stays on its record when it is among them.
    func applyQuery(saying text: String?) {
        if let failure = query.startPasses(over: table) {
            message = failure
            return
        }
        if let rows = query.rows, rows.count == 0, !rows.isComplete, query.landing != .opening {
            // Nothing to show yet: the view stays as it was until the first rows come (a view
            // given on the command line shows its own rows at once: none it leaves out).
        } else {
            showQueryRows()
        }
        message = text ?? (query.isRunning ? query.progress : nil)
    }

    /// Puts the passes' rows on screen (the cursor stays on its record where it can).
    private func showQueryRows() {
        query.showPasses()
        let record = dataRowCount > 0 ? table.record(ofRow: cursorRow) : nil
        let line = cursorRow, top = window.offset.y
        makeMarkedRows()
        show(rows: query.rows)
        query.await(record: nil)
        switch query.takeLanding() {
        case .sameLine:
            // Replaced rows sorted or filtered again: the screen stays as it was.
            navigation.scroll(toLine: top)
            moveCursor(toRow: line, column: cursorColumn)
        case .top, .opening:
            moveCursor(toRow: 0, column: cursorColumn)
        case .record:
            // Not on its record: that record is not merged yet (or not in the view at all).
            let missed = record.map { dataRowCount == 0 || table.record(ofRow: cursorRow) != $0 } ?? false
            query.await(record: missed ? record : nil)
            placeAwaitedCursor()
        }
    }

    /// Esc while a pass runs: stops it; the rows found so far stay.
    func cancelQuery() {
        if let marking = query.marking {
            marking.filtered.cancel()
            query.setMarking(nil)
            message = "stopped: nothing marked"
            return
        }
        if let said = query.cancel() { message = said }
    }

    /// On news: when the source's rows were replaced (a sheet filling in), what was made
    /// from them is made again: the filters and sort run over the new rows (the cursor
    /// stays on its row), matches on screen are looked at again, widths are measured again.
    func takeReplacedRows() {
        guard source.generation != query.sourceGeneration else { return }
        query.read(generation: source.generation)
        search.forgetMatches()
        guard !query.isEmpty else { return }
        query.sorted?.cancel()
        query.forgetSort()
        query.land(.sameLine)
        let said = message
        applyQuery(saying: nil)
        if message == nil { message = said }
    }

    /// On news: the passes' progress, and their end.
    func collectQuery() {
        collectMarking()
        if query.marksOnly && query.marked == nil && query.base?.isComplete != false && query.rows !== table.rows {
            // The rows `"` keeps are made once the sort and filters under it are done.
            makeMarkedRows()
            show(rows: query.rows)
        }
        guard query.sorted != nil || query.filtered != nil else { return }
        if query.isPending, let rows = query.rows, rows.count > 0 || rows.isComplete { showQueryRows() }
        placeAwaitedCursor()
        message = query.status(after: message)
    }

    /// Once the rows are all there, puts the cursor on the record it was on before they
    /// came, if the user has not moved it since (it is then on the first row).
    private func placeAwaitedCursor() {
        guard let record = query.awaitedRecord, query.rows?.isComplete != false else { return }
        query.await(record: nil)
        if cursorRow == 0, let row = table.row(ofRecord: record) { moveCursor(toRow: row, column: cursorColumn) }
    }

}

extension Viewer {
    /// True while a filter or sort is still making rows.
    public var isQueryRunning: Bool { query.isRunning }

    /// What Esc means in the grid now: stop a save, a search, or a filter or sort.
    var escapeCommand: Command? {
        if isSaving || editing.saver != nil { return .cancelSave }
        if isSearching { return .cancelSearch }
        if query.isRunning || query.marking != nil { return .cancelQuery }
        if isAnswerRunning { return .stopSQL }
        // A sheet goes back to the table on Esc.
        return options.isSheet ? .quit : nil
    }
}

extension Viewer {
    /// Starts with a view (from `--filter`, `--sort` and `--columns`): the same passes
    /// as the keys start.
    public func apply(filters: [RecordFilter], sortKeys: [SortKey], columns: [Int]?) {
        if let columns { show(rows: table.rows, columns: ColumnMap(shown: columns)) }
        query.ask(filters: filters, sortKeys: sortKeys)
        query.land(.opening)
        if !query.isEmpty { applyQuery(saying: nil) }
    }
}
