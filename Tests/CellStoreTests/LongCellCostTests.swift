import Foundation
import Testing
@testable import CellStore

/// Reading stays linear whatever the longest cell: rows hold only their own bytes.
/// Measured by what the rows hold (their arrays' capacity), never by time.
@Suite("Long cells cost what they hold", .timeLimit(.minutes(30)))
struct LongCellCostTests {
    /// A 300 KB first cell, then `rows` short records.
    func input(rows: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 300_000) + Array(",b\n".utf8)
        for index in 0..<rows { bytes += Array("\(index),y\n".utf8) }
        return bytes
    }

    @Test("records after a long cell hold only their own bytes", arguments: [false, true])
    func parser(streams: Bool) throws {
        let parser = try RecordParser(dialect: Dialect(), streams: streams)
        parser.parse(input(rows: 2000)[...])
        parser.finish()
        let rows = parser.takeRecords()
        #expect(rows.count == 2001)
        let held = rows.dropFirst().reduce(0) { $0 + $1.bytes.capacity + $1.ends.capacity * 8 }
        #expect(held < 2000 * 128, "rows after the long cell hold \(held) bytes")
    }

    @Test("output streaming holds, over all its rows, a small multiple of the input")
    func stream() throws {
        let bytes = input(rows: 5000)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("long-cell-\(UUID()).csv")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var held = 0
        var records = 0
        try RecordStream.forEach(InputSpec(path: url.path, delimiter: nil)) { row in
            held += row.bytes.capacity
            records += 1
            return true
        }
        #expect(records == 5001)
        #expect(held < 2 * bytes.count, "rows held \(held) bytes for an input of \(bytes.count)")
    }
}

@Suite("Records in pieces", .timeLimit(.minutes(30)))
struct RecordPiecesTests {
    @Test("each piece's cells are placed where they are in the record", arguments: [0, 1, 2])
    func placing(longColumn: Int) throws {
        var cells = ["a", "b", "c"]
        cells[longColumn] = String(repeating: "é", count: 1_600_000)   // 3.2 MB: pieces of 1 MiB
        let text = "h1,h2,h3\n" + cells.joined(separator: ",") + "\nx,y,z\n"
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pieces-\(UUID()).csv")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var pieces = RecordPieces()
        var records: [[String]] = [[]]
        var pieceCount = 0
        try RecordStream.forEach(InputSpec(path: url.path, delimiter: nil)) { row in
            let first = pieces.place(row)
            pieceCount += 1
            for index in 0..<row.count {
                let column = first + index
                if column < records[records.count - 1].count {
                    records[records.count - 1][column] += row.string(index)
                } else {
                    records[records.count - 1].append(row.string(index))
                }
            }
            if !row.continuesInNext { records.append([]) }
            return true
        }
        #expect(pieceCount > 4)
        #expect(records.dropLast() == [["h1", "h2", "h3"], cells, ["x", "y", "z"]])
    }
}
