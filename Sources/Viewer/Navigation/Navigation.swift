import FreezeLayout

/// Where the user is and what is in view: the cursor, the freeze, the scroll (a
/// `FreezeWindow`) and the spring-back's pause.
///
/// It is the only writer of the cursor and the freeze: the viewer asks it to move, and it
/// keeps the cursor inside the counts the last `reconcile` gave it. It knows no store, no
/// source and no options (only counts and the main columns' metrics), so it is tested on
/// its own. Where main starts is derived from the freeze, so the two cannot disagree.
struct Navigation {
    /// What moves are bounded by, as the last reconcile found it.
    struct Extent: Equatable {
        /// Data rows in the view, and view columns.
        var rows = 0
        var columns = 0
        /// Frozen columns that fit on the screen, and the scrolling columns' metrics.
        var frozenColumns = 0
        var main = ColumnMetrics(widths: [])
        /// The left band's metrics, and whether its first column is the row numbers.
        var left = ColumnMetrics(widths: [])
        var leftHasRowNumbers = false
    }

    /// The cursor: a view row (0 is the first data row shown) and a view column.
    private(set) var cursorRow = 0
    private(set) var cursorColumn = 0
    /// Data rows frozen under the header rows by `F` (empty unless frozen that way).
    private(set) var frozenDataRows: Range<Int> = 0..<0
    /// Frozen columns asked for (`-c`, or `F`); the layout says what fits.
    private(set) var requestedFrozenColumns: Int
    /// Header rows that do not fit in the band on top: they scroll at the top of main,
    /// above the first data row (derived in `reconcile`).
    private(set) var scrollingHeaderRows = 0
    /// The counts and metrics of the last reconcile.
    private(set) var extent = Extent()
    /// The cursor is to be scrolled into view once the geometry is reconciled (the view
    /// under it changed: widths, the freeze).
    private var revealsCursor = false
    /// The band's line in the header band (under the header records), while it shows.
    private(set) var bandLine: Int?
    /// The cursor is on the band (Up from the first row), in its column.
    private(set) var isOnBand = false
    /// The frozen-pane geometry and main's offset: scrolled here alone.
    private(set) var window: FreezeWindow
    /// Animation frames to wait before the spring-back starts.
    var holdFrames = 0
    /// After `R`, the record and column the cursor was on, when the input read again has
    /// not come that far yet (compressed input is read from its start): the cursor goes
    /// there when they come, unless a key is pressed first.
    var awaited: (record: Int, column: Int)?
    /// The record and input column the cursor was on before the last jump (`''` goes back).
    var jumpedFrom: (record: Int, column: Int)?

    init(window: FreezeWindow, requestedFrozenColumns: Int) {
        self.window = window
        self.requestedFrozenColumns = requestedFrozenColumns
    }

    /// The first data row main shows (rows above it are frozen or out of view).
    var mainFirstRow: Int { frozenDataRows.upperBound }

    // MARK: Reconciling

    /// Takes in the geometry after a command: the grid, the header records there are, the
    /// left region's width, the preamble, and the counts. The band of header rows takes at
    /// most half the grid, so data always shows; the header rows past it scroll at the top
    /// of main (not under a freeze made with F). The distribution band (`showsBand`) is a
    /// line under the header records, when the top half has room for it beside them. The
    /// cursor is clamped to the counts.
    mutating func reconcile(_ extent: Extent, grid: Size, headerRecords: Int, leftWidth: Int, preambleLines: Int,
                            showsBand: Bool = false) {
        self.extent = extent
        var headerRecords = headerRecords
        let band = max(1, grid.height / 2)
        scrollingHeaderRows = 0
        if headerRecords > band && frozenDataRows.isEmpty {
            scrollingHeaderRows = headerRecords - band
            headerRecords = band
        } else if headerRecords > band {
            headerRecords = band
        }
        // The band gives way first: with it, the header records and the frozen rows must
        // all keep their lines above a row of main (the window cuts a taller header band,
        // and the band would be drawn over a frozen row).
        let preamble = window.isPreambleHidden ? 0 : min(max(0, preambleLines), max(0, grid.height - 2))
        let room = grid.height - preamble - 1
        bandLine = showsBand && headerRecords + 1 <= band && headerRecords + 1 + frozenDataRows.count <= room
            && grid.height >= 3 ? headerRecords : nil
        if bandLine == nil { isOnBand = false }
        let bandLines = bandLine == nil ? 0 : 1
        window.relayout(bounds: grid, leftWidth: leftWidth, headerHeight: headerRecords + bandLines + frozenDataRows.count,
                        contentSize: Size(width: extent.main.totalWidth,
                                          height: max(0, extent.rows - mainFirstRow) + scrollingHeaderRows),
                        preambleLines: preambleLines)
        clamp()
        if revealsCursor {
            revealsCursor = false
            revealCursor()
        }
    }

    /// Scrolls the cursor into view at the next reconcile, once the geometry that changed
    /// under it is taken in.
    mutating func revealAfterReconcile() {
        revealsCursor = true
    }

    /// The cursor inside the rows main shows and the columns there are (0 when none).
    private mutating func clamp() {
        cursorRow = max(0, max(mainFirstRow, min(cursorRow, extent.rows - 1)))
        cursorColumn = max(0, min(cursorColumn, extent.columns - 1))
    }

    // MARK: Moving

    /// Moves the cursor to a data row; at the end of the rows it pulls the sheet instead.
    mutating func move(toRow row: Int, edge: Point) {
        if isOnBand {
            // Down from the band is the first row; Up goes on past it, as from the first row.
            isOnBand = edge.y < 0
            if edge.y > 0 {
                revealCursor()
                return
            }
        }
        let target = max(mainFirstRow, min(row, extent.rows - 1))
        if target == cursorRow && edge != .zero {
            if edge.y < 0 && !isOnBand && bandLine != nil && target == mainFirstRow && window.offset.y <= 0 {
                // Up from the first row: onto the band above it.
                isOnBand = true
                return
            }
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
    mutating func move(toColumn column: Int, edge: Int) {
        let target = max(0, min(column, extent.columns - 1))
        if target == cursorColumn && edge != 0 {
            pull(Point(x: edge, y: 0))
            return
        }
        cursorColumn = target
        if cursorColumn == 0 { window.scroll(to: Point(x: 0, y: window.offset.y)) }
        revealCursor()
    }

    /// Puts the cursor on a cell (clamped to the counts), scrolling to it.
    mutating func go(toRow row: Int, column: Int) {
        isOnBand = false
        cursorRow = max(mainFirstRow, min(row, extent.rows - 1))
        cursorColumn = max(0, min(column, extent.columns - 1))
        revealCursor()
    }

    /// Puts the cursor on a row or a column without scrolling (the view under it changed:
    /// the caller reconciles and reveals it).
    mutating func place(row: Int? = nil, column: Int? = nil) {
        if let row {
            cursorRow = row
            isOnBand = false
        }
        if let column { cursorColumn = column }
        clamp()
    }

    /// Moves the cursor down by `rows` with the rows under it (their numbers changed, as
    /// when estimated row numbers become exact), without scrolling.
    mutating func shiftCursor(by rows: Int) {
        cursorRow += rows
    }

    /// Puts main's top at content line `top`, its columns where they are (the same rows
    /// on the same lines after the rows were made again or renumbered).
    mutating func scroll(toLine top: Int) {
        scroll(to: Point(x: window.offset.x, y: top))
    }

    /// Puts main's content offset at `offset` (clamped), the cursor left where it is.
    mutating func scroll(to offset: Point) { window.scroll(to: offset) }

    /// Shows the lines before the table again (`g`).
    mutating func showPreamble() { window.setPreambleHidden(false) }

    /// Ends a pull past an edge at once (the screen was resized).
    mutating func settle() { window.settle() }

    /// Scrolls one screen and moves the cursor with it, like a pager; at an end it pulls.
    mutating func page(by direction: Int, fraction: Int = 1) {
        isOnBand = false
        window.settle()
        let step = max(1, window.main.height / fraction) * direction
        let before = window.offset.y
        let cursorBefore = cursorRow
        window.scrollMain(by: Point(x: 0, y: step))
        let moved = window.offset.y - before
        cursorRow = max(mainFirstRow, min(cursorRow + (moved == 0 ? step : moved), extent.rows - 1))
        if moved == 0 && cursorRow == cursorBefore {
            pull(Point(x: 0, y: direction))
            return
        }
        // Up from the first data row: the header rows above it come into view.
        if direction < 0 && cursorRow == mainFirstRow && scrollingHeaderRows > 0 { return }
        revealCursor()
    }

    /// Scrolls sideways by `cells` characters; the cursor follows into view.
    mutating func scrollSideways(by cells: Int) {
        let before = window.offset.x
        if window.isOverscrolled { window.settle() }
        window.scrollHeaderBand(by: cells)
        if window.offset.x == before { pull(Point(x: cells.signum(), y: 0)) }
        keepCursorInView()
    }

    /// Scrolls rows (main and the left band) by the wheel; past an end it pulls the sheet.
    mutating func scrollRows(by rows: Int) {
        window.settle()
        let before = window.offset.y
        let wasHidden = window.isPreambleHidden
        window.scrollLeftBand(by: rows)
        if window.offset.y == before && window.isPreambleHidden == wasHidden {
            window.pull(by: Point(x: 0, y: rows.signum()))
        }
        keepCursorInView()
    }

    /// Scrolls columns (main and the header band) by the wheel; past an end it pulls.
    mutating func scrollColumns(by cells: Int) {
        window.settle()
        let before = window.offset.x
        window.scrollHeaderBand(by: cells)
        if window.offset.x == before { window.pull(by: Point(x: cells.signum(), y: 0)) }
        keepCursorInView()
    }

    /// Pushes past an edge (bounce), then holds a frame before springing back.
    mutating func pull(_ direction: Point) {
        window.pull(by: direction)
        holdFrames = 1
    }

    /// One animation frame: the pause after a pull, then a step of the spring-back.
    mutating func tick() {
        if holdFrames > 0 {
            holdFrames -= 1
        } else {
            window.springStep()
        }
    }

    /// Scrolls the least needed to show the cursor's cell whole.
    mutating func revealCursor() {
        let mainRow = cursorRow - mainFirstRow + scrollingHeaderRows
        let rows = extent.rows > mainFirstRow ? mainRow..<(mainRow + 1) : 0..<0
        var xRange = 0..<0
        let main = extent.main, frozenColumns = extent.frozenColumns
        if cursorColumn >= frozenColumns, cursorColumn - frozenColumns < main.count {
            let span = main.span(of: cursorColumn - frozenColumns)
            xRange = span.lowerBound..<(span.upperBound - main.separator)
        }
        window.scrollToVisible(x: xRange, rows: rows)
    }

    /// After the view scrolled on its own (wheel, sideways scroll), brings the cursor
    /// onto the nearest row and column in view.
    mutating func keepCursorInView() {
        let visible = window.visibleRows
        if !visible.isEmpty {
            let first = max(0, visible.lowerBound - scrollingHeaderRows) + mainFirstRow
            let last = visible.upperBound - 1 - scrollingHeaderRows + mainFirstRow
            if last >= first { cursorRow = min(max(cursorRow, first), last) }
        }
        let frozenColumns = extent.frozenColumns
        guard cursorColumn >= frozenColumns else { return }
        let slices = extent.main.visible(offset: window.drawingOffset.x, width: window.main.width)
        let whole = slices.filter { $0.clipLeft == 0 && $0.width == $0.fullWidth }
        let inView = (whole.isEmpty ? slices : whole).map { $0.column + frozenColumns }
        if let first = inView.first, let last = inView.last, !inView.contains(cursorColumn) {
            cursorColumn = cursorColumn < first ? first : last
        }
    }

    // MARK: The mouse

    /// The grid's four regions, by where a pointer is.
    enum Region: CaseIterable { case main, headerBand, leftBand, corner }

    func rect(of region: Region) -> Rect {
        switch region {
        case .main: return window.main
        case .headerBand: return window.headerBand
        case .leftBand: return window.leftBand
        case .corner: return window.corner
        }
    }

    /// The region under `point`, if any (main first).
    func region(at point: Point) -> Region? {
        Region.allCases.first { rect(of: $0).contains(point) }
    }

    /// The wheel scrolls the region under the pointer, each band in its own axis (as in
    /// DQK); a press selects the cell, column or row under it, and nothing on blank space.
    mutating func apply(_ event: MouseEvent, wheelRows: Int, sidewaysCells: Int) {
        let point = event.position
        let region = region(at: point)
        switch event.kind {
        case .wheelUp, .wheelDown:
            let sign = event.kind == .wheelUp ? -1 : 1
            switch region {
            case .main?:
                if event.isShifted {
                    scrollColumns(by: sign * sidewaysCells)
                } else {
                    scrollRows(by: sign * wheelRows)
                }
            case .headerBand?: scrollColumns(by: sign * sidewaysCells)
            case .leftBand?: scrollRows(by: sign * wheelRows)
            default: break
            }
        case .press:
            guard let region else { return }
            select(at: point, in: region)
        }
    }

    /// Leaves the band for the first row (the view under it changed).
    mutating func leaveBand() { isOnBand = false }

    /// The frozen column under `x` in the corner or the left band (nil on the row numbers).
    func leftColumn(at x: Int) -> Int? {
        let skipped = extent.leftHasRowNumbers ? 1 : 0
        return extent.left.column(at: x).flatMap { $0 >= skipped ? $0 - skipped : nil }
    }

    /// Selects what is under a press; blank overscroll selects nothing.
    mutating func select(at point: Point, in region: Region) {
        let area = rect(of: region)
        let local = Point(x: point.x - area.minX, y: point.y - area.minY)
        let window = self.window, scrollingHeaderRows = self.scrollingHeaderRows, mainFirstRow = self.mainFirstRow
        let extent = self.extent
        func dataRow() -> Int? {
            let row = window.drawingOffset.y + local.y
            guard row >= scrollingHeaderRows, row < window.contentSize.height else { return nil }
            return row - scrollingHeaderRows + mainFirstRow
        }
        func mainColumn() -> Int? {
            extent.main.column(at: window.drawingOffset.x + local.x).map { $0 + extent.frozenColumns }
        }
        let onBand = bandLine.map { local.y == $0 } ?? false
        switch region {
        case .main:
            guard let row = dataRow(), let column = mainColumn() else { return }
            cursorRow = row
            cursorColumn = column
            isOnBand = false
        case .headerBand:
            guard let column = mainColumn() else { return }
            cursorColumn = column
            // A press on the band puts the cursor there (the viewer opens the histogram).
            if onBand { isOnBand = true }
        case .leftBand:
            guard let row = dataRow() else { return }
            cursorRow = row
            isOnBand = false
        case .corner:
            guard onBand, let column = extent.frozenColumns > 0 ? leftColumn(at: local.x) : nil else { return }
            cursorColumn = column
            isOnBand = true
        }
        revealCursor()
    }

    // MARK: Freezing

    /// Freezes the rows above the cursor (those in view) and the columns left of it.
    /// Frozen rows and `headerRecords` take at most half the grid, as `-r` does, so data
    /// always shows below them: the rows nearest the cursor are the ones kept. Returns how
    /// many rows in view above the cursor were left out for that. The caller reconciles
    /// and reveals the cursor.
    mutating func freezeAtCursor(headerRecords: Int) -> Int {
        isOnBand = false
        let headerRecords = headerRecords + (bandLine == nil ? 0 : 1)
        let firstInView = window.visibleRows.lowerBound + mainFirstRow
        let room = max(0, max(1, window.bounds.height / 2) - headerRecords)
        let wanted = min(firstInView, cursorRow)..<cursorRow
        frozenDataRows = max(wanted.lowerBound, cursorRow - room)..<cursorRow
        requestedFrozenColumns = cursorColumn
        window.scroll(to: Point(x: window.offset.x, y: 0))
        return wanted.count - frozenDataRows.count
    }

    /// Sets the freeze (another viewer's, after `R`; none to unfreeze). The caller
    /// reconciles and reveals the cursor.
    mutating func freeze(rows: Range<Int>, columns: Int) {
        frozenDataRows = rows
        requestedFrozenColumns = columns
    }

    /// Unfreezes the rows (a new row order: frozen rows are view rows); frozen columns stay.
    mutating func unfreezeRows() {
        frozenDataRows = 0..<0
    }
}
