import CellStore
import FreezeLayout
import Table
import Testing
@testable import Viewer

/// `Panes` on their own: a table view over rows in memory, no viewer.
@Suite("Panes on their own", .timeLimit(.minutes(30)))
struct PanesOnTheirOwnTests {
    static func table(rows count: Int) -> TableView {
        let rows = MemoryRows(name: "t", columns: ["name", "note"])
        rows.append((1...count).map { Row(cells: ["n\($0)", "line one\nline two"]) })
        rows.finish()
        let table = TableView(source: rows, headerRows: rows.headerRows ?? 1)
        table.fetch(rows: [0..<table.dataRowCount])
        return table
    }

    @Test("the record view steps round the rows saying so, and closes on its row")
    func recordView() throws {
        let table = Self.table(rows: 3)
        let screen = Size(width: 40, height: 10)
        var panes = Panes()
        panes.openRecord(try #require(table.row(2)), row: 2, table: table, screen: screen)
        #expect(panes.apply(.next, table: table, screen: screen) == .said("back to the first record"))
        guard case .record(let page) = panes.mode else { Issue.record("no record view"); return }
        #expect(page.row == 0)
        #expect(panes.apply(.previous, table: table, screen: screen) == .said("round to the last record"))
        #expect(panes.apply(.lineDown, table: table, screen: screen) == .none)
        #expect(panes.apply(.close, table: table, screen: screen) == .closed(row: 2))
        #expect(panes.mode == .grid)
    }

    @Test("help scrolls within its lines and closes; the inspector says what it holds")
    func helpAndInspector() throws {
        let table = Self.table(rows: 1)
        let screen = Size(width: 40, height: 10)
        var panes = Panes()
        panes.openHelp()
        _ = panes.apply(.bottom, table: table, screen: screen)
        let last = HelpPage.lines(Panes.helpText, width: 40).count - Panes.helpHeight(screen)
        #expect(panes.mode == .help(scroll: last))
        _ = panes.apply(.pageDown, table: table, screen: screen)
        #expect(panes.mode == .help(scroll: last), "no further than the last page")
        _ = panes.apply(.close, table: table, screen: screen)
        #expect(panes.mode == .grid)
        panes.openInspector(try #require(table.row(0)), row: 0, column: 1, fileColumn: 1, name: "note", table: table, screen: screen)
        guard case .inspector(let inspector) = panes.mode else { Issue.record("no inspector"); return }
        #expect(inspector.title == "row 1 · note · 17 bytes, 17 characters, 2 lines")
    }
}
