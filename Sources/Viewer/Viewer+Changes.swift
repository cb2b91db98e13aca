import Table

extension Viewer {
    /// `)` and `(`: the cursor to the next (or previous) row its source marks, a diff's
    /// changed, added or removed record, in the view's order.
    ///
    /// - Complexity: a binary search in the plain view; in a sorted or filtered one, the
    ///   view's records are read in batches from the cursor on until a marked one.
    func goToChange(forward: Bool) {
        reconcile()
        guard source.markedRecord(from: 0, forward: true) != nil else {
            message = source.statusNote == nil ? "( and ) go through the changes of a diff (--diff)"
                : "no changes" + (source.isComplete ? "" : " yet")
            return
        }
        guard dataRowCount > 0 else { return }
        let found = table.isMapped ? markedRowInView(forward: forward) : markedRowInSource(forward: forward)
        guard let row = found else {
            let still = source.isComplete ? "" : " yet"
            message = forward ? "no change after this row" + still : "no change before this row"
            return
        }
        markJump()
        moveCursor(toRow: row, column: cursorColumn)
    }

    /// The plain view: the source knows its marked records in order.
    private func markedRowInSource(forward: Bool) -> Int? {
        let record = table.record(ofRow: cursorRow)
        var next = source.markedRecord(from: record, forward: forward)
        // Marked header records are not rows.
        while let found = next, found < options.headerRows {
            next = forward ? source.markedRecord(from: found, forward: true) : nil
        }
        return next.flatMap { table.row(ofRecord: $0) }
    }

    /// A sorted or filtered view: its rows from the cursor's on, a batch at a time.
    private func markedRowInView(forward: Bool) -> Int? {
        guard let rows = table.rows else { return nil }
        let batch = 4096
        var start = forward ? cursorRow + 1 : cursorRow - 1
        while forward ? start < rows.count : start >= 0 {
            let range = forward ? start..<min(rows.count, start + batch) : max(0, start - batch + 1)..<(start + 1)
            let refs = rows.records(in: range)
            let indexes = forward ? Array(refs.indices) : Array(refs.indices.reversed())
            for index in indexes where source.mark(record: refs[index].record, column: -1) != .none {
                return range.lowerBound + index
            }
            start = forward ? range.upperBound : range.lowerBound - 1
        }
        return nil
    }
}
