import CellStore
import Table
import Testing
@testable import Viewer

@Suite("Where a row number goes", .timeLimit(.minutes(30)))
struct RowTargetTests {
    static func table(rows count: Int, complete: Bool) -> TableView {
        let rows = MemoryRows(name: "t", columns: ["n"])
        rows.append((1...count).map { Row(cells: ["\($0)"]) })
        if complete { rows.finish() }
        return TableView(source: rows, headerRows: rows.headerRows ?? 1)
    }

    @Test("a row that is there, one past the end, and one past what is read so far")
    func targets() {
        let complete = Self.table(rows: 5, complete: true)
        let there = RowTarget(number: 3, table: complete, mayBeEstimated: false)
        #expect(there.row == 2 && there.message == nil)
        let past = RowTarget(number: 9, table: complete, mayBeEstimated: false)
        #expect(past.row == 8 && past.message?(4) == "there are 5 rows", "Navigation clamps it to the last row")
        let loading = RowTarget(number: 9, table: Self.table(rows: 5, complete: false), mayBeEstimated: false)
        #expect(loading.row == 4 && loading.message?(4) == "row 9 is past the 5 rows read so far")
        let zero = RowTarget(number: 0, table: complete, mayBeEstimated: false)
        #expect(zero.row == 0 && zero.message == nil)
    }
}
