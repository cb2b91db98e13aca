import Table

extension Viewer {
    /// The invariants that do not hold now, in words (empty when all hold).
    package var invariantViolations: [String] { ViewerInvariants.violations(of: self) }
}

/// What must hold in a viewer between any two commands: checked after every step of the
/// tests' random walks, so a command that leaves the viewer inconsistent is caught where
/// it happens. It reads the viewer and its parts; it changes nothing.
enum ViewerInvariants {
    static func violations(of viewer: Viewer) -> [String] {
        let cursorRow = viewer.cursorRow, cursorColumn = viewer.cursorColumn, dataRowCount = viewer.dataRowCount
        let columnCount = viewer.columnCount, mainFirstRow = viewer.mainFirstRow, frozenDataRows = viewer.frozenDataRows
        let frozenColumns = viewer.frozenColumns, requestedFrozenColumns = viewer.requestedFrozenColumns
        let window = viewer.window, layout = viewer.layout, table = viewer.table
        var broken: [String] = []
        func check(_ holds: Bool, _ what: @autoclosure () -> String) { if !holds { broken.append(what()) } }
        if dataRowCount > 0 {
            check(cursorRow >= mainFirstRow && cursorRow < dataRowCount,
                  "cursor row \(cursorRow) outside \(mainFirstRow)..<\(dataRowCount)")
        } else {
            check(cursorRow == 0, "cursor row \(cursorRow) with no rows")
        }
        check(cursorColumn >= 0 && cursorColumn < columnCount, "cursor column \(cursorColumn) of \(columnCount)")
        check(frozenDataRows.upperBound == mainFirstRow, "main starts at \(mainFirstRow), the freeze ends at \(frozenDataRows.upperBound)")
        check(frozenDataRows.lowerBound >= 0 && mainFirstRow <= max(0, dataRowCount), "frozen rows \(frozenDataRows) of \(dataRowCount)")
        check(frozenColumns >= 0 && frozenColumns <= requestedFrozenColumns, "frozen columns \(frozenColumns) > asked \(requestedFrozenColumns)")
        check(frozenColumns < max(columnCount, 1) || columnCount == 1 && frozenColumns == 0,
              "frozen columns \(frozenColumns) leave none of \(columnCount) to scroll")
        check(window.headerBandOffset.x == window.drawingOffset.x, "the header band's x differs from main's")
        check(window.leftBandOffset.y == window.drawingOffset.y, "the left band's y differs from main's")
        check(layout.overrides.values.allSatisfy { $0 >= 1 }, "a column narrower than one cell")
        check(viewer.columnWidths.count == columnCount, "\(viewer.columnWidths.count) widths for \(columnCount) columns")
        check((0..<columnCount).allSatisfy { table.fileColumn($0) >= 0 }, "a view column shows no input column")
        let navigation = viewer.navigation
        check(!navigation.isOnBand || navigation.bandLine != nil, "the cursor on a band that is not shown")
        check(navigation.bandLine == nil || viewer.band.isOn, "a band line with the band off")
        if let line = navigation.bandLine {
            check(line < window.headerHeight, "the band's line \(line) outside a header band of \(window.headerHeight)")
        }
        if viewer.sideBySide.isOn {
            // Both halves are laid out from one geometry, a half wide, and hold the freeze.
            let full = viewer.fullGridWidth, needed = viewer.sideBySideNeededWidth
            check(viewer.source is PairedRows, "side by side over a source without two sides")
            check(viewer.gridSize.width == SideBySide.halfWidth(full) && needed <= full,
                  "side by side on a grid \(full) wide, \(needed) needed")
        }
        return broken
    }
}
