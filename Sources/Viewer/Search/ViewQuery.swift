import CellStore
import Query
import Table

/// The filters and sort in force on screen, and the passes that make their rows.
struct ViewQuery {
    private(set) var filters: [RecordFilter] = []
    private(set) var sortKeys: [SortKey] = []
    /// The pass that sorts, and the one that filters (over the sort, keeping its order).
    private(set) var sorted: SortedRecords?
    private(set) var filtered: FilteredRecords?

    /// `"`: only the marked records of the rows the filters and sort make.
    private(set) var marksOnly = false
    /// Those records, in the order of `base`: made once it is complete (nil until then, and
    /// when the base or the marks change).
    private(set) var marked: RecordList?
    /// What `M` is marking, while its pass runs.
    private(set) var marking: MarkPass?

    /// The rows the filters and sort make: filtered, sorted, or nil for every row in the file's order.
    var base: (any RecordSequence)? { filtered ?? sorted }
    /// The rows shown: the base, or its marked records with `"`.
    var rows: (any RecordSequence)? { marksOnly ? (marked ?? base) : base }

    /// What made the rows on screen. New passes' rows replace them once they have some, so
    /// a sort that is still reading keys leaves the view as it was instead of empty.
    struct Made {
        var filters: [RecordFilter] = []
        var sortKeys: [SortKey] = []
        var sorted: SortedRecords?
        var filtered: FilteredRecords?
    }
    private(set) var shown = Made()
    /// Where the cursor goes when the new passes' rows come on screen.
    private(set) var landing = Landing.record
    /// The record the cursor was on when rows of a filter still running came on screen, if
    /// it was not among them yet: the cursor goes back to it when the pass is done, unless
    /// the user has moved it since.
    private(set) var awaitedRecord: Int?
    /// The source's generation the passes read: when its rows are replaced (a sheet's
    /// newer counts), the passes run again.
    private(set) var sourceGeneration = 0

    /// Where the cursor goes when new rows come on screen; of several asked for before they
    /// come, the last in this order.
    enum Landing: Int, Comparable {
        /// On the record it was on, or back to it once the rows are all there.
        case record
        /// On the same line: the passes ran again over replaced rows (a sheet's newer
        /// counts), where the record it was on is another row.
        case sameLine
        /// On the first row: a new sort's rows show from their top (a user sorts to see the
        /// largest or smallest values; `''` goes back to the record it was on).
        case top
        /// On the first row, and the rows show at once, even before any comes: the view
        /// given on the command line.
        case opening

        static func < (a: Landing, b: Landing) -> Bool { a.rawValue < b.rawValue }
    }

    /// Asks for the cursor to land so when the new rows come (see `Landing`).
    mutating func land(_ wanted: Landing) { landing = max(landing, wanted) }

    /// The landing the rows now coming on screen take; the next rows land on their record.
    mutating func takeLanding() -> Landing {
        defer { landing = .record }
        return landing
    }

    /// True while new passes run whose rows are not on screen yet.
    var isPending: Bool { (filtered ?? sorted) !== (shown.filtered ?? shown.sorted) }

    /// True while a pass is still making rows.
    var isRunning: Bool { (sorted.map { !$0.isComplete } ?? false) || (filtered.map { !$0.isComplete } ?? false) }

    var isEmpty: Bool { filters.isEmpty && sortKeys.isEmpty && !marksOnly }
}

extension ViewQuery {
    /// Starts the passes for the filters and sort in force over `table`'s source. A filter
    /// that cannot be made is taken back: its reason is returned.
    mutating func startPasses(over table: TableView) -> String? {
        marked = nil
        // The filters are made again; the sort only when its keys changed (a sort still
        // running goes on under the new filters).
        // A sort made before the last edits is made again: its offsets are of other bytes.
        let sortChanged = sorted?.keys != sortKeys || sorted?.phase == .cancelled
            || (table.file.map { sorted?.patch.id != $0.patch.id } ?? false)
        if sortChanged { sorted?.cancel() }
        filtered?.cancel()
        if sortKeys.isEmpty {
            sorted = nil
        } else if sortChanged || sorted == nil {
            sorted = startSort(over: table)
        }
        if filters.isEmpty {
            filtered = nil
        } else {
            // A filter on every column looks at the columns shown: a hidden one is out of the view.
            let filters = self.filters.map { filter in
                var filter = filter
                if filter.column == nil { filter.columns = table.columns.shown }
                return filter
            }
            do {
                filtered = try startFilter(filters, over: table)
            } catch {
                let filter = self.filters.removeLast()
                // The reason without the command line's option name.
                let reason = error.description.split(separator: "': ", omittingEmptySubsequences: false).dropFirst().joined(separator: "': ")
                return "\(filter.column == nil ? "&" : "|")\(filter.pattern): " + (reason.isEmpty ? error.description : reason)
            }
        }
        return nil
    }

    /// The sort's pass over the source: a file's bytes, or any other source's rows.
    private func startSort(over table: TableView) -> SortedRecords? {
        if let file = table.file {
            return SortedRecords.start(store: file, headerRows: table.headerRows, keys: sortKeys, wake: table.source.wake)
        }
        return (table.changes.map { $0.sortSnapshot() } ?? table.source.snapshot()).map {
            SortedRecords.start(rows: $0, headerRows: table.headerRows, keys: sortKeys, wake: table.source.wake)
        }
    }

    /// The filters' pass over the source (over the sort's rows when there is one).
    private func startFilter(_ filters: [RecordFilter], over table: TableView) throws(QueryError) -> FilteredRecords? {
        if let file = table.file {
            return try FilteredRecords.start(store: file, headerRows: table.headerRows, filters: filters, over: sorted,
                                             wake: table.source.wake)
        }
        guard let rows = table.source.snapshot() else { return nil }
        return try FilteredRecords.start(rows: rows, headerRows: table.headerRows, filters: filters, over: sorted,
                                         wake: table.source.wake)
    }

    /// Esc before any row of the new passes came: what is in force goes back to what made
    /// the rows on screen. False when their rows are on screen already (they stay).
    mutating func takeBackPending() -> Bool {
        guard isPending else { return false }
        filters = shown.filters
        sortKeys = shown.sortKeys
        sorted = shown.sorted
        filtered = shown.filtered
        if landing == .top { landing = .record }
        return true
    }

    /// `&` / `|` input: a filter added (`!` first: keeps rows where nothing matches), or
    /// every filter cleared when nothing is typed. False when nothing changed.
    mutating func addFilter(_ text: String, column: Int?) -> Bool {
        guard !text.isEmpty else {
            defer { filters = [] }
            return !filters.isEmpty
        }
        let inverted = text.hasPrefix("!") && text.count > 1
        filters.append(RecordFilter(pattern: inverted ? String(text.dropFirst()) : text, column: column, inverted: inverted))
        return true
    }

    /// `[` / `]` (replacing the sort) and `z[` / `z]` (adding a key). False when the sort
    /// in force is that already.
    mutating func sort(by key: SortKey, adding: Bool) -> Bool {
        var keys = adding ? sortKeys.filter { $0.column != key.column } : []
        keys.append(key)
        guard keys != sortKeys else { return false }
        sortKeys = keys
        land(.top)
        return true
    }

    /// Esc while a pass runs: stops it; what to say (nil when nothing ran).
    mutating func cancel() -> String? {
        guard isRunning else { return nil }
        sorted?.cancel()
        filtered?.cancel()
        return takeBackPending() ? "stopped: the view is as it was" : "stopped: the rows found so far stay"
    }

    /// The status line after the passes' news, given what it says now: a failure, the
    /// progress, or what it said (a progress line of theirs cleared once they are done).
    /// Another message (a write's result, a note) stays until the next key: the progress
    /// only takes an empty line or its own.
    func status(after current: String?) -> String? {
        if let failure = filtered?.failure { return "filter stopped: " + failure }
        if case .failed(let reason)? = sorted?.phase { return "sort stopped: " + reason }
        let isOwn = current.map { $0.hasPrefix("filtering") || $0.hasPrefix("sorting") } ?? true
        if isRunning { return isOwn ? progress : current }
        return isOwn ? nil : current
    }

    /// `filtering… 45%` or `sorting… 30%`, with how to stop it.
    var progress: String {
        let pass: (String, (done: Int64, total: Int64))? =
            sorted.flatMap { $0.isComplete ? nil : ("sorting", $0.progress) }
            ?? filtered.flatMap { $0.isComplete ? nil : ("filtering", $0.progress) }
        guard let (name, progress) = pass else { return "" }
        if name == "sorting", sorted?.phase == .merging { return "sorting… merging the sorted runs  (Esc stops)" }
        let percent = Viewer.percent(progress.done, of: progress.total)
        return "\(name)… \(percent)%  (Esc stops)"
    }

    /// What the status line says is in force: `sorted by price ↓  2 filters`, from what
    /// made the rows on screen (`name` gives an input column's name).
    func note(naming name: (Int) -> String) -> String? {
        var parts: [String] = []
        if !shown.sortKeys.isEmpty {
            parts.append("sorted by " + shown.sortKeys.map { key in
                let name = name(key.column)
                return (name.isEmpty ? "column \(key.column + 1)" : Viewer.fitting(name, width: 16, keepingEnd: false))
                    + (key.descending ? " ↓" : " ↑")
            }.joined(separator: ", "))
        }
        if !shown.filters.isEmpty { parts.append(Viewer.counted(shown.filters.count, "filter")) }
        if marksOnly { parts.append("marked only") }
        return parts.isEmpty ? nil : parts.joined(separator: "  ")
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
}

extension ViewQuery {
    /// Asks for these filters and this sort (`applyQuery` starts their passes).
    mutating func ask(filters: [RecordFilter], sortKeys: [SortKey]) {
        self.filters = filters
        self.sortKeys = sortKeys
    }

    /// Adds a filter to those asked for.
    mutating func add(filter: RecordFilter) { filters.append(filter) }

    /// Asks for the file's order (the filters stay).
    mutating func dropSort() { sortKeys = [] }

    /// Takes passes made before (an undo, a kept view) as they are.
    mutating func adopt(sorted: SortedRecords?, filtered: FilteredRecords?) {
        self.sorted = sorted
        self.filtered = filtered
    }

    /// Drops the sort's pass, so the next `applyQuery` makes it again (its rows were replaced).
    mutating func forgetSort() { sorted = nil }

    /// The passes now are what made the rows on screen.
    mutating func showPasses() { shown = Made(filters: filters, sortKeys: sortKeys, sorted: sorted, filtered: filtered) }

    /// `made` made the rows on screen (a kept view's).
    mutating func show(_ made: Made) { shown = made }

    /// `"`: only the marked records shown, or every row again.
    mutating func showMarksOnly(_ on: Bool) { marksOnly = on }

    /// The marked records of the base, once made (nil: to be made again).
    mutating func setMarked(_ records: RecordList?) { marked = records }

    /// `M`'s pass, while it runs (nil once done or stopped).
    mutating func setMarking(_ pass: MarkPass?) { marking = pass }

    /// The record the cursor goes back to when the running pass is done (nil: none).
    mutating func await(record: Int?) { awaitedRecord = record }

    /// The source's generation the passes read.
    mutating func read(generation: Int) { sourceGeneration = generation }
}
