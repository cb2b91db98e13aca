import FreezeLayout
import Table

extension Viewer {
    /// `D`: a diff's old and new tables side by side, or back to one table (see
    /// `SideBySide`); the freeze and widths are laid out again for it, the cursor in view.
    func toggleSideBySide() {
        message = sideBySide.toggle(isPaired: source is PairedRows, needed: sideBySideNeededWidth, gridWidth: fullGridWidth,
                                    screenWidth: screenSize.width)
        navigation.revealAfterReconcile()
    }

    /// Whether the two halves still fit (after a resize, or a pinned column widened);
    /// when not, back to one table, said: false then, and the layout is made again.
    func sideBySideFits() -> Bool {
        guard let why = sideBySide.keepFitting(needed: sideBySideNeededWidth, gridWidth: fullGridWidth) else { return true }
        message = why
        return false
    }

    /// The grid width both halves need: each holds the row numbers, the pinned columns
    /// (the marker and the key, as asked) and some of the others.
    var sideBySideNeededWidth: Int {
        let rowNumbers = options.showsRowNumbers ? [Self.digits(table.estimatedDataRowCount)] : []
        let pinned = Array(layout.widths.prefix(max(0, min(requestedFrozenColumns, columnCount - 1))))
        return SideBySide.neededWidth(leftWidth: ColumnMetrics(widths: rowNumbers + pinned).totalWidth)
    }
}
