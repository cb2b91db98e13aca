import CellStore
import FreezeLayout

extension Viewer {
    // MARK: Cursor

    /// Moves the cursor to a data row; at the end of the rows it pulls the sheet instead.
    func moveCursor(toRow row: Int, edge: Point) {
        sync()
        let target = max(mainFirstRow, min(row, dataRowCount - 1))
        if target == cursorRow && edge != .zero {
            // Up at the top brings a scrolled-away preamble back before anything bounces.
            if edge.y < 0 && window.preambleLines > 0 && window.isPreambleHidden && window.offset.y <= 0 {
                window.setPreambleHidden(false)
            } else if edge.y < 0 && window.offset.y > 0 && target == mainFirstRow {
                // Header rows that scroll above the first data row come into view.
                window.scrollMain(by: Point(x: 0, y: -1))
            } else {
                pull(edge)
            }
            return
        }
        cursorRow = max(mainFirstRow, target)
        revealCursor()
    }

    /// Moves the cursor to a column; past the first or last column it pulls the sheet.
    func moveCursor(toColumn column: Int, edge: Int) {
        sync()
        let target = max(0, min(column, columnCount - 1))
        if target == cursorColumn && edge != 0 {
            pull(Point(x: edge, y: 0))
            return
        }
        cursorColumn = target
        if cursorColumn == 0 { window.scroll(to: Point(x: 0, y: window.offset.y)) }
        revealCursor()
    }

    /// Scrolls one screen and moves the cursor with it, like a pager; at an end it pulls.
    func page(by direction: Int, fraction: Int = 1) {
        sync()
        window.settle()
        let step = max(1, window.main.height / fraction) * direction
        let before = window.offset.y
        let cursorBefore = cursorRow
        window.scrollMain(by: Point(x: 0, y: step))
        let moved = window.offset.y - before
        cursorRow = max(mainFirstRow, min(cursorRow + (moved == 0 ? step : moved), dataRowCount - 1))
        if moved == 0 && cursorRow == cursorBefore {
            pull(Point(x: 0, y: direction))
            return
        }
        // Up from the first data row: the header rows above it come into view.
        if direction < 0 && cursorRow == mainFirstRow && scrollingHeaderRows > 0 { return }
        revealCursor()
    }

    /// Scrolls sideways by `cells` characters; the cursor follows into view.
    func scrollSideways(by cells: Int) {
        sync()
        let before = window.offset.x
        if window.isOverscrolled { window.settle() }
        window.scrollHeaderBand(by: cells)
        if window.offset.x == before { pull(Point(x: cells.signum(), y: 0)) }
        keepCursorInView()
    }

    /// Pushes past an edge (bounce), then holds a frame before springing back.
    func pull(_ direction: Point) {
        window.pull(by: direction)
        holdFrames = 1
    }

    /// Scrolls the least needed to show the cursor's cell whole.
    func revealCursor() {
        let mainRow = cursorRow - mainFirstRow + scrollingHeaderRows
        let rows = dataRowCount > mainFirstRow ? mainRow..<(mainRow + 1) : 0..<0
        var xRange = 0..<0
        if cursorColumn >= frozenColumns, cursorColumn - frozenColumns < mainMetrics.count {
            let span = mainMetrics.span(of: cursorColumn - frozenColumns)
            xRange = span.lowerBound..<(span.upperBound - mainMetrics.separator)
        }
        window.scrollToVisible(x: xRange, rows: rows)
    }

    /// After the view scrolled on its own (wheel, sideways scroll), brings the cursor
    /// onto the nearest row and column in view.
    func keepCursorInView() {
        let visible = window.visibleRows
        if !visible.isEmpty {
            let first = max(0, visible.lowerBound - scrollingHeaderRows) + mainFirstRow
            let last = visible.upperBound - 1 - scrollingHeaderRows + mainFirstRow
            if last >= first { cursorRow = min(max(cursorRow, first), last) }
        }
        guard cursorColumn >= frozenColumns else { return }
        let slices = mainMetrics.visible(offset: window.drawingOffset.x, width: window.main.width)
        let whole = slices.filter { $0.clipLeft == 0 && $0.width == $0.fullWidth }
        let inView = (whole.isEmpty ? slices : whole).map { $0.column + frozenColumns }
        if let first = inView.first, let last = inView.last, !inView.contains(cursorColumn) {
            cursorColumn = cursorColumn < first ? first : last
        }
    }

    // MARK: Freezing

    /// Freezes the rows above the cursor (those in view) and the columns left of it.
    func freezeAtCursor() {
        sync()
        let firstInView = window.visibleRows.lowerBound + mainFirstRow
        // Frozen rows and header rows take at most half the grid, as `-r` does, so data
        // always shows below them: the rows nearest the cursor are the ones kept.
        let headerRecords = options.headerRows > 0 ? max(min(options.headerRows, source.rowCount), 1) : 0
        let room = max(0, max(1, gridSize.height / 2) - headerRecords)
        let wanted = min(firstInView, cursorRow)..<cursorRow
        frozenDataRows = max(wanted.lowerBound, cursorRow - room)..<cursorRow
        requestedFrozenColumns = cursorColumn
        window.scroll(to: Point(x: window.offset.x, y: 0))
        sync()
        revealCursor()
        let left = wanted.count - frozenDataRows.count
        message = "froze \(Self.counted(frozenDataRows.count + options.headerRows, "row")) and "
            + "\(Self.counted(frozenColumns, "column")) (F again to unfreeze)"
            + (left > 0 ? "; at most half the screen: \(Self.grouped(left)) above left out" : "")
    }

    /// Removes the freeze: only the header rows stay on top.
    func unfreeze() {
        sync()
        frozenDataRows = 0..<0
        requestedFrozenColumns = 0
        sync()
        revealCursor()
        message = "unfrozen"
    }
}
