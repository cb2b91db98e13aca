import Foundation
import TestSupport
import Testing
@testable import CellStore

/// A clipped cell read whole from the input agrees with the parser's reading of it.
@Suite("Cells read from the input", .timeLimit(.minutes(30)))
struct InputCellTests {
    @Test("every clipped cell of hostile input reads back whole, and knows its length", arguments: [1, 5, 64])
    func hostile(slice: Int) throws {
        var checked = 0
        for seed in 0..<150 {
            var bytes = hostileCSV(length: 300 + (seed * 97) % 3000, seed: UInt64(seed) &* 7919 &+ UInt64(slice))
            if seed % 2 == 0 {
                bytes += Array(("x,\"" + String(repeating: "q\"\"w,\r\n", count: 40) + "\"tail" + String(repeating: "t", count: 30)
                                + ",\(String(repeating: "u", count: 90))\r\n").utf8)
            }
            let limits = RecordParser.Limits(cell: 16, record: 64, smallCell: 16, slice: slice)
            var rows = parsed(bytes, by: try RecordParser(dialect: Dialect(), limits: limits), chunk: 113)
            rows.noteOrigins(from: 0)
            let reference = referenceRecords(bytes)
            #expect(rows.count == reference.count, "seed \(seed)")
            let source = MemorySource(bytes)
            for (index, row) in rows.enumerated() where index < reference.count {
                for column in row.clipped {
                    let whole = reference[index][column]
                    #expect(row.fullLength(ofCell: column) == whole.count, "seed \(seed) record \(index) cell \(column)")
                    checked += 1
                    let origin = try #require(row.origin)
                    let cell = InputCell(source: source, dialect: Dialect(), origin: origin, column: column, length: whole.count)
                    var read: [UInt8] = []
                    #expect(cell.read { read += $0; return true })
                    #expect(read == whole, "seed \(seed) record \(index) cell \(column)")
                    let low = whole.count / 3, high = min(whole.count, low + 17)
                    #expect(cell.bytes(in: low..<high) == Array(whole[low..<high]))
                }
            }
        }
        #expect(checked > 500)
    }

    @Test("a window deep in a long quoted cell is read from a place noted near it")
    func windows() throws {
        let unit = "ab\"\"cd,\n"
        let count = 500_000
        let text = "h1,h2\n1,\"" + String(repeating: unit, count: count) + "\"x,2\n3,4\n"
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 1 << 10)
        let row = try #require(store.row(1))
        #expect(row.clipped == [1])
        let whole = Array(String(repeating: "ab\"cd,\n", count: count).utf8) + Array("x".utf8)
        #expect(row.fullLength(ofCell: 1) == whole.count)
        #expect(row.string(2) == "2")
        let reader = try #require(store.recordReader())
        let cell = try #require(InputCell(row: row, column: 1, reader: reader))
        #expect(cell.length == whole.count)
        #expect(cell.bytes(in: (whole.count - 10)..<whole.count) == Array(whole.suffix(10)))
        for start in stride(from: 0, to: whole.count, by: 777_777) {
            #expect(cell.bytes(in: start..<(start + 100)) == Array(whole[start..<min(whole.count, start + 100)]), "at \(start)")
        }
        var total = 0
        cell.read(from: 1_000_000) { total += $0.count; return true }
        #expect(total == whole.count - 1_000_000)
    }

    @Test("a clipped cell's record is found after CRLF records, blank lines and long records before it in its block")
    func origins() throws {
        let long = String(repeating: "z", count: (1 << 20) + 5000)
        let text = "a,b\r\n\r\n1,\"\(long)\"\r\n\"2\r\n\",\(long)y\r\nlast,\(long)"
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 1 << 30)
        let reader = try #require(store.recordReader())
        for (record, column, value) in [(2, 1, long), (3, 1, long + "y"), (4, 1, long)] {
            let row = try #require(store.row(record))
            #expect(row.isClipped(column), "record \(record)")
            let cell = try #require(InputCell(row: row, column: column, reader: reader))
            var read: [UInt8] = []
            cell.read { read += $0; return true }
            #expect(read == Array(value.utf8), "record \(record)")
        }
        let alone = try #require(reader.record(3, at: nil))
        #expect(alone.origin != nil)
        #expect(InputCell(row: alone, column: 1, reader: reader)?.bytes(in: 0..<3) == Array("zzz".utf8))
    }

    @Test("a record shown as far as it was read is read whole once the index passes it; a length not known is measured")
    func partialRecordReadAgain() throws {
        let long = String(repeating: "w", count: 3 << 20)
        let text = "id,text,after\n1,\(long),x\n" + (2...200).map { "\($0),b,c\n" }.joined()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("partial-\(getpid()).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(text.utf8).write(to: url)
        let store = try CellStore.open(InputSpec(path: url.path), checkpointSpacing: 1 << 10, startsLoader: false)
        store.parseBudget = 1 << 20
        let partial = try #require(store.row(1))
        #expect(partial.isClipped(1) && partial.fullLength(ofCell: 1) == nil)
        #expect(partial.string(2) == "", "not read that far yet")
        store.indexNow()
        let reader = try #require(store.recordReader())
        let measured = try #require(InputCell(row: partial, column: 1, reader: reader))
        #expect(measured.length == long.utf8.count)
        let whole = try #require(store.row(1))
        #expect(whole.fullLength(ofCell: 1) == long.utf8.count)
        #expect(whole.string(2) == "x")
    }
}
