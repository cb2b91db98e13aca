import TestSupport
import Testing
@testable import CellStore

/// No cell or record is held whole without limit, and streaming hands out every byte.
@Suite("Bounded parsing", .timeLimit(.minutes(30)))
struct BoundedParsingTests {
    func cells(_ rows: [Row]) -> [[[UInt8]]] {
        rows.map { row in (0..<row.count).map { Array(row.field($0)) } }
    }

    @Test("a long cell keeps its start, says it was cut, and the next record is whole", arguments: [1, 7, 4096])
    func clipped(slice: Int) throws {
        for quoted in [false, true] {
            let long = String(repeating: "x", count: 10_000)
            let text = (quoted ? "a,\"\(long)\",after\n" : "a,\(long),after\n") + "b,c\n"
            let rows = try RecordParser.records(in: Array(text.utf8), dialect: Dialect(), limits: .init(cell: 100, slice: slice))
            #expect(rows.count == 2)
            #expect(rows[0].string(0) == "a")
            #expect(rows[0].field(1).count <= 100 && rows[0].field(1).count >= 50)
            #expect(rows[0].clipped == [1])
            #expect(rows[0].count == 3 && rows[0].string(2) == "after", "the cell after a clipped one is whole")
            #expect(rows[1].strings == ["b", "c"])
            #expect(!rows[1].isCut)
        }
    }

    @Test("a cell of doubled quotes stays bounded whatever the slices' phase", arguments: [2, 3, 4, 5])
    func doubledQuotes(slice: Int) throws {
        let text = "\"" + String(repeating: "\"\"", count: 5000) + "\",z\n"
        let rows = try RecordParser.records(in: Array(text.utf8), dialect: Dialect(), limits: .init(cell: 64, slice: slice))
        #expect(rows[0].field(0).count == 64)
        #expect(rows[0].field(0).allSatisfy { $0 == 0x22 })
        #expect(rows[0].string(1) == "z")
        let parser = try RecordParser(dialect: Dialect(), streams: true, limits: .init(cell: 64, slice: slice))
        parser.parse(Array(text.utf8)[...])
        parser.finish()
        let pieces = parser.takeRecords()
        #expect(pieces.count > 10)
        #expect(pieces.allSatisfy { $0.bytes.count <= 64 + slice + 1 })
        #expect(pieces.reduce(0) { $0 + $1.field(0).count } == 5000)
    }

    @Test("a cut never splits a character")
    func characterBoundary() throws {
        let text = "\"" + String(repeating: "é中😀", count: 2000) + "\"\nz\n"
        for limit in 95...105 {
            let rows = try RecordParser.records(in: Array(text.utf8), dialect: Dialect(), limits: .init(cell: limit, slice: 13))
            let cell = rows[0].field(0)
            #expect(String(validating: cell, as: UTF8.self) != nil, "limit \(limit)")
            #expect(cell.count <= limit)
            #expect(rows[1].strings == ["z"])
        }
    }

    @Test("text after a closing quote counts against the cell's limit")
    func strayTextClipped() throws {
        let text = "\"ab\"" + String(repeating: "y", count: 5000) + ",c\nd\n"
        let rows = try RecordParser.records(in: Array(text.utf8), dialect: Dialect(), limits: .init(cell: 64, slice: 5))
        #expect(rows.count == 2)
        #expect(rows[0].field(0).count <= 64)
        #expect(rows[0].string(0).hasPrefix("abyyy"))
        #expect(rows[0].string(1) == "c")
        #expect(rows[0].clipped == [0])
    }

    @Test("cells past the limit per record are counted, not kept")
    func manyCells() throws {
        let text = String(repeating: "a,", count: 5000) + "end\nnext\n"
        let rows = try RecordParser.records(in: Array(text.utf8), dialect: Dialect(), limits: .init(cells: 100))
        #expect(rows[0].count == 100)
        #expect(rows[0].omittedCells == 4901)
        #expect(rows[1].strings == ["next"])
    }

    @Test("a record of more fields than the old cap of 65,536 keeps every one")
    func wideRecord() throws {
        let text = (0..<70_000).map(String.init).joined(separator: ",") + "\nnext\n"
        let rows = try RecordParser.records(in: Array(text.utf8), dialect: Dialect())
        #expect(rows[0].count == 70_000)
        #expect(rows[0].omittedCells == 0 && !rows[0].isCut)
        #expect(rows[0].string(69_999) == "69999")
        #expect(rows[1].strings == ["next"])
    }

    @Test("streaming keeps every field of a very wide record, a bounded piece at a time", arguments: [1 << 16, 1000])
    func wideRecordStreams(pieceCells: Int) throws {
        let count = RecordParser.Limits.fieldLimit + 5000
        let text = (0..<count).map { String($0 % 1000) }.joined(separator: ",") + "\nnext\n"
        let parser = try RecordParser(dialect: Dialect(), streams: true, limits: .init(pieceCells: pieceCells))
        parser.parse(Array(text.utf8)[...])
        parser.finish()
        var fields: [String] = []
        var records = 0
        var pieces = 0
        for row in parser.takeRecords() {
            #expect(row.count <= pieceCells + 1)
            #expect(row.omittedCells == 0)
            var cells = row.strings
            if row.continuesPrevious { fields[fields.count - 1] += cells.removeFirst() }
            fields += cells
            if row.continuesInNext { pieces += 1 } else { records += 1 }
            if records == 1 && !row.continuesInNext {
                #expect(fields.count == count)
                #expect(fields == (0..<count).map { String($0 % 1000) })
                fields = []
            }
        }
        #expect(records == 2 && fields == ["next"])
        #expect(pieces >= count / pieceCells)
    }

    @Test("streaming hands out a record of many middling cells by its bytes")
    func streamsByBytes() throws {
        let cell = String(repeating: "m", count: 900)
        let text = Array(repeating: cell, count: 50).joined(separator: ",") + "\n"
        let parser = try RecordParser(dialect: Dialect(), streams: true, limits: .init(cell: 1000, record: 5000))
        parser.parse(Array(text.utf8)[...])
        parser.finish()
        let rows = parser.takeRecords()
        #expect(rows.allSatisfy { $0.bytes.count <= 5000 + 1000 })
        #expect(rows.reduce(0) { $0 + $1.bytes.count } == 50 * 900)
    }

    @Test("the index names the first record with more fields than a row keeps")
    func tooWideRecord() {
        let wide = String(repeating: "a,", count: RecordParser.Limits.fieldLimit) + "end\n"
        let store = CellStore(bytes: Array(("h\n1\n" + wide + "2\n" + wide).utf8))
        #expect(store.progress.tooWideRecord == 2)
        #expect(store.row(2)?.count == RecordParser.Limits.fieldLimit)
        #expect(store.row(2)?.omittedCells == 1)
        #expect(store.row(3)?.strings == ["2"])
        let narrow = CellStore(bytes: Array("a,b\n1,2".utf8))
        #expect(narrow.progress.tooWideRecord == nil)
        let last = CellStore(bytes: Array(("h\n" + wide.dropLast()).utf8))
        #expect(last.progress.tooWideRecord == 1)
    }

    @Test("a record's bytes stay bounded however many cells it has")
    func manyCellsBounded() throws {
        let text = (0..<20_000).map { _ in String(repeating: "q", count: 100) }.joined(separator: ",") + "\n"
        let rows = try RecordParser.records(in: Array(text.utf8), dialect: Dialect(),
                                            limits: .init(cell: 1000, record: 5000, smallCell: 20))
        #expect(rows[0].count == 20_000)
        #expect(rows[0].bytes.count <= 10_000 + 20 + 20_000 * 16)
        #expect(rows[0].field(19_999).count == 16)
    }

    @Test("a record keeps at most its budget of bytes")
    func recordBudget() throws {
        let text = (0..<50).map { _ in String(repeating: "z", count: 1000) }.joined(separator: ",") + "\n"
        let rows = try RecordParser.records(in: Array(text.utf8), dialect: Dialect(),
                                            limits: .init(cell: 1000, record: 5000, smallCell: 20))
        #expect(rows[0].count == 50)
        #expect(rows[0].bytes.count <= 5000 + 45 * 20)
        #expect(rows[0].field(0).count == 1000)
        #expect(rows[0].field(49).count == 20)
    }

    @Test("streaming hands out every byte: pieces put together give the reference", arguments: [1, 3, 64])
    func streamingAgrees(slice: Int) throws {
        for seed in 0..<120 {
            var bytes = hostileCSV(length: 200 + (seed * 91) % 3000, seed: UInt64(seed) &* 65537 &+ UInt64(slice))
            if seed % 3 == 0 { bytes += Array(("\"" + String(repeating: "long,\"\"", count: 50) + "\"tail" + String(repeating: "t", count: 100) + "\n").utf8) }
            let parser = try RecordParser(dialect: Dialect(), streams: true, limits: .init(cell: 16, slice: slice))
            var index = 0
            while index < bytes.count {
                parser.parse(bytes[index..<min(bytes.count, index + 97)])
                index += 97
            }
            parser.finish()
            var records: [[[UInt8]]] = []
            var current: [[UInt8]] = []
            var sawPiece = false
            for row in parser.takeRecords() {
                var fields = (0..<row.count).map { Array(row.field($0)) }
                if row.continuesPrevious, !fields.isEmpty {
                    current[current.count - 1] += fields.removeFirst()
                }
                current += fields
                if row.continuesInNext { sawPiece = true } else {
                    records.append(current)
                    current = []
                }
            }
            #expect(records == referenceRecords(bytes), "seed \(seed)")
            if seed % 3 == 0 { #expect(sawPiece) }
        }
    }

    @Test("a record with a huge cell that does end shows the cells after it")
    func hugeCellThenMore() {
        let text = "id,text,after\n1,\"" + String(repeating: "y", count: 3 << 20) + "end\",x\n" + (2...400).map { "\($0),b,c\n" }.joined()
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 1 << 10)
        store.parseBudget = 1 << 20
        let row = store.row(1)
        #expect(row?.string(2) == "x")
        #expect(row?.clipped == [1])
        #expect(store.row(2)?.strings == ["2", "b", "c"])
    }

    @Test("a record that never ends shows its start, within the parse budget")
    func endlessRecord() {
        var bytes = Array("h1,h2\n1,2\n".utf8)
        bytes += [UInt8](repeating: 0, count: 3 << 20)
        let store = CellStore(bytes: bytes, checkpointSpacing: 1 << 10)
        store.parseBudget = 1 << 20
        #expect(store.row(1)?.strings == ["1", "2"])
        let partial = store.row(2)
        #expect(partial != nil)
        #expect(partial?.isCut == true)
        #expect((partial?.field(0).count ?? 0) >= 1 << 19)
        #expect(store.statistics.bytesParsed < 3 << 20)
    }
}
