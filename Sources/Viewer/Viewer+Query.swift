import CellStore
import FreezeLayout
import Query
import Scan
import Table

/// The filters and sort in force on screen, and the passes that make their rows.
struct ViewQuery {
    var filters: [RecordFilter] = []
    var sortKeys: [SortKey] = []
    /// The pass that sorts, and the one that filters (over the sort, keeping its order).
    var sorted: SortedRecords?
    var filtered: FilteredRecords?

    /// The rows shown: filtered, sorted, or nil for every row in the file's order.
    var rows: (any RecordSequence)? { filtered ?? sorted }

    /// What made the rows on screen. New passes' rows replace them once they have some, so
    /// a sort that is still reading keys leaves the view as it was instead of empty.
    struct Made {
        var filters: [RecordFilter] = []
        var sortKeys: [SortKey] = []
        var sorted: SortedRecords?
        var filtered: FilteredRecords?
    }
    var shown = Made()
    /// The view given on the command line opens at its first row, not on the record the
    /// cursor was on while it was made.
    var opensAtTop = false
    /// The record the cursor was on when rows of a filter still running came on screen, if
    /// it was not among them yet: the cursor goes back to it when the pass is done, unless
    /// the user has moved it since.
    var awaitedRecord: Int?
    /// A new sort's rows show from their top, the cursor on the first (a user sorts to see
    /// the largest or smallest values; `''` goes back to the record it was on).
    var showsTop = false
    /// The source's generation the passes read: when its rows are replaced (a sheet's
    /// newer counts), the passes run again.
    var sourceGeneration = 0
    /// The passes run again over replaced rows: their rows show with the cursor on the
    /// same line, not on the record it was on (a record of replaced rows is another row).
    var keepsCursorRow = false

    /// True while new passes run whose rows are not on screen yet.
    var isPending: Bool { (filtered ?? sorted) !== (shown.filtered ?? shown.sorted) }

    /// True while a pass is still making rows.
    var isRunning: Bool { (sorted.map { !$0.isComplete } ?? false) || (filtered.map { !$0.isComplete } ?? false) }

    var isEmpty: Bool { filters.isEmpty && sortKeys.isEmpty }
}

extension Viewer {
    // MARK: Filters

    /// `&` / `|` input: keeps rows where some cell (or the cell in `column`) matches;
    /// `!` first keeps those where none does. Nothing typed clears every filter.
    func addFilter(_ text: String, column: Int?) {
        guard !text.isEmpty else {
            guard !query.filters.isEmpty else { return }
            query.filters = []
            applyQuery(saying: "filters cleared")
            return
        }
        let inverted = text.hasPrefix("!") && text.count > 1
        let pattern = inverted ? String(text.dropFirst()) : text
        query.filters.append(RecordFilter(pattern: pattern, column: column, inverted: inverted))
        applyQuery(saying: nil)
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

    /// A pattern that matches exactly `value`, case and all: every character that is not
    /// a letter, digit or non-ASCII is escaped.
    static func exactPattern(_ value: ArraySlice<UInt8>) -> String {
        var pattern = "(?-i)^"
        for scalar in String(decoding: value, as: UTF8.self).unicodeScalars {
            if scalar.value < 0x80 && !(scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar))) {
                pattern += scalar == "\n" ? "\\n" : scalar == "\r" ? "\\r" : scalar == "\0" ? "\\x00" : "\\" + String(scalar)
            } else {
                pattern.unicodeScalars.append(scalar)
            }
        }
        return pattern + "$"
    }

    // MARK: Sort

    /// `[` / `]` (replacing the sort) and `z[` / `z]` (adding a key): sorts by the
    /// cursor's column.
    func sortByCursorColumn(descending: Bool, adding: Bool) {
        let key = SortKey(column: cursorFileColumn, descending: descending)
        var keys = adding ? query.sortKeys.filter { $0.column != key.column } : []
        keys.append(key)
        guard keys != query.sortKeys else { return }
        query.sortKeys = keys
        markJump()
        query.showsTop = true
        applyQuery(saying: nil)
    }

    /// `o`: the file's order again (filters stay).
    func unsort() {
        guard !query.sortKeys.isEmpty else { return }
        query.sortKeys = []
        applyQuery(saying: "the file's order")
    }

    // MARK: Running

    /// Starts the passes for the filters and sort in force and shows their rows as they
    /// come; the cursor stays on its record when it is among them.
    func applyQuery(saying text: String?) {
        // The filters are made again; the sort only when its keys changed (a sort still
        // running goes on under the new filters).
        let sortChanged = query.sorted?.keys != query.sortKeys || query.sorted?.phase == .cancelled
        if sortChanged { query.sorted?.cancel() }
        query.filtered?.cancel()
        if query.sortKeys.isEmpty {
            query.sorted = nil
        } else if sortChanged || query.sorted == nil {
            query.sorted = startSort()
        }
        if query.filters.isEmpty {
            query.filtered = nil
        } else {
            // A filter on every column looks at the columns shown: a hidden one is out of the view.
            let filters = query.filters.map { filter in
                var filter = filter
                if filter.column == nil { filter.columns = table.columns.shown }
                return filter
            }
            do {
                query.filtered = try startFilter(filters)
            } catch {
                let filter = query.filters.removeLast()
                // The reason without the command line's option name.
                let reason = error.description.components(separatedBy: "': ").dropFirst().joined(separator: "': ")
                message = "\(filter.column == nil ? "&" : "|")\(filter.pattern): " + (reason.isEmpty ? error.description : reason)
                return
            }
        }
        if let rows = query.rows, rows.count == 0, !rows.isComplete, !query.opensAtTop {
            // Nothing to show yet: the view stays as it was until the first rows come (a view
            // given on the command line shows its own rows at once: none it leaves out).
        } else {
            showQueryRows()
        }
        message = text ?? (query.isRunning ? queryProgress : nil)
    }

    /// The sort's pass over the source: a file's bytes, or any other source's rows.
    private func startSort() -> SortedRecords? {
        if let file {
            return SortedRecords.start(store: file, headerRows: options.headerRows, keys: query.sortKeys, wake: source.wake)
        }
        return source.snapshot().map { SortedRecords.start(rows: $0, headerRows: options.headerRows, keys: query.sortKeys, wake: source.wake) }
    }

    /// The filters' pass over the source (over the sort's rows when there is one).
    private func startFilter(_ filters: [RecordFilter]) throws(QueryError) -> FilteredRecords? {
        if let file {
            return try FilteredRecords.start(store: file, headerRows: options.headerRows, filters: filters, over: query.sorted,
                                             wake: source.wake)
        }
        guard let rows = source.snapshot() else { return nil }
        return try FilteredRecords.start(rows: rows, headerRows: options.headerRows, filters: filters, over: query.sorted,
                                         wake: source.wake)
    }

    /// Puts the passes' rows on screen (the cursor stays on its record where it can).
    private func showQueryRows() {
        query.shown = ViewQuery.Made(filters: query.filters, sortKeys: query.sortKeys, sorted: query.sorted,
                                     filtered: query.filtered)
        let record = dataRowCount > 0 ? table.record(ofRow: cursorRow) : nil
        let line = cursorRow, top = window.offset.y
        show(rows: query.rows)
        let keepsLine = query.keepsCursorRow && !query.opensAtTop && !query.showsTop
        query.keepsCursorRow = false
        if keepsLine {
            // Replaced rows sorted or filtered again: the screen stays as it was.
            query.awaitedRecord = nil
            sync()
            window.scroll(to: Point(x: window.offset.x, y: top))
            moveCursor(toRow: line, column: cursorColumn)
            return
        }
        // Not on its record: that record is not merged yet (or not in the view at all).
        let missed = record.map { dataRowCount == 0 || table.record(ofRow: cursorRow) != $0 } ?? false
        query.awaitedRecord = missed && !query.opensAtTop && !query.showsTop ? record : nil
        placeAwaitedCursor()
        if query.opensAtTop || query.showsTop {
            query.opensAtTop = false
            query.showsTop = false
            moveCursor(toRow: 0, column: cursorColumn)
        }
    }

    /// Esc while a pass runs: stops it; the rows found so far stay.
    func cancelQuery(quietly: Bool = false) {
        guard query.isRunning else { return }
        query.sorted?.cancel()
        query.filtered?.cancel()
        guard !quietly else { return }
        if query.isPending {
            // Stopped before any row came: the view, and what is in force, stay as they were.
            query.filters = query.shown.filters
            query.sortKeys = query.shown.sortKeys
            query.sorted = query.shown.sorted
            query.filtered = query.shown.filtered
            query.showsTop = false
            message = "stopped: the view is as it was"
        } else {
            message = "stopped: the rows found so far stay"
        }
    }

    /// On news: when the source's rows were replaced (a sheet filling in), what was made
    /// from them is made again: the filters and sort run over the new rows (the cursor
    /// stays on its row), matches on screen are looked at again, widths are measured again.
    func takeReplacedRows() {
        guard source.generation != query.sourceGeneration else { return }
        query.sourceGeneration = source.generation
        search.matchCache = [:]
        guard !query.isEmpty else { return }
        query.sorted?.cancel()
        query.sorted = nil
        query.keepsCursorRow = true
        let said = message
        applyQuery(saying: nil)
        if message == nil { message = said }
    }

    /// On news: the passes' progress, and their end.
    func collectQuery() {
        guard query.sorted != nil || query.filtered != nil else { return }
        if query.isPending, let rows = query.rows, rows.count > 0 || rows.isComplete { showQueryRows() }
        placeAwaitedCursor()
        if let failure = query.filtered?.failure {
            message = "filter stopped: " + failure
        } else if case .failed(let reason)? = query.sorted?.phase {
            message = "sort stopped: " + reason
        } else if query.isRunning {
            message = queryProgress
        } else if message?.hasPrefix("filtering") == true || message?.hasPrefix("sorting") == true {
            message = nil
        }
        // The cursor's row keeps its place while rows arrive; the geometry follows.
        sync()
    }

    /// Once the rows are all there, puts the cursor on the record it was on before they
    /// came, if the user has not moved it since (it is then on the first row).
    private func placeAwaitedCursor() {
        guard let record = query.awaitedRecord, query.rows?.isComplete != false else { return }
        query.awaitedRecord = nil
        if cursorRow == 0, let row = table.row(ofRecord: record) { moveCursor(toRow: row, column: cursorColumn) }
    }

    /// `filtering… 45%` or `sorting… 30%`, with how to stop it.
    private var queryProgress: String {
        let pass: (String, (done: Int64, total: Int64))? =
            query.sorted.flatMap { $0.isComplete ? nil : ("sorting", $0.progress) }
            ?? query.filtered.flatMap { $0.isComplete ? nil : ("filtering", $0.progress) }
        guard let (name, progress) = pass else { return "" }
        if name == "sorting", query.sorted?.phase == .merging { return "sorting… merging the sorted runs  (Esc stops)" }
        let percent = Self.percent(progress.done, of: progress.total)
        return "\(name)… \(percent)%  (Esc stops)"
    }

    /// What the status line says is in force: `↓price  2 filters`.
    package var queryNote: String? {
        // What made the rows on screen (new passes' rows replace them when they come).
        let shown = query.shown
        var parts: [String] = []
        if !shown.sortKeys.isEmpty {
            parts.append("sorted by " + shown.sortKeys.map { key in
                let name = name(ofFileColumn: key.column)
                return (name.isEmpty ? "column \(key.column + 1)" : Self.fitting(name, width: 16, keepingEnd: false))
                    + (key.descending ? " ↓" : " ↑")
            }.joined(separator: ", "))
        }
        if !shown.filters.isEmpty { parts.append(Self.counted(shown.filters.count, "filter")) }
        return parts.isEmpty ? nil : parts.joined(separator: "  ")
    }
}

extension Viewer {
    /// True while a filter or sort is still making rows.
    public var isQueryRunning: Bool { query.isRunning }

    /// What Esc means in the grid now: stop a save, a search, or a filter or sort.
    var escapeCommand: Command? {
        if isSaving { return .cancelSave }
        if isSearching { return .cancelSearch }
        if query.isRunning { return .cancelQuery }
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
        query.filters = filters
        query.sortKeys = sortKeys
        query.opensAtTop = true
        if !query.isEmpty { applyQuery(saying: nil) }
    }
}
