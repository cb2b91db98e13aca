import CellStore
import Scan
import Table

extension Viewer {
    /// Starts a search for `text` (a prompt's input) from the cursor.
    func startSearch(_ text: String, columnOnly: Bool) {
        guard !text.isEmpty else { return }
        let pattern = SearchPattern(text: text, column: columnOnly ? cursorFileColumn : nil)
        let compiled: CompiledPattern
        do {
            compiled = try pattern.compile()
        } catch {
            message = error.description
            return
        }
        search.pattern = pattern
        search.matcher = PatternMatcher(compiled)
        search.matchCache = [:]
        search.stepsLeft = 0
        search.hasWrapped = false
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
        sync()
        cancelSearch()
        guard let compiled = search.matcher?.pattern else { return }
        // A file's raw bytes, or any other source's rows, cell by cell.
        let cellSearch: CellSearch, total: Int64
        if let file {
            guard let input = ScanInput(store: file) else { return }
            cellSearch = CellSearch(input: input, pattern: compiled, column: pattern.column)
            total = input.byteCount
        } else {
            guard let rows = source.snapshot() else { return }
            cellSearch = CellSearch(rows: rows, pattern: compiled, column: pattern.column)
            total = Int64(rows.count)
        }
        search.searcher = Searcher(pattern: pattern, search: cellSearch, total: total, forward: forward,
                             headerRows: options.headerRows, rows: table.fileDataRowCount,
                             row: dataRowCount > 0 ? table.record(ofRow: cursorRow) - options.headerRows : 0,
                             column: cursorFileColumn, columns: table.columns.shown, shows: stack?.dataRecordTest() ?? shownRecords,
                             wake: source.wake)
        search.searchedRows = source.isComplete ? nil : table.fileDataRowCount
        message = "searching for \(pattern.text)…  (Esc cancels)"
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

    /// Whether a cell on screen (a view column) matches the last search (cached per cell).
    func cellMatches(record: Int, column viewColumn: Int) -> Bool {
        guard let matcher = search.matcher, let pattern = search.pattern, viewColumn >= 0 else { return false }
        let column = table.fileColumn(viewColumn)
        if pattern.column != nil && pattern.column != column { return false }
        let key = record &* 100_003 &+ column
        if let cached = search.matchCache[key] { return cached }
        let result = table.row(ofInputRecord: record).map { matcher.matches($0.field(column)) } ?? false
        if search.matchCache.count > 4096 { search.matchCache.removeAll() }
        search.matchCache[key] = result
        return result
    }
}
