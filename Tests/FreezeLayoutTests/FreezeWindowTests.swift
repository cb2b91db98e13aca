import Testing
@testable import FreezeLayout

@Suite("Frozen-pane regions", .timeLimit(.minutes(30)))
struct FreezeWindowTests {
    func window(width: Int = 80, height: Int = 23, left: Int = 10, header: Int = 1,
                content: Size = Size(width: 500, height: 1000)) -> FreezeWindow {
        FreezeWindow(bounds: Size(width: width, height: height), leftWidth: left, headerHeight: header, contentSize: content)
    }

    @Test("the four regions tile the grid: corner, header band, left band, main")
    func regions() {
        let grid = window()
        #expect(grid.corner == Rect(x: 0, y: 0, width: 10, height: 1))
        #expect(grid.headerBand == Rect(x: 10, y: 0, width: 70, height: 1))
        #expect(grid.leftBand == Rect(x: 0, y: 1, width: 10, height: 22))
        #expect(grid.main == Rect(x: 10, y: 1, width: 70, height: 22))
    }

    @Test("scrolling main moves both bands: header x and left y always equal main's")
    func synchronized() {
        var grid = window()
        grid.scrollMain(by: Point(x: 13, y: 40))
        #expect(grid.offset == Point(x: 13, y: 40))
        #expect(grid.headerBandOffset == Point(x: 13, y: 0))
        #expect(grid.leftBandOffset == Point(x: 0, y: 40))
    }

    @Test("the header band scrolls x only, the left band y only")
    func bandsScrollTheirAxis() {
        var grid = window()
        grid.scrollHeaderBand(by: 5)
        #expect(grid.offset == Point(x: 5, y: 0))
        grid.scrollLeftBand(by: 7)
        #expect(grid.offset == Point(x: 5, y: 7))
        #expect(grid.headerBandOffset.x == 5)
        #expect(grid.leftBandOffset.y == 7)
    }

    @Test("offsets are clamped to rest; content that fits never scrolls")
    func clamped() {
        var grid = window(content: Size(width: 50, height: 5))
        grid.scrollMain(by: Point(x: 100, y: 100))
        #expect(grid.offset == .zero)
        var big = window()
        big.scrollMain(by: Point(x: 10_000, y: 10_000))
        #expect(big.offset == Point(x: 500 - 70, y: 1000 - 22))
        big.scrollMain(by: Point(x: -20_000, y: -20_000))
        #expect(big.offset == .zero)
    }

    @Test("scrolling to a rectangle moves the least needed")
    func scrollToVisible() {
        var grid = window()
        grid.scrollToVisible(x: 60..<75, rows: 30..<31)
        #expect(grid.offset == Point(x: 5, y: 9))
        grid.scrollToVisible(x: 60..<75, rows: 20..<21)
        #expect(grid.offset == Point(x: 5, y: 9))
        grid.scrollToVisible(x: 2..<4, rows: 3..<4)
        #expect(grid.offset == Point(x: 2, y: 3))
    }

    @Test("frozen bands never take the whole grid", arguments: [(0, 0), (1, 1), (2, 5), (10, 2), (5, 40)])
    func tiny(width: Int, height: Int) {
        let grid = window(width: width, height: height, left: 30, header: 3)
        #expect(grid.leftWidth <= max(0, width - 1))
        #expect(grid.headerHeight <= max(0, height - 1))
        #expect(grid.main.width >= min(1, width))
        #expect(grid.visibleRows.count <= grid.main.height)
    }

    @Test("visible rows are those under main")
    func visibleRows() {
        var grid = window(content: Size(width: 10, height: 100))
        grid.scrollMain(by: Point(x: 0, y: 90))
        #expect(grid.visibleRows == 78..<100)
    }
}

@Suite("Column metrics", .timeLimit(.minutes(30)))
struct ColumnMetricsTests {
    let metrics = ColumnMetrics(widths: [3, 10, 5, 1])

    @Test("positions add each width and a separator")
    func positions() {
        #expect(metrics.positions == [0, 4, 15, 21, 23])
        #expect(metrics.totalWidth == 23)
    }

    @Test("the column under x is found by binary search")
    func columnAt() {
        #expect(metrics.column(at: 0) == 0)
        #expect(metrics.column(at: 3) == 0)
        #expect(metrics.column(at: 4) == 1)
        #expect(metrics.column(at: 22) == 3)
        #expect(metrics.column(at: 23) == nil)
        #expect(metrics.column(at: -1) == nil)
    }

    @Test("visible slices clip the first and last columns")
    func visible() {
        let slices = metrics.visible(offset: 6, width: 12)
        #expect(slices == [
            ColumnSlice(column: 1, screenX: 0, width: 9, clipLeft: 2, fullWidth: 11),
            ColumnSlice(column: 2, screenX: 9, width: 3, clipLeft: 0, fullWidth: 6),
        ])
        #expect(metrics.visible(offset: 0, width: 0).isEmpty)
        #expect(ColumnMetrics(widths: []).visible(offset: 0, width: 10).isEmpty)
    }

    @Test("work per frame does not grow with the column count")
    func manyColumns() {
        let wide = ColumnMetrics(widths: Array(repeating: 7, count: 100_000))
        let slices = wide.visible(offset: 8 * 60_000 + 3, width: 80)
        #expect(slices.count == 11)
        #expect(slices.first?.column == 60_000)
    }
}
