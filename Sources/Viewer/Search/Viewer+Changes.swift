import Table

extension Viewer {
    /// `)` and `(`: the cursor to the next (or previous) row its source marks, a diff's
    /// changed, added or removed record, in the view's order; with a count (`3)`), that
    /// many such rows on, or as far as there are, and the status line says how far.
    ///
    /// - Complexity: a binary search in the plain view per row passed; in a sorted or
    ///   filtered one, the view's records are read in batches from the cursor on.
    func goToChange(forward: Bool, times: Int = 1) {
        reconcile()
        guard table.changes?.markedRecord(from: -1, forward: true) != nil else {
            message = table.changes?.statusNote == nil ? "( and ) go through the changes of a diff (--diff) or the edits"
                : "no changes" + (source.isComplete ? "" : " yet")
            return
        }
        guard dataRowCount > 0 else { return }
        var row = cursorRow
        var passed = 0
        while passed < max(1, times), let next = table.markedRow(from: row, forward: forward) {
            row = next
            passed += 1
        }
        let still = forward && !source.isComplete ? " yet" : ""
        let side = forward ? "after" : "before"
        guard passed > 0 else {
            message = "no change \(side) this row" + still
            return
        }
        markJump()
        moveCursor(toRow: row, column: cursorColumn)
        if passed < times {
            message = "only \(Viewer.grouped(passed)) \(forward ? "more" : "earlier") change\(passed == 1 ? "" : "s")" + still
        }
    }
}
