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
        let found = table.markedRow(from: cursorRow, forward: forward)
        guard let row = found else {
            let still = source.isComplete ? "" : " yet"
            message = forward ? "no change after this row" + still : "no change before this row"
            return
        }
        markJump()
        moveCursor(toRow: row, column: cursorColumn)
    }
}
