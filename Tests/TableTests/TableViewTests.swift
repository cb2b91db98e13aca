import Testing
@testable import CellStore
@testable import Table

/// Rows of CSV with the hard cases in them: quoted line ends, doubled quotes, UTF-8.
private func sampleCSV(rows: Int) -> [UInt8] {
    var text = "id,name,note\n"
    for index in 0..<rows {
        let note = index % 7 == 0 ? "\"two\nlines, \"\"quoted\"\"\"" : "plain \(index)"
        text += "\(index),név\(index),\(note)\n"
    }
    return Array(text.utf8)
}

@Suite("Table view", .timeLimit(.minutes(30)))
struct TableViewTests {
    @Test("a record read alone from its offset equals the same record read through its block")
    func recordAtOffset() throws {
        let store = CellStore(bytes: sampleCSV(rows: 20_000), checkpointSpacing: 4096)
        let checkpoints = try #require(store.recordReader()).checkpoints
        #expect(checkpoints.count > 20)
        // Read alone before any block is cached, then compared with the blocks' rows.
        let alone = checkpoints.map { store.row($0.row, at: $0.offset) }
        #expect(store.statistics.blocksParsed == 0)
        for (checkpoint, alone) in zip(checkpoints, alone) {
            let fresh = store.row(checkpoint.row)
            #expect(alone == fresh, "record \(checkpoint.row) at \(checkpoint.offset)")
        }
    }

    @Test("the plain view reads the store's data rows in order and numbers them as the file does")
    func identity() {
        let store = CellStore(bytes: sampleCSV(rows: 50))
        let view = TableView(source: store, headerRows: 1)
        #expect(view.dataRowCount == 50)
        #expect(view.columnCount == 3)
        #expect(view.record(ofRow: 0) == 1)
        #expect(view.row(ofRecord: 5) == 4)
        #expect(view.displayNumber(ofRow: 9) == 10)
        #expect(String(decoding: view.cell(row: 3, column: 0), as: UTF8.self) == "3")
        #expect(String(decoding: view.headerCell(0, column: 2), as: UTF8.self) == "note")
    }

    @Test("a mapped view shows its records in its order, keeps their numbers, and maps back")
    func mapped() {
        let store = CellStore(bytes: sampleCSV(rows: 50))
        let view = TableView(source: store, headerRows: 1)
        // Data rows 40, 3, 17 (records 41, 4, 18).
        view.show(rows: RecordList([41, 4, 18]))
        view.fetch(rows: [0..<3])
        #expect(view.dataRowCount == 3)
        #expect((0..<3).map { String(decoding: view.cell(row: $0, column: 0), as: UTF8.self) } == ["40", "3", "17"])
        #expect((0..<3).map(view.displayNumber(ofRow:)) == [41, 4, 18])
        #expect(view.row(ofRecord: 4) == 1)
        #expect(view.row(ofRecord: 5) == nil)
        view.show(rows: nil)
        #expect(view.dataRowCount == 50)
    }

    @Test("a column map hides, moves and restores columns, and maps both ways")
    func columns() {
        var map = ColumnMap.all
        #expect(map.fileColumn(2) == 2 && map.viewColumn(of: 2) == 2 && map.isIdentity)
        map.hide(1, of: 4)
        #expect(map.shown == [0, 2, 3] && map.viewColumn(of: 1) == nil && map.viewColumn(of: 3) == 2)
        #expect(map.move(0, by: 1, of: 4) == 1)
        #expect(map.shown == [2, 0, 3])
        map.showAll()
        #expect(map.move(3, by: -1, of: 4) == 2)
        #expect(map.shown == [0, 1, 3, 2])
        #expect(map.move(2, by: 1, of: 4) == 3)
        #expect(map.isIdentity, "moving back to the file's order drops the list")
        var single = ColumnMap(shown: [5])
        single.hide(0, of: 6)
        #expect(single.shown == [5], "the last column stays")
    }
}

@Suite("Column references", .timeLimit(.minutes(30)))
struct ColumnReferenceTests {
    @Test("a name, a name in another case, or a number names a column; anything else says what exists")
    func resolve() throws {
        let names = ["id", "Price", "price", "2020", "note"]
        #expect(try ColumnReference("Price").resolve(in: names) == 1)
        #expect(try ColumnReference("NOTE").resolve(in: names) == 4)
        #expect(try ColumnReference("2020").resolve(in: names) == 3, "a header that is a number is a name first")
        #expect(try ColumnReference("2").resolve(in: names) == 1)
        #expect(throws: ColumnReference.Failure.ambiguous("PRICE", matches: [1, 2])) { try ColumnReference("PRICE").resolve(in: names) }
        #expect(throws: ColumnReference.Failure.outOfRange(9, columns: 5)) { try ColumnReference("9").resolve(in: names) }
        #expect(throws: ColumnReference.Failure.outOfRange(0, columns: 5)) { try ColumnReference("0").resolve(in: names) }
        let unknown = ColumnReference.Failure.unknown("cost", known: names)
        #expect(throws: unknown) { try ColumnReference("cost").resolve(in: names) }
        #expect(unknown.description == "no column 'cost' (columns: 'id', 'Price', 'price', '2020', 'note')")
        #expect(try ColumnReference("3").resolve(in: [], columns: 4) == 2)
    }
}
