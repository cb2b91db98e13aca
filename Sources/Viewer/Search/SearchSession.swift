import CellStore
import Scan
import Table

/// The last search, its matcher, the one running in the background, and which cells on
/// screen match.
struct SearchSession {
    private(set) var pattern: SearchPattern?
    private(set) var matcher: PatternMatcher?
    private(set) var matchCache: [Int: Bool] = [:]
    /// The search running in the background, if any (dropping it cancels and joins it).
    private(set) var searcher: Searcher?
    /// Data rows a search could look at when the input was still loading (nil: all).
    private(set) var searchedRows: Int?
    /// The view row the running search started from (the cursor's).
    private(set) var startRow = 0
    /// Matches still to step over after the one running (`3n` runs one search, then two more).
    private(set) var stepsLeft = 0
    /// Whether a step of a counted search wrapped around.
    private(set) var hasWrapped = false
    /// Whether the place before this search's first match was kept for `''`.
    private(set) var hasMarkedJump = false
}

extension SearchSession {
    /// Forgets which cells on screen match (the cells or the rows under them changed).
    mutating func forgetMatches() { matchCache = [:] }

    /// Keeps which cells on screen match, as the last frame found them.
    mutating func keep(matches: [Int: Bool]) { matchCache = matches }

    /// No search: n and N have nothing to go on with, and no cell is highlighted.
    mutating func clear() {
        pattern = nil
        matcher = nil
        matchCache = [:]
    }

    /// The search a kept view had, compiled already (n and N go on with it).
    mutating func restore(pattern: SearchPattern?, matcher: PatternMatcher?) {
        self.pattern = pattern
        self.matcher = matcher
        matchCache = [:]
    }

    /// A counted search (`3n`): `count` more matches to step over after the one running.
    mutating func step(over count: Int) { stepsLeft = count }

    /// Makes `pattern` the search (n and N go on with it), its matches on screen looked at
    /// anew; throws when it does not compile.
    mutating func begin(_ pattern: SearchPattern) throws(PatternError) {
        let compiled = try pattern.compile()
        self.pattern = pattern
        matcher = PatternMatcher(compiled)
        matchCache = [:]
        stepsLeft = 0
        hasWrapped = false
    }

    /// A search of its own (not a counted search's next step): it steps once, and its
    /// first match keeps the place before it for `''`.
    mutating func startAnew() {
        stepsLeft = 0
        hasWrapped = false
        hasMarkedJump = false
    }

    /// Stops the search running, if any; false when none was.
    mutating func cancel() -> Bool {
        guard let searcher else { return false }
        searcher.cancel()
        self.searcher = nil
        stepsLeft = 0
        return true
    }

    /// Starts looking for the next (or previous) match in the background, from data record
    /// `row` (less the header rows) and input column `column`: in a file's raw bytes, in
    /// each stacked table's own in turn, or any other source's rows, cell by cell; `shows`
    /// passes over records a filter leaves out. False when there is nothing to search yet.
    mutating func run(forward: Bool, over table: TableView, row: Int, column: Int, viewRow: Int,
                      shows: (@Sendable (Int) -> Bool)?) -> Bool {
        startRow = viewRow
        guard let pattern, let compiled = matcher?.pattern else { return false }
        let source = table.source
        let cellSearch: any RecordFinder, total: Int64
        if let stack = source as? StackRows {
            // Each table's own input, searched as one table is.
            cellSearch = StackSearch(stack: stack, pattern: compiled, column: pattern.column)
            total = StackSearch.units
        } else if let file = table.file {
            guard let input = ScanInput(store: file) else { return false }
            cellSearch = CellSearch(input: input, pattern: compiled, column: pattern.column)
            total = input.byteCount
        } else {
            guard let rows = source.snapshot() else { return false }
            cellSearch = CellSearch(rows: rows, pattern: compiled, column: pattern.column)
            total = Int64(rows.count)
        }
        searcher = Searcher(pattern: pattern, search: cellSearch, total: total, forward: forward,
                            headerRows: table.headerRows, rows: table.fileDataRowCount, row: row,
                            column: column, columns: table.columns.shown, shows: shows, wake: source.wake)
        searchedRows = source.isComplete ? nil : table.fileDataRowCount
        return true
    }
}

extension SearchSession {
    /// What the running search's news means for the view.
    enum News: Equatable {
        /// Nothing to say or do (no search, or it was cancelled).
        case quiet
        /// A line for the status line: progress, or why no match is shown.
        case say(String)
        /// A match on view row `row`, input column `column`: the cursor goes there (the
        /// place before kept for `''` when `marksJump`). `continues`: a counted search's
        /// next step, in that direction; else `saying` (nil clears the status line).
        case found(row: Int, column: Int, marksJump: Bool, continues: Bool?, saying: String?)
    }

    /// Takes the running search's outcome, if it has one, for the view over `table`.
    mutating func takeNews(in table: TableView) -> News {
        guard let searcher else { return .quiet }
        switch searcher.outcome {
        case .running(let scanned, let total):
            return .say("searching for \(searcher.pattern.text)… \(Viewer.percent(scanned, of: total))%  (Esc cancels)")
        case .found(let found):
            self.searcher = nil
            // The search runs over the file's rows: in a filtered view, the match may not be shown.
            guard let row = table.row(ofRecord: found.row + table.headerRows) else {
                return .say("the next match (row \(Viewer.grouped(found.row + 1))) is not in this view: & Enter shows every row")
            }
            let marksJump = !hasMarkedJump
            hasMarkedJump = true
            // The search goes through the file's order; a sorted view's is another: whether it
            // came around is told by the rows on screen, past the same row only by the file's.
            let cameAround = !table.isMapped || row == startRow ? found.wrapped
                : searcher.forward ? row < startRow : row > startRow
            hasWrapped = hasWrapped || cameAround
            let column = table.columns.viewColumn(of: found.column) ?? -1
            if stepsLeft > 0 {
                // `3n`: the next step starts from this match; held keys wait for the last.
                stepsLeft -= 1
                return .found(row: row, column: column, marksJump: marksJump, continues: searcher.forward, saying: nil)
            }
            let wrapped = searcher.forward ? "search wrapped around to the top" : "search wrapped around to the bottom"
            return .found(row: row, column: column, marksJump: marksJump, continues: nil, saying: hasWrapped ? wrapped : nil)
        case .notFound:
            self.searcher = nil
            stepsLeft = 0
            // The input was still loading: only what was read could be searched.
            return .say(searchedRows.map { "not found in the \(Viewer.counted($0, "row")) read so far: \(searcher.pattern.text)" }
                        ?? "not found: \(searcher.pattern.text)")
        case .cancelled:
            self.searcher = nil
            stepsLeft = 0
            return .quiet
        }
    }
}
