import CellStore
@testable import Insight
import Scan
import Testing

/// `--quote none`: the raw-byte field reader quotes nothing either, so counts and the
/// summary read what the parser reads, from the raw bytes.
@Suite(.timeLimit(.minutes(30)))
struct NoQuoteFieldReaderTests {
    @Test(arguments: ["id\tsize\tnote\n1\ta\t\n\tb\tc\n2\t12\" x\t\"q\"\n\n3\t\"open\t\n", "id\tsize\tnote\n1\ta\t\n\tb\tc\n"])
    func quotesAreDataAndEmptyLastFieldsStayEmpty(text: String) throws {
        let store = CellStore(bytes: Array(text.utf8), delimiter: 0x09, quote: Dialect.noQuote)
        let input = try #require(ScanInput(store: store))
        let reader = FieldReader(input: input, columns: 0..<3, filter: RecordFilter(first: 0), bufferSize: 1 << 20)
        var sink = CollectingSink()
        for piece in input.pieces(for: 0..<Int.max, limit: 1 << 20, raw: true) { reader.read(piece, into: &sink) }
        #expect(reader.parsedPieces == 0 && reader.rawFallbacks == 0, "read from the raw bytes")
        var expected: [[UInt8]] = []
        for record in 0..<store.rowCount {
            let row = try #require(store.row(record))
            for column in 0..<3 { expected.append(Array(row.field(column))) }
        }
        #expect(sink.cells.map { String(decoding: $0, as: UTF8.self) } == expected.map { String(decoding: $0, as: UTF8.self) })
        #expect(sink.cells[5] == [], "the empty note of record 1")
        if sink.cells.count > 11 { #expect(sink.cells[11] == Array("\"q\"".utf8)) }
    }
}
