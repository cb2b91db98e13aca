/// The four regions of a frozen-pane grid, their scroll offsets, and the one rule that
/// keeps them in step.
///
/// The grid follows DQKFreezeWindowView: the corner (frozen rows × frozen columns) never
/// scrolls; the header band (frozen rows × scrolling columns) follows main along x; the
/// left band (scrolling rows × frozen columns) follows main along y. There is one offset,
/// main's, and the bands read theirs from it, so they can never drift apart or echo.
///
/// With a bounce style other than `none` the offset may pass an edge by a few cells
/// (an *overscroll*); `springStep()` brings it back to rest over a few frames. Above the
/// grid there may be a *preamble* (lines before the header) that scrolls away first.
public struct FreezeWindow: Sendable, Equatable {
    /// How far past an edge the offset may go: lines on y, cells on x.
    package static let overscrollCap = Point(x: 6, y: 3)

    /// The area the grid may use (the terminal less the status line).
    package private(set) var bounds: Size
    /// Width of the left band (row numbers and frozen columns), after fitting.
    package private(set) var leftWidth: Int
    /// Height of the header band (frozen rows), after fitting.
    package private(set) var headerHeight: Int
    /// Main's content: total width of the scrolling columns, and the number of scrolling rows.
    package private(set) var contentSize: Size
    /// Main's content offset: x in character cells, y in rows. Past [0, maxOffset] only
    /// while overscrolled.
    package private(set) var offset: Point
    package private(set) var bounce: BounceStyle
    /// Lines of preamble above the grid, and whether they are scrolled away.
    package private(set) var preambleLines: Int
    package private(set) var isPreambleHidden: Bool

    /// Lays out a grid. Frozen bands are cut so that main keeps at least one row and one
    /// column whenever the bounds allow it.
    package init(bounds: Size, leftWidth: Int, headerHeight: Int, contentSize: Size, offset: Point = .zero,
                bounce: BounceStyle = .none, preambleLines: Int = 0, isPreambleHidden: Bool = false) {
        self.bounds = bounds
        self.bounce = bounce
        self.preambleLines = max(0, preambleLines)
        self.isPreambleHidden = isPreambleHidden
        let preamble = isPreambleHidden ? 0 : min(self.preambleLines, max(0, bounds.height - 2))
        self.leftWidth = max(0, min(leftWidth, bounds.width - 1))
        self.headerHeight = max(0, min(headerHeight, bounds.height - preamble - 1))
        self.contentSize = contentSize
        self.offset = .zero
        self.offset = limited(offset)
    }

    // MARK: Regions

    /// Preamble lines on screen now (0 when hidden, or when there is no room).
    package var visiblePreamble: Int {
        isPreambleHidden ? 0 : min(preambleLines, max(0, bounds.height - 2))
    }

    /// How far the whole sheet is pulled right and down (bounce `all` at the left or top
    /// edge): max(0, −offset) on each axis, 0 for the other styles.
    package var shift: Point {
        guard bounce == .all else { return .zero }
        return Point(x: max(0, -offset.x), y: max(0, -offset.y))
    }

    /// The preamble's lines on screen.
    package var preamble: Rect {
        Rect(x: shift.x, y: shift.y, width: bounds.width - shift.x, height: visiblePreamble).clipped(to: bounds)
    }
    /// Where the grid starts: below the preamble, moved by the pull of bounce `all`.
    var gridTop: Int { visiblePreamble + shift.y }

    /// The top-left region: frozen rows of the frozen columns.
    package var corner: Rect {
        Rect(x: shift.x, y: gridTop, width: leftWidth, height: headerHeight).clipped(to: bounds)
    }
    /// The header band: frozen rows of the scrolling columns.
    package var headerBand: Rect {
        Rect(x: shift.x + leftWidth, y: gridTop, width: bounds.width - leftWidth - shift.x, height: headerHeight).clipped(to: bounds)
    }
    /// The left band: scrolling rows of the frozen columns.
    package var leftBand: Rect {
        Rect(x: shift.x, y: gridTop + headerHeight, width: leftWidth,
             height: bounds.height - gridTop - headerHeight).clipped(to: bounds)
    }
    /// The main region: scrolling rows of the scrolling columns.
    package var main: Rect {
        Rect(x: shift.x + leftWidth, y: gridTop + headerHeight, width: bounds.width - leftWidth - shift.x,
             height: bounds.height - gridTop - headerHeight).clipped(to: bounds)
    }
    /// Main's size at rest (no pull), which scrolling limits are measured against.
    var restMain: Size {
        Size(width: bounds.width - leftWidth, height: bounds.height - visiblePreamble - headerHeight)
    }

    /// The offset main's content is drawn from: the offset less the pull, so under
    /// `all` the pulled sheet starts at its first row and column.
    package var drawingOffset: Point { Point(x: offset.x + shift.x, y: offset.y + shift.y) }
    /// The header band's content offset: main's x, always.
    package var headerBandOffset: Point { Point(x: drawingOffset.x, y: 0) }
    /// The left band's content offset: main's y, always.
    package var leftBandOffset: Point { Point(x: 0, y: drawingOffset.y) }

    /// The largest offset at rest on each axis (0 when the content fits).
    package var maxOffset: Point {
        Point(x: max(0, contentSize.width - restMain.width), y: max(0, contentSize.height - restMain.height))
    }

    /// True when the offset is past an edge.
    package var isOverscrolled: Bool { offset != rest(offset) }

    /// Rows of main's content that show, by index (never outside the content).
    package var visibleRows: Range<Int> {
        let first = max(0, drawingOffset.y)
        let last = min(contentSize.height, drawingOffset.y + main.height)
        return first < last ? first..<last : first..<first
    }

    // MARK: Scrolling

    /// The nearest offset at rest.
    func rest(_ point: Point) -> Point {
        let limit = maxOffset
        return Point(x: min(max(0, point.x), limit.x), y: min(max(0, point.y), limit.y))
    }

    /// The offset kept within the overscroll allowed by the bounce style.
    func limited(_ point: Point) -> Point {
        guard bounce != .none else { return rest(point) }
        let limit = maxOffset, cap = FreezeWindow.overscrollCap
        return Point(x: min(max(-cap.x, point.x), limit.x + cap.x), y: min(max(-cap.y, point.y), limit.y + cap.y))
    }

    /// Scrolls main (and with it both bands) by `delta`, at rest. The preamble takes a
    /// downward scroll first (it hides, whole) and comes back with an upward scroll that
    /// reaches the top.
    package mutating func scrollMain(by delta: Point) {
        var delta = delta
        if delta.y > 0 && visiblePreamble > 0 {
            isPreambleHidden = true
            delta.y = 0
        } else if delta.y < 0 && preambleLines > 0 && isPreambleHidden && offset.y + delta.y <= 0 {
            isPreambleHidden = false
        }
        offset = rest(Point(x: offset.x + delta.x, y: offset.y + delta.y))
    }

    /// Scrolls the header band along x; main follows, the left band does not move.
    package mutating func scrollHeaderBand(by dx: Int) {
        offset = rest(Point(x: offset.x + dx, y: offset.y))
    }

    /// Scrolls the left band along y; main follows, the header band does not move.
    package mutating func scrollLeftBand(by dy: Int) {
        scrollMain(by: Point(x: 0, y: dy))
    }

    /// Sets main's offset (at rest).
    package mutating func scroll(to point: Point) {
        offset = rest(point)
    }

    /// Shows or hides the preamble (a jump to the top shows it).
    package mutating func setPreambleHidden(_ hidden: Bool) {
        guard preambleLines > 0 else { return }
        isPreambleHidden = hidden
        offset = rest(offset)
    }

    /// Pushes past an edge (the caller's cursor can go no further that way): the offset
    /// goes to that edge if it is not there yet and past it, each push adding half of
    /// what is left up to the cap (at least one cell), so the sheet resists more the
    /// further it goes. Under `none`, the offset only goes to the edge.
    package mutating func pull(by direction: Point) {
        let limit = maxOffset, cap = FreezeWindow.overscrollCap
        let allowed = bounce != .none
        func pulled(_ value: Int, _ push: Int, _ maximum: Int, _ cap: Int) -> Int {
            if push < 0 {
                guard allowed else { return min(value, 0) }
                let over = max(0, -value)
                return -min(cap, over + max(1, (cap - over + 1) / 2))
            }
            if push > 0 {
                guard allowed else { return max(value, maximum) }
                let over = max(0, value - maximum)
                return maximum + min(cap, over + max(1, (cap - over + 1) / 2))
            }
            return value
        }
        offset = Point(x: direction.x == 0 ? offset.x : pulled(offset.x, direction.x, limit.x, cap.x),
                       y: direction.y == 0 ? offset.y : pulled(offset.y, direction.y, limit.y, cap.y))
    }

    /// One frame of the spring-back: the overscroll halves (rounding towards rest) and
    /// reaches rest exactly. Returns true while still overscrolled.
    @discardableResult
    package mutating func springStep() -> Bool {
        let target = rest(offset)
        offset = Point(x: target.x + (offset.x - target.x) / 2, y: target.y + (offset.y - target.y) / 2)
        return isOverscrolled
    }

    /// Ends any overscroll at once (new input, a resize, a change of style).
    package mutating func settle() {
        offset = rest(offset)
    }

    /// Changes the bounce style; an overscroll in progress snaps back to rest.
    package mutating func setBounce(_ style: BounceStyle) {
        bounce = style
        settle()
    }

    /// Scrolls the least needed to show the content rectangle `x`×`rows` whole in main
    /// (its left edge wins when it is wider than main), like `scrollRectToVisible`.
    /// The preamble hides when the rectangle is below main.
    package mutating func scrollToVisible(x: Range<Int>, rows: Range<Int>) {
        settle()
        if !rows.isEmpty && visiblePreamble > 0 && rows.upperBound > offset.y + restMain.height {
            isPreambleHidden = true
        }
        var target = offset
        let view = restMain
        if !x.isEmpty {
            if x.upperBound > target.x + view.width { target.x = x.upperBound - view.width }
            if x.lowerBound < target.x { target.x = x.lowerBound }
        }
        if !rows.isEmpty {
            if rows.upperBound > target.y + view.height { target.y = rows.upperBound - view.height }
            if rows.lowerBound < target.y { target.y = rows.lowerBound }
        }
        offset = rest(target)
    }

    /// Changes the bounds or the content, keeping the offset where it can. A layout change
    /// ends any overscroll.
    package mutating func relayout(bounds: Size, leftWidth: Int, headerHeight: Int, contentSize: Size, preambleLines: Int) {
        let keepOverscroll = bounds == self.bounds && leftWidth == self.leftWidth && headerHeight == self.headerHeight
            && preambleLines == self.preambleLines
        let previous = offset
        self = FreezeWindow(bounds: bounds, leftWidth: leftWidth, headerHeight: headerHeight, contentSize: contentSize,
                            offset: previous, bounce: bounce, preambleLines: preambleLines, isPreambleHidden: isPreambleHidden)
        if !keepOverscroll { settle() }
    }
}

extension Rect {
    /// This rectangle cut to a `Size` anchored at the origin.
    func clipped(to size: Size) -> Rect {
        intersection(Rect(x: 0, y: 0, width: size.width, height: size.height))
    }
}
