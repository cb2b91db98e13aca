import CellStore
import Scan
import Table

/// The last search, its matcher, the one running in the background, and which cells on
/// screen match.
struct SearchSession {
    var pattern: SearchPattern?
    var matcher: PatternMatcher?
    var matchCache: [Int: Bool] = [:]
    /// The search running in the background, if any (dropping it cancels and joins it).
    var searcher: Searcher?
    /// Data rows a search could look at when the input was still loading (nil: all).
    var searchedRows: Int?
    /// Matches still to step over after the one running (`3n` runs one search, then two more).
    var stepsLeft = 0
    /// Whether a step of a counted search wrapped around.
    var hasWrapped = false
    /// Whether the place before this search's first match was kept for `''`.
    var hasMarkedJump = false
}

extension SearchSession {
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

    /// Starts looking for the next (or previous) match in the background, from data record
    /// `row` (less the header rows) and input column `column`: in a file's raw bytes, or
    /// any other source's rows, cell by cell; `shows` passes over records a filter leaves
    /// out. False when there is nothing to search yet.
    mutating func run(forward: Bool, over table: TableView, row: Int, column: Int,
                      shows: (@Sendable (Int) -> Bool)?) -> Bool {
        guard let pattern, let compiled = matcher?.pattern else { return false }
        let source = table.source
        let cellSearch: CellSearch, total: Int64
        if let file = table.file {
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
