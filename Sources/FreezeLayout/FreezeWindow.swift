/// The four regions of a frozen-pane grid, their scroll offsets, and the one rule that
/// keeps them in step.
///
/// The grid follows DQKFreezeWindowView: the corner (frozen rows × frozen columns) never
/// scrolls; the header band (frozen rows × scrolling columns) follows main along x; the
/// left band (scrolling rows × frozen columns) follows main along y. There is one offset,
/// main's, and the bands read theirs from it, so they can never drift apart.
public struct FreezeWindow: Sendable, Equatable {
    /// The area the grid may use (the terminal less the status line).
    public private(set) var bounds: Size
    /// Width of the left band (row numbers and frozen columns), after fitting.
    public private(set) var leftWidth: Int
    /// Height of the header band (frozen rows), after fitting.
    public private(set) var headerHeight: Int
    /// Main's content: total width of the scrolling columns, and the number of scrolling rows.
    public private(set) var contentSize: Size
    /// Main's content offset: x in character cells, y in rows.
    public private(set) var offset: Point

    /// Lays out a grid. Frozen bands are cut so that main keeps at least one row and one
    /// column whenever the bounds allow it.
    public init(bounds: Size, leftWidth: Int, headerHeight: Int, contentSize: Size, offset: Point = .zero) {
        self.bounds = bounds
        self.leftWidth = max(0, min(leftWidth, bounds.width - 1))
        self.headerHeight = max(0, min(headerHeight, bounds.height - 1))
        self.contentSize = contentSize
        self.offset = .zero
        self.offset = clamped(offset)
    }

    /// The top-left region: frozen rows of the frozen columns.
    public var corner: Rect { Rect(x: 0, y: 0, width: leftWidth, height: headerHeight) }
    /// The header band: frozen rows of the scrolling columns.
    public var headerBand: Rect { Rect(x: leftWidth, y: 0, width: bounds.width - leftWidth, height: headerHeight) }
    /// The left band: scrolling rows of the frozen columns.
    public var leftBand: Rect { Rect(x: 0, y: headerHeight, width: leftWidth, height: bounds.height - headerHeight) }
    /// The main region: scrolling rows of the scrolling columns.
    public var main: Rect {
        Rect(x: leftWidth, y: headerHeight, width: bounds.width - leftWidth, height: bounds.height - headerHeight)
    }

    /// The header band's content offset: main's x, always.
    public var headerBandOffset: Point { Point(x: offset.x, y: 0) }
    /// The left band's content offset: main's y, always.
    public var leftBandOffset: Point { Point(x: 0, y: offset.y) }

    /// The largest offset at rest on each axis (0 when the content fits).
    public var maxOffset: Point {
        Point(x: max(0, contentSize.width - main.width), y: max(0, contentSize.height - main.height))
    }

    /// Rows of main's content that show, by index.
    public var visibleRows: Range<Int> {
        let first = max(0, offset.y)
        let last = min(contentSize.height, offset.y + main.height)
        return first < last ? first..<last : first..<first
    }

    func clamped(_ point: Point) -> Point {
        let limit = maxOffset
        return Point(x: min(max(0, point.x), limit.x), y: min(max(0, point.y), limit.y))
    }

    /// Scrolls main (and with it both bands) by `delta`.
    public mutating func scrollMain(by delta: Point) {
        offset = clamped(Point(x: offset.x + delta.x, y: offset.y + delta.y))
    }

    /// Scrolls the header band along x; main follows, the left band does not move.
    public mutating func scrollHeaderBand(by dx: Int) {
        offset = clamped(Point(x: offset.x + dx, y: offset.y))
    }

    /// Scrolls the left band along y; main follows, the header band does not move.
    public mutating func scrollLeftBand(by dy: Int) {
        offset = clamped(Point(x: offset.x, y: offset.y + dy))
    }

    /// Sets main's offset (clamped to rest).
    public mutating func scroll(to point: Point) {
        offset = clamped(point)
    }

    /// Scrolls the least needed to show the content rectangle `x`×`rows` whole in main
    /// (its left edge wins when it is wider than main), like `scrollRectToVisible`.
    public mutating func scrollToVisible(x: Range<Int>, rows: Range<Int>) {
        var target = offset
        if !x.isEmpty {
            if x.upperBound > target.x + main.width { target.x = x.upperBound - main.width }
            if x.lowerBound < target.x { target.x = x.lowerBound }
        }
        if !rows.isEmpty {
            if rows.upperBound > target.y + main.height { target.y = rows.upperBound - main.height }
            if rows.lowerBound < target.y { target.y = rows.lowerBound }
        }
        offset = clamped(target)
    }

    /// Changes the bounds or the content, keeping the offset where it can.
    public mutating func relayout(bounds: Size, leftWidth: Int, headerHeight: Int, contentSize: Size) {
        self = FreezeWindow(bounds: bounds, leftWidth: leftWidth, headerHeight: headerHeight,
                            contentSize: contentSize, offset: offset)
    }
}
