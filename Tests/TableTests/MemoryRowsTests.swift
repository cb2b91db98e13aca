import Synchronization
import Testing
import CellStore
import Table

/// Counts the rows a part makes (from any thread).
private final class Made: Sendable {
    let count = Atomic<Int>(0)
    func row(_ index: Int) -> Row {
        count.add(1, ordering: .relaxed)
        return Row(cells: ["v\(index)", "\(index * 10)"])
    }
}

@Suite("Rows in memory", .timeLimit(.minutes(30)))
struct MemoryRowsTests {
    @Test("a header, then parts appended: counts, columns and rows as published")
    func appended() {
        let rows = MemoryRows(name: "sheet", columns: ["value", "count"])
        #expect(rows.rowCount == 1 && rows.columnCount == 2 && !rows.isComplete && rows.headerRows == 1 && rows.file == nil)
        rows.append([Row(cells: ["a", "1"]), Row(cells: ["b", "2", "extra"])])
        rows.append(count: 3, columns: 2) { Row(cells: ["m\($0)", "0"]) }
        rows.finish()
        #expect(rows.rowCount == 6 && rows.columnCount == 3 && rows.isComplete)
        #expect((0..<6).map { rows.row($0)?.string(0) } == ["value", "a", "b", "m0", "m1", "m2"])
        #expect(rows.row(6) == nil && rows.row(-1) == nil)
        let batch = rows.rows([RecordRef(record: 4), RecordRef(record: 1), RecordRef(record: 9)])
        #expect(batch.keys.sorted() == [1, 4] && batch[4]?.string(0) == "m1")
        #expect(rows.generation == 0, "adding rows changes no row handed out")
    }

    @Test("a million entries cost nothing until rows are read: a row is made when asked for")
    func madeOnDemand() {
        let made = Made()
        let rows = MemoryRows(name: "sheet", columns: ["value", "count"])
        rows.append(count: 1_000_000, columns: 2) { made.row($0) }
        #expect(rows.rowCount == 1_000_001)
        #expect(made.count.load(ordering: .relaxed) == 0)
        #expect(rows.row(500_001)?.strings == ["v500000", "5000000"])
        _ = rows.row(500_001)
        #expect(made.count.load(ordering: .relaxed) == 1, "a row read again comes from the rows made lately")
    }

    @Test("a snapshot keeps the rows it was taken with while the source is replaced and grows")
    func snapshotIsFixed() throws {
        let rows = MemoryRows(name: "sheet", columns: ["value"])
        rows.append((0..<10).map { Row(cells: ["old\($0)"]) })
        let snapshot = try #require(rows.snapshot())
        rows.replace((0..<3).map { Row(cells: ["new\($0)"]) })
        rows.append([Row(cells: ["later"])])
        #expect(rows.generation == 1)
        #expect(rows.rowCount == 5 && rows.row(1)?.string(0) == "new0" && rows.row(4)?.string(0) == "later")
        #expect(snapshot.count == 11 && snapshot.columnCount == 1)
        #expect(snapshot.row(0)?.string(0) == "value" && snapshot.row(10)?.string(0) == "old9" && snapshot.row(11) == nil)
        var seen: [String] = []
        snapshot.forEachRow(in: 8..<20, batch: 2) { record, row in
            seen.append("\(record):\(row.string(0))")
            return true
        }
        #expect(seen == ["8:old7", "9:old8", "10:old9"])
    }

    @Test("a table view over rows in memory: the plain view, a mapped view, and rows replaced under a mapped view")
    func tableView() {
        let rows = MemoryRows(name: "sheet", columns: ["value", "count"])
        rows.append((0..<50).map { Row(cells: ["v\($0)", "\($0)"]) })
        let view = TableView(source: rows, headerRows: 1)
        #expect(view.dataRowCount == 50 && view.columnCount == 2 && view.file == nil)
        #expect(String(decoding: view.cell(row: 7, column: 0), as: UTF8.self) == "v7")
        #expect(String(decoding: view.headerCell(0, column: 1), as: UTF8.self) == "count")
        #expect(view.displayNumber(ofRow: 7) == 8)
        view.show(rows: RecordList([41, 4, 18]))
        view.fetch(rows: [0..<3])
        #expect((0..<3).map { String(decoding: view.cell(row: $0, column: 0), as: UTF8.self) } == ["v40", "v3", "v17"])
        // The same records, read again after the rows were replaced: never the old batch.
        rows.replace((0..<50).map { Row(cells: ["w\($0)", "\($0)"]) })
        view.fetch(rows: [0..<3])
        #expect((0..<3).map { String(decoding: view.cell(row: $0, column: 0), as: UTF8.self) } == ["w40", "w3", "w17"])
    }
}
