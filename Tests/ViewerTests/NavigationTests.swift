import FreezeLayout
import Testing
@testable import Viewer

/// `Navigation` on its own: a `FreezeWindow` and plain row and column counts, no store.
@Suite("Navigation", .timeLimit(.minutes(30)))
struct NavigationTests {
    /// A navigation over `rows` data rows and `columns` columns of 9 cells (10 with the
    /// separator), on a grid of `grid`, with one header row and no left band.
    static func navigation(rows: Int, columns: Int = 6, grid: Size = Size(width: 30, height: 11),
                           headerRecords: Int = 1, bounce: BounceStyle = .all) -> Navigation {
        var navigation = Navigation(window: FreezeWindow(bounds: .zero, leftWidth: 0, headerHeight: 0, contentSize: .zero,
                                                         bounce: bounce),
                                    requestedFrozenColumns: 0)
        reconcile(&navigation, rows: rows, columns: columns, grid: grid, headerRecords: headerRecords)
        return navigation
    }

    static func reconcile(_ navigation: inout Navigation, rows: Int, columns: Int = 6, grid: Size = Size(width: 30, height: 11),
                          headerRecords: Int = 1) {
        let extent = Navigation.Extent(rows: rows, columns: columns, frozenColumns: 0,
                                       main: ColumnMetrics(widths: Array(repeating: 9, count: columns)))
        navigation.reconcile(extent, grid: grid, headerRecords: headerRecords, leftWidth: 0, preambleLines: 0)
    }

    @Test("the cursor stays inside the counts: a go to far away, and counts that shrink")
    func clamping() {
        var subject = Self.navigation(rows: 100)
        subject.go(toRow: 500, column: 40)
        #expect(subject.cursorRow == 99 && subject.cursorColumn == 5)
        #expect(subject.window.visibleRows.contains(99), "the cursor's row is scrolled into view")
        Self.reconcile(&subject, rows: 20, columns: 2)
        #expect(subject.cursorRow == 19 && subject.cursorColumn == 1)
        Self.reconcile(&subject, rows: 0, columns: 0)
        #expect(subject.cursorRow == 0 && subject.cursorColumn == 0)
        subject.go(toRow: -3, column: -1)
        #expect(subject.cursorRow == 0 && subject.cursorColumn == 0)
    }

    @Test("moving past the last row pulls the sheet, holds a frame, then springs back")
    func pullAtTheEnd() {
        var subject = Self.navigation(rows: 3)
        subject.move(toRow: 2, edge: Point(x: 0, y: 1))
        #expect(subject.cursorRow == 2 && !subject.window.isOverscrolled)
        subject.move(toRow: 3, edge: Point(x: 0, y: 1))
        #expect(subject.cursorRow == 2 && subject.window.isOverscrolled && subject.holdFrames == 1)
        subject.tick()
        #expect(subject.window.isOverscrolled, "one frame held")
        for _ in 0..<10 { subject.tick() }
        #expect(!subject.window.isOverscrolled)
        subject.move(toColumn: -1, edge: -1)
        #expect(subject.cursorColumn == 0 && subject.window.offset.x < 0, "past the first column it pulls sideways")
    }

    @Test("a page scrolls main's height and the cursor goes with it; the last page stops at the last row")
    func paging() {
        // 11 lines: one header row, ten of main.
        var subject = Self.navigation(rows: 25)
        subject.page(by: 1)
        #expect(subject.cursorRow == 10 && subject.window.offset.y == 10)
        subject.page(by: 1, fraction: 2)
        #expect(subject.cursorRow == 15 && subject.window.offset.y == 15)
        subject.page(by: 1)
        #expect(subject.cursorRow == 24 && subject.window.offset.y == 15)
        subject.page(by: -1)
        #expect(subject.cursorRow == 14 && subject.window.offset.y == 5)
    }

    @Test("F freezes the rows in view above the cursor, at most half the grid with the header")
    func freezing() {
        var subject = Self.navigation(rows: 100)
        subject.go(toRow: 3, column: 2)
        let leftOut = subject.freezeAtCursor(headerRecords: 1)
        #expect(leftOut == 0 && subject.frozenDataRows == 0..<3 && subject.requestedFrozenColumns == 2)
        #expect(subject.mainFirstRow == 3)
        Self.reconcile(&subject, rows: 100)
        subject.move(toRow: 0, edge: Point(x: 0, y: -1))
        #expect(subject.cursorRow == 3, "the cursor never goes above main")
        subject.go(toRow: 9, column: 0)
        subject.freeze(rows: 0..<0, columns: 0)
        Self.reconcile(&subject, rows: 100)
        let left = subject.freezeAtCursor(headerRecords: 1)
        #expect(subject.frozenDataRows == 5..<9 && left == 5, "room for four rows under the header: \(subject.frozenDataRows)")
    }

    @Test("the wheel scrolls the view and the cursor follows into it")
    func wheel() {
        var subject = Self.navigation(rows: 100)
        subject.scrollRows(by: 30)
        #expect(subject.window.offset.y == 30 && subject.cursorRow == 30)
        subject.scrollColumns(by: 25)
        #expect(subject.cursorColumn >= 3, "the cursor's column is in view: \(subject.cursorColumn)")
        subject.select(at: Point(x: 1, y: 5), in: .main)
        #expect(subject.cursorRow == 34)
    }

    @Test("header rows that do not fit in half the grid scroll above the first data row")
    func scrollingHeaderRows() {
        var subject = Self.navigation(rows: 40, headerRecords: 8)
        #expect(subject.scrollingHeaderRows == 3 && subject.window.headerHeight == 5)
        subject.page(by: 1)
        subject.page(by: -1)
        #expect(subject.cursorRow == 0 && subject.window.offset.y == 0, "the header rows above row 1 show again")
    }
}
