import CellStore
import Foundation
import Testing
import TestSupport
@testable import SQL

@Suite("An answer as rows on screen", .timeLimit(.minutes(30)))
struct QueryRowsTests {
    static let sales = Sales(count: 2500, seed: 5)

    /// Waits for the answer's end, then takes what it published.
    private func finished(_ rows: QueryRows) -> QueryRows {
        rows.waitForEnd()
        rows.update()
        return rows
    }

    private func answer(_ query: String, text: String = sales.csv, limits: QueryRows.Limits = .init()) -> QueryRows {
        let store = CellStore(bytes: Array(text.utf8), name: "sales.csv", delimiter: UInt8(ascii: ","))
        let header = store.row(0)?.strings ?? []
        return finished(QueryRows(query: query, readers: store.recordReaders, header: header, headerRows: 1,
                                  names: SQLNames.tableNames(forPaths: ["sales.csv"])[0], limits: limits, wake: {}))
    }

    private func cells(_ rows: QueryRows) -> [[String]] {
        (1..<rows.rowCount).compactMap { rows.row($0)?.strings }
    }

    @Test("an input wider than SQLite allows is queried over its first columns, and the answer says how many")
    func wideInput() {
        let width = SQLInput.maximumColumns + 3
        let text = (0..<width).map { "h\($0)" }.joined(separator: ",") + "\n" + (0..<width).map(String.init).joined(separator: ",") + "\n"
        let rows = answer("select h0, h\(width - 4) from t", text: text)
        #expect(rows.phase == .done)
        #expect(cells(rows) == [["0", String(width - 4)]])
        #expect(rows.cutColumns?.seen == width - 3 && rows.cutColumns?.of == width)
        #expect(answer("select id from t").cutColumns == nil)
    }

    @Test("the answer's rows, with its columns as the header, as a computation of its own gives them")
    func answerRows() {
        let rows = answer("select city, count(*), sum(id) from sales where price > 100 group by city")
        #expect(rows.phase == .done)
        #expect(rows.row(0)?.strings == ["city", "count(*)", "sum(id)"])
        var expected: [String: (Int, Int)] = [:]
        for sale in Self.sales.sales where (sale.price ?? 0) > 100 {
            expected[sale.city, default: (0, 0)].0 += 1
            expected[sale.city, default: (0, 0)].1 += sale.id
        }
        let keys = expected.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(cells(rows) == keys.map { [$0, String(expected[$0]!.0), String(expected[$0]!.1)] })
        #expect(rows.rowidColumn == nil)
        let snapshot = rows.snapshot()
        #expect(snapshot?.count == rows.rowCount && snapshot?.row(1) == rows.row(1))
    }

    @Test("rowid of t, and of the stem, is found as the rowid; an expression of it is not")
    func rowid() {
        let rows = answer("select name_of_city, rowid from (select city as name_of_city, rowid from t) where rowid < 4")
        #expect(rows.rowidColumn == 1)
        #expect(cells(rows).map { $0[1] } == ["1", "2", "3"])
        #expect(answer("select rowid, city from sales limit 2").rowidColumn == 0)
        #expect(answer("select rowid + 0, city from t limit 2").rowidColumn == nil)
    }

    @Test("an empty answer, a statement with no columns, an error before the columns")
    func endings() {
        let empty = answer("select * from t where price > 1e9")
        #expect(empty.phase == .done && empty.rowCount == 1 && empty.columns == ["id", "country", "city", "price", "note"])
        let none = answer("begin")
        #expect(none.phase == .done && none.columns == [])
        let refused = answer("create temp table x as select 1")
        #expect(refused.phase == .failed(.refused("CREATE TEMP TABLE")) && refused.columns == nil)
        let wrong = answer("select nope from t")
        #expect(wrong.phase == .failed(.query("no such column: nope (columns of t: id, country, city, price, note; sales: id, country, city, price, note)")))
        #expect(wrong.rowCount == 0 && wrong.columns == nil)
    }

    @Test("past the limit the statement stops and says so; memory holds the first rows only")
    func limit() {
        var fewRows = QueryRows.Limits()
        fewRows.rows = 1000
        let rows = answer("select id from t", limits: fewRows)
        #expect(rows.phase == .cut)
        #expect(cells(rows) == (1...1000).map { [String($0)] })
        var fewBytes = QueryRows.Limits()
        fewBytes.bytes = 10_000
        let small = answer("select note from t", limits: fewBytes)
        #expect(small.phase == .cut && small.answerRowCount < 200 && small.answerRowCount > 50)
    }

    @Test("a query over an input still loading waits for it and answers over every row; a cancel stops one that waits")
    func growingInput() throws {
        let input = try PipedInput()
        input.write("id,name\n" + (1...1200).map { "\($0),n\($0)\n" }.joined())
        let rows = QueryRows(query: "select count(*), sum(id) from t", readers: input.store.recordReaders, header: ["id", "name"],
                             headerRows: 1, names: ["t"], settings: .tiny(pieceBytes: 4096), wake: {})
        input.write((1201...5000).map { "\($0),n\($0)\n" }.joined())
        input.close()
        _ = finished(rows)
        #expect(cells(rows) == [["5000", String((1...5000).reduce(0, +))]])

        let open = try PipedInput()
        open.write("id\n1\n")
        let waiting = QueryRows(query: "select count(*) from t", readers: open.store.recordReaders, header: ["id"], headerRows: 1,
                                names: ["t"], wake: {})
        waiting.cancel()
        _ = finished(waiting)
        #expect(waiting.phase == .cancelled)
    }

    @Test("while the statement reads and no row comes, the answer still wakes its owner: the progress can show")
    func progressWakes() throws {
        let input = try PipedInput()
        defer { input.close() }
        input.write("id,name\n" + (1...1200).map { "\($0),n\($0)\n" }.joined())
        let wakes = DispatchSemaphore(value: 0)
        let rows = QueryRows(query: "select sum(id) from t", readers: input.store.recordReaders, header: ["id", "name"],
                             headerRows: 1, names: ["t"], settings: .tiny(pieceBytes: 4096), wake: { wakes.signal() })
        // Past 4 MiB, a scan of an input still loading takes the pieces the index has passed.
        input.write((1201...500_000).map { "\($0),n\($0)\n" }.joined())
        // The columns' wake, then (the input still open, so no row and no end) the reading's.
        var count = 0
        _ = turn(pausing: {}, { if wakes.wait(timeout: .now() + .seconds(1)) == .success { count += 1 } }, until: { count >= 2 })
        #expect(count == 2)
        #expect(rows.inputRead.bytes > 0)
        rows.update()
        #expect(rows.phase == .running && rows.answerRowCount == 0)
    }
}
