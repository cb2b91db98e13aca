import CellStore
import FreezeLayout

extension Viewer {
    // MARK: Freezing

    /// Freezes the rows above the cursor (those in view) and the columns left of it.
    func freezeAtCursor() {
        let left = navigation.freezeAtCursor(headerRecords: headerRecords)
        // The message says what of the freeze fits.
        navigation.revealAfterReconcile()
        reconcile()
        message = "froze \(Self.counted(frozenDataRows.count + options.headerRows, "row")) and "
            + "\(Self.counted(frozenColumns, "column")) (F again to unfreeze)"
            + (left > 0 ? "; at most half the screen: \(Self.grouped(left)) above left out" : "")
    }

    /// Removes the freeze: only the header rows stay on top.
    func unfreeze() {
        navigation.freeze(rows: 0..<0, columns: 0)
        navigation.revealAfterReconcile()
        message = "unfrozen"
    }
}
