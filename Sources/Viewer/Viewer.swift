import CellStore
import FreezeLayout

/// The viewer's state and its one entry point for change, `handle(_:)`.
///
/// It reads rows from a `CellStore`, keeps the cursor and the frozen-pane geometry, and
/// composes a `Frame` for the terminal (see `Viewer+Frame.swift`). It never touches a
/// terminal, so tests drive it with commands and read the frame as text.
public final class Viewer {
    public let store: CellStore
    public private(set) var options: ViewerOptions
    /// The terminal's size (the grid is this less the status line).
    public private(set) var screenSize: Size
    /// The cursor: a data row (0 is the first row after the header rows) and a column.
    public private(set) var cursorRow = 0
    public private(set) var cursorColumn = 0
    /// The frozen-pane geometry and main's offset.
    public private(set) var window: FreezeWindow
    /// A one-shot message for the status line, cleared by the next command.
    public private(set) var message: String?
    /// True once the user asked to quit.
    public private(set) var isFinished = false

    var sizer = ColumnSizer()
    /// Column widths in use (text only, without separators).
    public private(set) var columnWidths: [Int] = []
    /// Frozen columns that fit on this screen (the rest of the freeze is dropped).
    public private(set) var frozenColumns = 0
    var leftMetrics = ColumnMetrics(widths: [])
    var mainMetrics = ColumnMetrics(widths: [])
    private var layoutKey: [Int] = []

    public init(store: CellStore, options: ViewerOptions = ViewerOptions(), screenSize: Size) {
        self.store = store
        self.options = options
        self.screenSize = screenSize
        self.window = FreezeWindow(bounds: .zero, leftWidth: 0, headerHeight: 0, contentSize: .zero)
        sync()
    }

    /// Rows of data (records after the header rows) known so far.
    public var dataRowCount: Int { max(0, store.rowCount - options.headerRows) }
    /// Columns known so far.
    public var columnCount: Int { max(store.columnCount, 1) }
    /// The record number in the store of data row `row`.
    func record(ofDataRow row: Int) -> Int { row + options.headerRows }

    /// Applies one command.
    public func handle(_ command: Command) {
        // News from the input is not the user's doing: it leaves the message alone.
        if command != .refresh { message = nil }
        switch command {
        case .moveDown: moveCursor(rows: 1)
        case .moveUp: moveCursor(rows: -1)
        case .moveRight: moveCursor(columns: 1)
        case .moveLeft: moveCursor(columns: -1)
        case .pageDown: page(by: 1)
        case .pageUp: page(by: -1)
        case .firstColumn: moveCursor(toColumn: 0)
        case .lastColumn: moveCursor(toColumn: columnCount - 1)
        case .firstRow: moveCursor(toRow: 0)
        case .lastRow:
            moveCursor(toRow: dataRowCount - 1)
            if !store.isComplete {
                message = "still loading: row \(Self.grouped(dataRowCount))+ is the last known so far"
            }
        case .resize(let size):
            screenSize = size
            sync()
            revealCursor()
        case .refresh:
            sync()
        case .quit:
            isFinished = true
        }
    }

    /// Applies the command bound to `key`, if any; returns whether one was.
    @discardableResult
    public func handle(key: Key) -> Bool {
        guard let command = KeyMap.command(for: key) else { return false }
        handle(command)
        return true
    }

    // MARK: Cursor

    private func moveCursor(rows delta: Int) {
        moveCursor(toRow: cursorRow + delta)
    }

    private func moveCursor(toRow row: Int) {
        sync()
        cursorRow = max(0, min(row, dataRowCount - 1))
        revealCursor()
    }

    private func moveCursor(columns delta: Int) {
        moveCursor(toColumn: cursorColumn + delta)
    }

    private func moveCursor(toColumn column: Int) {
        sync()
        cursorColumn = max(0, min(column, columnCount - 1))
        if cursorColumn <= frozenColumns - 1 && column <= 0 {
            window.scroll(to: Point(x: 0, y: window.offset.y))
        }
        revealCursor()
    }

    /// Scrolls one screen and moves the cursor with it, like a pager.
    private func page(by direction: Int) {
        sync()
        let step = max(1, window.main.height - 0) * direction
        let before = window.offset.y
        window.scrollMain(by: Point(x: 0, y: step))
        let moved = window.offset.y - before
        cursorRow = max(0, min(cursorRow + (moved == 0 ? step : moved), dataRowCount - 1))
        revealCursor()
    }

    /// Scrolls the least needed to show the cursor's cell whole.
    func revealCursor() {
        let rows = dataRowCount > 0 ? cursorRow..<(cursorRow + 1) : 0..<0
        var xRange = 0..<0
        if cursorColumn >= frozenColumns, cursorColumn - frozenColumns < mainMetrics.count {
            let span = mainMetrics.span(of: cursorColumn - frozenColumns)
            xRange = span.lowerBound..<(span.upperBound - mainMetrics.separator)
        }
        window.scrollToVisible(x: xRange, rows: rows)
    }

    // MARK: Layout

    /// Brings geometry up to date with the store and the screen.
    func sync() {
        // Make sure the first screen's rows (and the width sample) are parsed, even when
        // the loader has not reached them yet.
        _ = store.row(options.headerRows + max(ColumnSizer.sampleRows, window.offset.y + screenSize.height))
        sizer.update(from: store, headerRows: options.headerRows)
        let count = columnCount
        let grid = gridSize
        let rowNumberWidth = options.showsRowNumbers ? Self.digits(estimatedRowCount) : 0
        let key = [count, grid.width, grid.height, rowNumberWidth, sizer.sampledRecords, options.frozenColumns, options.headerRows]
        if key != layoutKey {
            layoutKey = key
            columnWidths = sizer.widths(count: count, screenWidth: grid.width)
            // Drop frozen columns that would leave main too narrow.
            var frozen = min(options.frozenColumns, count - 1)
            func leftWidths(_ frozen: Int) -> [Int] {
                (options.showsRowNumbers ? [rowNumberWidth] : []) + Array(columnWidths[0..<max(0, frozen)])
            }
            while frozen > 0 && ColumnMetrics(widths: leftWidths(frozen)).totalWidth > grid.width * 3 / 4 {
                frozen -= 1
            }
            frozenColumns = max(0, frozen)
            leftMetrics = ColumnMetrics(widths: leftWidths(frozenColumns))
            mainMetrics = ColumnMetrics(widths: Array(columnWidths[frozenColumns...]))
        }
        let headerHeight = min(options.headerRows, store.rowCount)
        window.relayout(bounds: grid, leftWidth: leftMetrics.totalWidth, headerHeight: options.headerRows > 0 ? max(headerHeight, 1) : 0,
                        contentSize: Size(width: mainMetrics.totalWidth, height: dataRowCount))
        cursorRow = max(0, min(cursorRow, dataRowCount - 1))
        cursorColumn = max(0, min(cursorColumn, count - 1))
    }

    /// The grid's area: the screen less the status line.
    var gridSize: Size { Size(width: screenSize.width, height: max(0, screenSize.height - 1)) }

    /// The final row count as far as it can be guessed now (to size the row-number band
    /// once, not every time the count gains a digit).
    var estimatedRowCount: Int {
        let progress = store.progress
        if !progress.isComplete, let fraction = progress.fractionRead, fraction > 0.01 {
            return Int(Double(dataRowCount) / fraction)
        }
        return dataRowCount
    }

    static func digits(_ value: Int) -> Int {
        max(3, String(max(0, value)).count)
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
