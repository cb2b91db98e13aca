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
        searchPattern = pattern
        searchMatcher = PatternMatcher(compiled)
        matchCache = [:]
        runSearch(forward: true)
    }

    /// Looks for the next (or previous) match of the last pattern, in the background.
    func runSearch(forward: Bool) {
        guard let pattern = searchPattern else {
            message = "no search yet: / to search"
            return
        }
        sync()
        cancelSearch()
        guard let input = ScanInput(store: store), let compiled = searchMatcher?.pattern else { return }
        searcher_ = Searcher(pattern: pattern, compiled: compiled, forward: forward, input: input,
                             headerRows: options.headerRows, rows: dataRowCount,
                             row: cursorRow, column: cursorFileColumn, wake: store.wake)
        searchedRows = store.isComplete ? nil : dataRowCount
        message = "searching for \(pattern.text)…  (Esc cancels)"
    }

    /// Stops a search that is still running.
    func cancelSearch() {
        guard let searcher = searcher_ else { return }
        searcher.cancel()
        searcher_ = nil
        message = "search cancelled"
    }

    /// Takes a finished search's result (called on news from the background).
    func collectSearch() {
        guard let searcher = searcher_ else { return }
        switch searcher.outcome {
        case .running(let scanned, let total):
            let percent = total > 0 ? min(99, Int(scanned * 100 / total)) : 0
            message = "searching for \(searcher.pattern.text)… \(percent)%  (Esc cancels)"
        case .found(let found):
            searcher_ = nil
            moveCursor(toRow: found.row, column: table.columns.viewColumn(of: found.column) ?? cursorColumn)
            if found.wrapped {
                message = searcher.forward ? "search wrapped around to the top" : "search wrapped around to the bottom"
            } else {
                message = nil
            }
        case .notFound:
            searcher_ = nil
            if let rows = searchedRows {
                // The input was still loading: only what was read could be searched.
                message = "not found in the \(Self.counted(rows, "row")) read so far: \(searcher.pattern.text)"
            } else {
                message = "not found: \(searcher.pattern.text)"
            }
        case .cancelled:
            searcher_ = nil
        }
    }

    /// True while a search runs (the loop keeps collecting it).
    public var isSearching: Bool { searcher_ != nil }

    /// Whether a cell on screen (a view column) matches the last search (cached per cell).
    func cellMatches(record: Int, column viewColumn: Int) -> Bool {
        guard let matcher = searchMatcher, let pattern = searchPattern, viewColumn >= 0 else { return false }
        let column = table.fileColumn(viewColumn)
        if pattern.column != nil && pattern.column != column { return false }
        let key = record &* 100_003 &+ column
        if let cached = matchCache[key] { return cached }
        let result = store.row(record).map { matcher.matches($0.field(column)) } ?? false
        if matchCache.count > 4096 { matchCache.removeAll() }
        matchCache[key] = result
        return result
    }
}
