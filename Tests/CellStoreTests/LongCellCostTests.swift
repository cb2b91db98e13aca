import Foundation
import Testing
@testable import CellStore

/// Reading stays linear whatever the longest cell: rows hold only their own bytes.
/// Measured by what the rows hold (their arrays' capacity), never by time.
@Suite("Long cells cost what they hold")
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
        try RecordStream.forEach(path: url.path, delimiter: nil) { row in
            held += row.bytes.capacity
            records += 1
            return true
        }
        #expect(records == 5001)
        #expect(held < 2 * bytes.count, "rows held \(held) bytes for an input of \(bytes.count)")
    }
}
