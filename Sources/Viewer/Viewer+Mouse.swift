import FreezeLayout

extension Viewer {
    /// The wheel scrolls the region under the pointer, each band in its own axis (as in
    /// DQK); a press selects the cell, column or row under it, and nothing on blank space.
    func handleMouse(_ event: MouseEvent) {
        // A prompt keeps the mouse from the grid while a line is typed.
        if input.prompt != nil { return }
        if mode != .grid {
            // A pane on top gets the mouse: the wheel scrolls it, and nothing reaches the
            // grid hidden behind it.
            if event.kind != .press {
                for _ in 0..<Self.wheelRows { applyPager(event.kind == .wheelUp ? .lineUp : .lineDown) }
            }
            return
        }
        sync()
        let point = event.position
        let region: Region? = [Region.main, .headerBand, .leftBand, .corner].first { rect(of: $0).contains(point) }
        switch event.kind {
        case .wheelUp, .wheelDown:
            let sign = event.kind == .wheelUp ? -1 : 1
            switch region {
            case .main?: event.isShifted ? scrollColumns(by: sign * Self.sidewaysCells) : scrollRows(by: sign * Self.wheelRows)
            case .headerBand?: scrollColumns(by: sign * Self.sidewaysCells)
            case .leftBand?: scrollRows(by: sign * Self.wheelRows)
            default: break
            }
        case .press:
            guard let region else { return }
            select(at: point, in: region)
        }
    }

    enum Region { case main, headerBand, leftBand, corner }

    func rect(of region: Region) -> Rect {
        switch region {
        case .main: return window.main
        case .headerBand: return window.headerBand
        case .leftBand: return window.leftBand
        case .corner: return window.corner
        }
    }

    /// Scrolls rows (main and the left band); past an end it pulls the sheet.
    private func scrollRows(by rows: Int) {
        window.settle()
        let before = window.offset.y
        let wasHidden = window.isPreambleHidden
        window.scrollLeftBand(by: rows)
        if window.offset.y == before && window.isPreambleHidden == wasHidden {
            window.pull(by: Point(x: 0, y: rows.signum()))
        }
        keepCursorInView()
    }

    /// Scrolls columns (main and the header band); past an end it pulls the sheet.
    private func scrollColumns(by cells: Int) {
        window.settle()
        let before = window.offset.x
        window.scrollHeaderBand(by: cells)
        if window.offset.x == before { window.pull(by: Point(x: cells.signum(), y: 0)) }
        keepCursorInView()
    }

    /// Selects what is under a press; blank overscroll selects nothing.
    private func select(at point: Point, in region: Region) {
        let area = rect(of: region)
        let local = Point(x: point.x - area.minX, y: point.y - area.minY)
        func dataRow() -> Int? {
            let row = window.drawingOffset.y + local.y
            guard row >= scrollingHeaderRows, row < window.contentSize.height else { return nil }
            return row - scrollingHeaderRows + mainFirstRow
        }
        func mainColumn() -> Int? {
            mainMetrics.column(at: window.drawingOffset.x + local.x).map { $0 + frozenColumns }
        }
        switch region {
        case .main:
            guard let row = dataRow(), let column = mainColumn() else { return }
            cursorRow = row
            cursorColumn = column
        case .headerBand:
            guard let column = mainColumn() else { return }
            cursorColumn = column
        case .leftBand:
            guard let row = dataRow() else { return }
            cursorRow = row
        case .corner:
            return
        }
        revealCursor()
    }
}
