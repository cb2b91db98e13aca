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
        if !continuing {
            search.stepsLeft = 0
            search.hasWrapped = false
            search.hasMarkedJump = false
        }
        guard let pattern = search.pattern else {
            message = "no search yet: / to search"
            return
        }
        cancelSearch()
        let row = dataRowCount > 0 ? table.record(ofRow: cursorRow) - options.headerRows : 0
        if search.run(forward: forward, over: table, row: row, column: cursorFileColumn, shows: stack?.dataRecordTest() ?? shownRecords) {
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
        guard let searcher = search.searcher else { return }
        searcher.cancel()
        search.searcher = nil
        search.stepsLeft = 0
        message = "search cancelled"
        releaseHeldKeys()
    }

    /// Takes a finished search's result (called on news from the background).
    func collectSearch() {
        guard let searcher = search.searcher else { return }
        // Keys typed meanwhile act once the cursor is on the match (or the search is over).
        defer { releaseHeldKeys() }
        switch searcher.outcome {
        case .running(let scanned, let total):
            let percent = Self.percent(scanned, of: total)
            message = "searching for \(searcher.pattern.text)… \(percent)%  (Esc cancels)"
        case .found(let found):
            search.searcher = nil
            // The search runs over the file's rows: in a filtered view, the match may not be shown.
            guard let row = table.row(ofRecord: found.row + options.headerRows) else {
                message = "the next match (row \(Self.grouped(found.row + 1))) is not in this view: & Enter shows every row"
                return
            }
            if !search.hasMarkedJump {
                markJump()
                search.hasMarkedJump = true
            }
            moveCursor(toRow: row, column: table.columns.viewColumn(of: found.column) ?? cursorColumn)
            search.hasWrapped = search.hasWrapped || found.wrapped
            if search.stepsLeft > 0 {
                // `3n`: the next step starts from this match; held keys wait for the last.
                search.stepsLeft -= 1
                runSearch(forward: searcher.forward, continuing: true)
                return
            }
            if search.hasWrapped {
                message = searcher.forward ? "search wrapped around to the top" : "search wrapped around to the bottom"
            } else {
                message = nil
            }
        case .notFound:
            search.searcher = nil
            search.stepsLeft = 0
            if let rows = search.searchedRows {
                // The input was still loading: only what was read could be searched.
                message = "not found in the \(Self.counted(rows, "row")) read so far: \(searcher.pattern.text)"
            } else {
                message = "not found: \(searcher.pattern.text)"
            }
        case .cancelled:
            search.searcher = nil
            search.stepsLeft = 0
        }
    }

    /// True while a search runs (the loop keeps collecting it).
    public var isSearching: Bool { search.searcher != nil }
}
