import CellStore
import Scan
import Table

extension Viewer {
    /// Starts a search for `text` (a prompt's input) from the cursor.
    func startSearch(_ text: String, columnOnly: Bool) {
        guard !text.isEmpty else { return }
        do {
            try search.begin(SearchPattern(text: text, column: columnOnly ? cursorFileColumn : nil))
        } catch {
            message = error.description
            return
        }
        runSearch(forward: true)
    }

    /// Looks for the next (or previous) match of the last pattern, in the background.
    func runSearch(forward: Bool, continuing: Bool = false) {
        if !continuing { search.startAnew() }
        guard let pattern = search.pattern else {
            message = "no search yet: / to search"
            return
        }
        cancelSearch()
        let row = dataRowCount > 0 ? table.record(ofRow: cursorRow) - options.headerRows : 0
        if search.run(forward: forward, over: table, row: row, column: cursorFileColumn, viewRow: cursorRow,
                      shows: stack?.dataRecordTest() ?? shownRecords) {
            message = "searching for \(pattern.text)…  (Esc cancels)"
        }
    }

    /// For a filtered view: whether a record is shown (a search passes over the others).
    /// A sort shows every record, so it needs no test.
    private var shownRecords: (@Sendable (Int) -> Bool)? {
        guard let filtered = query.shown.filtered, table.rows === filtered else { return nil }
        return { record in filtered.index(of: record) != nil }
    }

    /// Stops a search that is still running.
    func cancelSearch() {
        guard search.cancel() else { return }
        message = "search cancelled"
        releaseHeldKeys()
    }

    /// Takes a finished search's result (called on news from the background).
    func collectSearch() {
        guard isSearching else { return }
        // Keys typed meanwhile act once the cursor is on the match (or the search is over).
        defer { releaseHeldKeys() }
        switch search.takeNews(in: table) {
        case .quiet: break
        case .say(let text): message = text
        case .found(let row, let column, let marksJump, let continues, let text):
            if marksJump { markJump() }
            moveCursor(toRow: row, column: column < 0 ? cursorColumn : column)
            if let forward = continues { return runSearch(forward: forward, continuing: true) }
            message = text
        }
    }

    /// True while a search runs (the loop keeps collecting it).
    public var isSearching: Bool { search.searcher != nil }
}
