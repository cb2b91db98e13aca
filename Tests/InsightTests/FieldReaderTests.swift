import CellStore
@testable import Insight
import Scan
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct FieldReaderTests {
    func cells(_ bytes: [UInt8], columns: Range<Int>, pieceLimit: Int64, spacing: Int64) throws -> CollectingSink {
        let (pass, _) = smallPass(bytes, columns: columns, pieceLimit: pieceLimit, spacing: spacing)
        let result = pass.run(control: ScanControl(), make: { _ in CollectingSink() })
        let sinks = try #require(result)
        var all = CollectingSink()
        for sink in sinks {
            all.cells += sink.cells
            all.records += sink.records
        }
        return all
    }

    func expected(_ bytes: [UInt8], columns: Range<Int>) -> CollectingSink {
        var sink = CollectingSink()
        for (number, row) in referenceRows(bytes).enumerated() {
            for column in columns {
                sink.cells.append(Array(row.field(column)))
                sink.records.append(number)
            }
        }
        return sink
    }

    @Test func quotedFieldsComeBackUnquoted() throws {
        let csv = Array("a,\"b,\"\"c\"\"\",d\r\n\"x\ny\",,\"\"\r\n\nlast".utf8)
        let read = try cells(csv, columns: 0..<3, pieceLimit: 1 << 20, spacing: 1 << 16)
        #expect(read.cells.map { String(decoding: $0, as: UTF8.self) } == ["a", "b,\"c\"", "d", "x\ny", "", "", "", "", "", "last", "", ""])
        #expect(read.records == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
    }

    @Test func aWellQuotedFileIsReadFromItsRawBytes() throws {
        let bytes = wellQuotedCSV(records: 200, seed: 9)
        let store = CellStore(bytes: bytes, delimiter: UInt8(ascii: ","), checkpointSpacing: 64)
        let input = try #require(ScanInput(store: store))
        let reader = FieldReader(input: input, columns: 0..<2, filter: RecordFilter(first: 0), bufferSize: 1 << 20)
        var sink = CollectingSink()
        for piece in input.pieces(for: 0..<Int.max, limit: 1 << 20, raw: true) { reader.read(piece, into: &sink) }
        #expect(reader.parsedPieces == 0)
        #expect(sink.cells == expected(bytes, columns: 0..<2).cells)
    }

    @Test func headerRecordsAreSkipped() throws {
        let bytes = Array("a,b\n1,2\n3,4\n".utf8)
        let store = CellStore(bytes: bytes, delimiter: UInt8(ascii: ","))
        let input = try #require(ScanInput(store: store))
        let reader = FieldReader(input: input, columns: 0..<1, filter: RecordFilter(first: 1), bufferSize: 1 << 20)
        var sink = CollectingSink()
        for piece in input.pieces(for: 0..<Int.max, limit: 1 << 20, raw: true) { reader.read(piece, into: &sink) }
        #expect(sink.cells == [Array("1".utf8), Array("3".utf8)])
        #expect(sink.records == [1, 2])
    }
}
