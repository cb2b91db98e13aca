import CellStore
import Query
import Table

/// Marks (`m`, `M`, `` ` ``, `~`, `"`): records the user picks out, kept by record, so
/// they stay on their records through sorts, filters and column changes.
extension Viewer {
    /// `m`: marks the cursor's record, or unmarks it.
    func toggleMark() {
        guard dataRowCount > 0, cursorRow < dataRowCount else { return }
        let record = table.record(ofRow: cursorRow)
        guard record >= 0 else { return }
        let marked = table.marks.toggle(record)
        message = (marked ? "marked" : "unmarked") + ": " + Self.counted(table.marks.count, "mark")
        marksChanged()
    }

    /// `M` input: marks every record of the view where a shown cell matches `text` (in a
    /// pass over the view); nothing typed clears every mark.
    func markMatching(_ text: String) {
        query.setMarking(nil)
        guard !text.isEmpty else {
            let had = table.marks.count
            table.marks.removeAll()
            message = had == 0 ? "no marks to clear" : "marks cleared (\(Self.counted(had, "mark")))"
            marksChanged()
            return
        }
        do {
            guard let pass = try MarkPass.start(text, over: table) else {
                message = "M cannot read these rows again to mark them"
                return
            }
            query.setMarking(pass)
            collectMarking()
        } catch {
            let reason = error.description.split(separator: "': ", omittingEmptySubsequences: false).dropFirst().joined(separator: "': ")
            message = "M \(text): " + (reason.isEmpty ? error.description : reason)
        }
    }

    /// On news: `M`'s pass, and the marks it found once it is done.
    func collectMarking() {
        guard let pass = query.marking else { return }
        guard pass.isComplete else {
            message = pass.progress
            return
        }
        query.setMarking(nil)
        let found = pass.records()
        let added = table.marks.insert(contentsOf: found)
        message = found.isEmpty ? "no row matches \(pass.pattern)"
            : "marked \(Self.counted(added, "row")) more: \(Self.counted(table.marks.count, "mark"))"
        marksChanged()
    }

    /// `` ` `` and `~`: the `times`th next (or previous) marked row in the view's order,
    /// wrapping around at the end.
    func goToMark(forward: Bool, times: Int = 1) {
        guard !table.marks.isEmpty else {
            message = "no marks: m marks the cursor's row, M the rows that match"
            return
        }
        var row = cursorRow
        var wrapped = false
        for _ in 0..<max(1, times) {
            if let next = markedRow(from: row, forward: forward) {
                row = next
            } else if let next = markedRow(from: forward ? -1 : dataRowCount, forward: forward) {
                row = next
                wrapped = true
            } else {
                message = "no marked row in this view (" + Self.counted(table.marks.count, "mark") + ")"
                return
            }
        }
        markJump()
        moveCursor(toRow: row, column: cursorColumn)
        if wrapped { message = forward ? "wrapped to the first marked row" : "wrapped to the last marked row" }
    }

    /// The view row of the first marked record after view row `row` (or before it).
    private func markedRow(from row: Int, forward: Bool) -> Int? {
        let marks = table.marks
        guard let rows = table.rows else {
            // The file's order: the marks are in it already.
            let record = row < 0 ? -1 : row >= dataRowCount ? Int.max - 1 : table.record(ofRow: row)
            guard var next = marks.mark(after: max(record, table.headerRows - 1), forward: forward) else { return nil }
            if !forward && next < table.headerRows { return nil }
            next -= table.headerRows
            return next < dataRowCount ? next : nil
        }
        if marks.count <= Self.markLookups {
            // Few marks: each one's row, by the view's own look-up.
            let places = marks.records.compactMap { rows.index(of: $0) }.filter { $0 < rows.count }
            return forward ? places.filter { $0 > row }.min() : places.filter { $0 < row }.max()
        }
        // Many: the view's rows, a batch at a time from the cursor's on.
        let batch = 4096
        var start = forward ? row + 1 : row - 1
        while forward ? start < rows.count : start >= 0 {
            let range = forward ? start..<min(rows.count, start + batch) : max(0, start - batch + 1)..<(start + 1)
            let refs = rows.records(in: range)
            let indexes = forward ? Array(refs.indices) : Array(refs.indices.reversed())
            for index in indexes where marks.contains(refs[index].record) { return range.lowerBound + index }
            start = forward ? range.upperBound : range.lowerBound - 1
        }
        return nil
    }

    /// Marks up to this many are found in a sorted or filtered view one by one (a sort's
    /// look-up reads about 25 records); more, by reading the view's order through.
    static var markLookups: Int { 64 }

    /// `"`: only the marked rows (of those the filters and sort keep), or all again.
    func toggleMarkedOnly() {
        if !query.marksOnly && table.marks.isEmpty {
            message = "no marks: m marks the cursor's row, M the rows that match"
            return
        }
        query.showMarksOnly(!query.marksOnly)
        query.setMarked(nil)
        makeMarkedRows()
        show(rows: query.rows)
        message = query.marksOnly ? "only the marked rows: \(Self.counted(dataRowCount, "row"))  (\" again: all)"
            : "every row again, marks kept"
    }

    /// After the marks changed: the rows `"` keeps are made again, the cursor staying on
    /// its line.
    func marksChanged() {
        guard query.marksOnly else { return }
        let line = cursorRow
        query.setMarked(nil)
        makeMarkedRows()
        show(rows: query.rows)
        moveCursor(toRow: min(line, max(0, dataRowCount - 1)), column: cursorColumn)
    }

    /// With `"`: the marked records in the order of the rows under them, once those are
    /// all known.
    func makeMarkedRows() {
        guard query.marksOnly, query.marked == nil else { return }
        let base = query.base
        guard base?.isComplete != false else { return }
        query.setMarked(Self.markedRecords(table.marks, over: base, headerRows: table.headerRows))
    }

    /// The records of `marks` that `base` shows (every data record when nil), in its order.
    static func markedRecords(_ marks: MarkSet, over base: (any RecordSequence)?, headerRows: Int) -> RecordList {
        guard let base else { return RecordList(Array(marks.marks(in: headerRows..<Int.max))) }
        if marks.count <= markLookups {
            let places = marks.records.compactMap { base.index(of: $0) }.filter { $0 < base.count }.sorted()
            return RecordList(refs: places.compactMap { base.records(in: $0..<($0 + 1)).first })
        }
        var refs: [RecordRef] = []
        var start = 0
        while start < base.count {
            let batch = base.records(in: start..<min(base.count, start + 65_536))
            refs.append(contentsOf: batch.filter { marks.contains($0.record) })
            start += 65_536
        }
        return RecordList(refs: refs)
    }
}

extension Viewer {
    /// Esc Esc: the view as a fresh open shows it: every record in the file's order, every
    /// column at its sampled width, the command line's freeze, no search, no mark.
    func startClean() {
        query.setMarking(nil)
        query.sorted?.cancel()
        query.filtered?.cancel()
        let generation = query.sourceGeneration
        query = ViewQuery()
        query.read(generation: generation)
        table.marks.removeAll()
        show(rows: nil, columns: .all)
        layout.adopt(ColumnLayout())
        navigation.freeze(rows: 0..<0, columns: options.frozenColumns)
        search.clear()
        reconcile()
        moveCursor(toRow: 0, column: 0)
        message = "a clean view: the file's order, every column, no freeze, no marks"
    }
}
