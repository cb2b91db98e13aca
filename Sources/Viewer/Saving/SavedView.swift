import Query
import Scan
import Table

/// What a session keeps of a table's view, to take back when the same file is opened
/// again: the cursor's record, the freeze, widths, columns, sort, filters, search and
/// marks, and the rows of a complete sort and filter (so they come back without being
/// made again). Column numbers are the input's; records are numbered with the header.
package struct SavedView {
    package var record: Int?
    /// The input column under the cursor.
    package var cursorColumn = 0
    package var frozenRows: Range<Int> = 0..<0
    package var frozenColumns = 0
    /// Widths the user set, by input column, and the columns shown whole (`_`).
    package var widths: [Int: Int] = [:]
    package var fullWidth: Set<Int> = []
    /// The input columns shown, in order (nil: every column).
    package var columns: [Int]?
    package var sortKeys: [SortKey] = []
    package var filters: [RecordFilter] = []
    package var search: SearchPattern?
    package var marks = MarkSet()
    package var marksOnly = false
    /// The distribution band under the header (`B`), when it is on.
    package var band = false
    /// The rows of the sort and of the filters when they were complete: kept as results.
    package var sorted: SortedRecords?
    package var filtered: FilteredRecords?

    package init() {}

    /// True when nothing but the cursor's place would be taken back.
    package var isPlain: Bool {
        frozenRows.isEmpty && frozenColumns == 0 && widths.isEmpty && fullWidth.isEmpty && columns == nil
            && sortKeys.isEmpty && filters.isEmpty && search == nil && marks.isEmpty && !marksOnly && !band
    }
}

extension Viewer {
    /// What a session keeps of this view; the rows of the sort and filters only when they
    /// are complete and on screen.
    package func savedView() -> SavedView {
        var saved = SavedView()
        saved.record = dataRowCount > 0 && cursorRow < dataRowCount ? table.record(ofRow: cursorRow) : nil
        saved.cursorColumn = max(0, cursorFileColumn)
        saved.frozenRows = frozenDataRows
        saved.frozenColumns = requestedFrozenColumns
        saved.widths = layout.overrides
        saved.fullWidth = layout.fullWidth
        saved.columns = table.columns.shown
        saved.sortKeys = query.sortKeys
        saved.filters = query.filters
        saved.search = search.pattern
        saved.marks = table.marks
        saved.marksOnly = query.marksOnly
        guard !query.isPending, !query.isRunning else { return saved }
        if let sorted = query.sorted, sorted.phase == .done, sorted.keys == query.sortKeys { saved.sorted = sorted }
        if let filtered = query.filtered, filtered.isComplete, filtered.failure == nil, filtered.base === query.sorted,
           query.sorted == nil || saved.sorted != nil {
            saved.filtered = filtered
        }
        return saved
    }

    /// Takes back a view kept by a session of the same file: its results as they were (no
    /// pass runs), or its sort and filters run again when their rows were not kept. What
    /// no longer fits the input (a column past its last) is left out.
    package func restore(saved: SavedView) {
        reconcile()
        let columnsNow = max(table.fileColumnCount, 1)
        layout.restore(overrides: saved.widths.filter { $0.key < columnsNow }, fullWidth: saved.fullWidth.filter { $0 < columnsNow })
        if let columns = saved.columns, !columns.isEmpty, columns.allSatisfy({ (0..<columnsNow).contains($0) }) {
            table.columns = ColumnMap(shown: columns)
        }
        // Records not indexed yet may be marked: they are there once the index reaches them.
        table.marks = MarkSet(saved.marks.records.filter { $0 >= table.headerRows })
        query.showMarksOnly(saved.marksOnly && !table.marks.isEmpty)
        query.ask(filters: saved.filters.filter { ($0.column ?? 0) < columnsNow },
                  sortKeys: saved.sortKeys.filter { $0.column < columnsNow })
        if saved.sorted != nil || saved.filtered != nil {
            query.adopt(sorted: saved.sorted, filtered: saved.filtered)
            query.showPasses()
            makeMarkedRows()
            show(rows: query.rows)
            // From the top, as rows made again land, not where the file's first record went.
            moveCursor(toRow: 0, column: cursorColumn)
        } else if !query.isEmpty {
            // Run again: the file's order stays on screen (never "no rows") until the first
            // rows come, and the cursor then stays on its record.
            applyQuery(saying: nil)
        }
        if let pattern = saved.search { try? search.begin(pattern) }
        reconcile()
        let rows = max(0, dataRowCount)
        let upper = min(saved.frozenRows.upperBound, max(0, rows - 1))
        navigation.freeze(rows: min(saved.frozenRows.lowerBound, upper)..<upper, columns: min(saved.frozenColumns, columnsNow))
        reconcile()
        let column = table.columns.viewColumn(of: saved.cursorColumn) ?? 0
        if let record = saved.record, let row = table.row(ofRecord: record) {
            moveCursor(toRow: row, column: column)
        } else {
            moveCursor(toRow: 0, column: column)
            query.await(record: saved.record)
        }
        message = nil
    }

    /// Takes back a session's view of this file: the filters' rows as they were kept when
    /// they were (over the file's order), else made again. Returns what the status line
    /// says: `restored: sorted by price, 2 filters, 3 marks; Esc-Esc or --fresh starts clean`.
    /// `following`: the file is followed (its rows past what was indexed are read on).
    package func restore(session content: SessionContent, following: Bool = false) -> String {
        var saved = content.view
        let columnsNow = max(table.fileColumnCount, 1)
        // A sort kept as its order: complete at once, no pass (when it is an order of this
        // file's data records, read whole, with keys that fit it).
        if let kept = content.keptSort, let pairs = kept.pairs, let store = table.file, store.isComplete, store.patch.isEmpty,
           !saved.sortKeys.isEmpty, kept.kinds.count == saved.sortKeys.count, saved.sortKeys.allSatisfy({ $0.column < columnsNow }),
           pairs.count == store.rowCount - table.headerRows {
            saved.sorted = SortedRecords(store: store, headerRows: table.headerRows, keys: saved.sortKeys, kinds: kept.kinds,
                                         stored: pairs)
        }
        let filtersFit = (saved.sortKeys.isEmpty || saved.sorted != nil) && !saved.filters.isEmpty && table.file != nil
            && saved.filters.allSatisfy({ ($0.column ?? 0) < columnsNow })
        // Rows kept as a bitmap read block by block (their count known at once), over as
        // many positions as the rows under them.
        if let stored = content.keptBitmap?.bitmap, filtersFit,
           stored.length == (saved.sorted?.count ?? table.file?.rowCount ?? -1) {
            saved.filtered = FilteredRecords(filters: saved.filters, headerRows: table.headerRows, base: saved.sorted, stored: stored)
        } else if let bitmap = content.filterBitmap, filtersFit {
            saved.filtered = FilteredRecords(filters: saved.filters, headerRows: table.headerRows, base: saved.sorted,
                                             words: bitmap.words, length: bitmap.length)
        }
        // Filters whose rows were not kept run again over a sort run again with them.
        if !saved.filters.isEmpty && saved.filtered == nil { saved.sorted = nil }
        // A block the first screen or the cursor's place needed failed its check: those rows
        // are made again (`reconcile` does it as soon as it is found), the cursor on its
        // record meanwhile, as when they were not kept.
        keptCursorRecord = saved.record
        restore(saved: saved)
        let remade = saved.sorted?.stored?.hasFailed == true ? Self.damagedOrder
            : saved.filtered?.stored?.hasFailed == true ? Self.damagedRows : nil
        if remade != nil {
            remakeDamagedResults(quietly: true)
            message = nil
        }
        let note = restoredNote
        let grew = following ? " (followed: read on from where it was left)"
            : content.fileGrew ? " (the file grew: its new rows are read on)" : ""
        let dropped = remade ?? content.dropped
        return (dropped.map { $0 + "; " } ?? "") + "restored" + (note.isEmpty ? "" : ": " + note) + grew
            + "; Esc-Esc or --fresh starts clean"
    }

    static let damagedOrder = "the saved sort order is damaged: sorting again"
    static let damagedRows = "the saved filtered rows are damaged: filtering again"

    /// When the view's sort order or filtered rows are ones kept by a session and a block
    /// of them failed its check (read as the view needed it): they are dropped (the rows
    /// filtered over a damaged order with it) and made again, saying so; meanwhile the
    /// rows under them stay on screen (the intact sort's, or the file's order), the cursor
    /// on the record it was on (`keptCursorRecord`), so no row is shown from damaged
    /// results. What was damaged (the status line says it, unless `quietly`: the caller
    /// does); nil when nothing was.
    @discardableResult
    func remakeDamagedResults(quietly: Bool = false) -> String? {
        let orderFailed = query.sorted?.stored?.hasFailed == true
        guard orderFailed || query.filtered?.stored?.hasFailed == true else { return nil }
        let said = orderFailed ? Self.damagedOrder : Self.damagedRows
        let kept = orderFailed ? nil : query.sorted
        query.adopt(sorted: kept, filtered: nil)
        query.show(ViewQuery.Made(sortKeys: kept == nil ? [] : query.sortKeys, sorted: kept))
        makeMarkedRows()
        show(rows: query.rows)
        if let record = keptCursorRecord, let row = table.row(ofRecord: record) {
            moveCursor(toRow: row, column: cursorColumn)
        }
        applyQuery(saying: quietly ? nil : said)
        return said
    }
    /// What a restored view says it took back: `sorted by price, 2 filters, 3 marks`.
    package var restoredNote: String {
        var parts: [String] = []
        if !query.sortKeys.isEmpty {
            parts.append("sorted by " + query.sortKeys.map { name(ofFileColumn: $0.column) }.joined(separator: ", "))
        }
        if !query.filters.isEmpty { parts.append(Self.counted(query.filters.count, "filter")) }
        if !table.marks.isEmpty { parts.append(Self.counted(table.marks.count, "mark")) }
        if query.marksOnly { parts.append("marked only") }
        if !table.columns.isIdentity { parts.append("columns chosen") }
        if parts.isEmpty, dataRowCount > 0 { parts.append("row \(Self.grouped(table.displayNumber(ofRow: cursorRow)))") }
        return parts.joined(separator: ", ")
    }
}
