import FreezeLayout
import Table

extension Viewer {
    /// `D`: a diff's old and new tables side by side, or back to one table. Where the
    /// screen cannot hold both halves with their pinned columns, the status line says how
    /// wide it needs to be, rather than drawing halves too narrow to read.
    func toggleSideBySide() {
        if sideBySide.isOn {
            sideBySide.isOn = false
            navigation.revealAfterReconcile()
            return
        }
        guard source is PairedRows else {
            message = "D shows a diff's old and new tables side by side (--diff)"
            return
        }
        let needed = sideBySideNeededWidth
        guard needed <= fullGridWidth else {
            // Short: it is said where the screen is narrow.
            message = "D needs \(needed + screenSize.width - fullGridWidth) columns"
            return
        }
        sideBySide.isOn = true
        // The freeze and the widths are laid out again for a half: the cursor stays in view.
        navigation.revealAfterReconcile()
    }

    /// Whether the two halves still fit (after a resize, or a pinned column widened);
    /// when not, back to one table, said: false then, and the layout is made again.
    func sideBySideFits() -> Bool {
        guard sideBySide.isOn, sideBySideNeededWidth > fullGridWidth else { return true }
        sideBySide.isOn = false
        message = "too narrow: one table"
        return false
    }

    /// The grid width both halves need: each holds the row numbers, the pinned columns
    /// (the marker and the key, as asked) and some of the others.
    var sideBySideNeededWidth: Int {
        let rowNumbers = options.showsRowNumbers ? [Self.digits(estimatedRowCount)] : []
        let pinned = Array(layout.widths.prefix(max(0, min(requestedFrozenColumns, columnCount - 1))))
        return SideBySide.neededWidth(leftWidth: ColumnMetrics(widths: rowNumbers + pinned).totalWidth)
    }
}
