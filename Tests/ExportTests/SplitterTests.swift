import CellStore
@testable import Export
import Scan
import Testing

/// The splitter of well-quoted records against the parser, over random well-quoted input.
@Suite("Export: well-quoted records split without the parser", .timeLimit(.minutes(30)))
struct SplitterTests {
    @Test("the splitter reads every well-quoted record as the parser does", arguments: [UInt8(ascii: ","), 0x09, UInt8(ascii: ";")])
    func agreesWithParser(delimiter: UInt8) throws {
        var generator = SeededGenerator(seed: UInt64(delimiter))
        let pieces: [[UInt8]] = [[], Array("a".utf8), Array("Oslo".utf8), Array("\"a \"\"b\"\", c\r\nd\"".utf8), Array("\"\"".utf8),
                                 Array("\"\"\"\"".utf8), [0xFF, 0x41], Array("é中".utf8), Array(" x ".utf8), Array("\"\n\"".utf8)]
        let endings: [[UInt8]] = [[0x0A], [0x0D, 0x0A], [0x0D]]
        for _ in 0..<300 {
            var bytes: [UInt8] = []
            for record in 0..<Int(1 + generator.next() % 30) {
                if generator.next() % 8 == 0 {
                    bytes += endings[Int(generator.next() % 3)]   // a blank line
                    continue
                }
                for cell in 0..<Int(1 + generator.next() % 5) {
                    if cell > 0 { bytes.append(delimiter) }
                    bytes += pieces[Int(generator.next() % UInt64(pieces.count))]
                }
                if record > 0 && generator.next() % 9 == 0 { break }   // a last record without a line end
                bytes += endings[Int(generator.next() % 3)]
            }
            let dialect = Dialect(delimiter: delimiter)
            let expected = try RecordParser.records(in: bytes, dialect: dialect)
            guard RecordScanner.scanning(bytes, dialect: dialect).firstProblem == nil else { continue }
            var splitter = WellQuotedSplitter(dialect: dialect)
            var got: [Row] = []
            bytes.withUnsafeBytes { splitter.split($0) { got.append($0) } }
            #expect(got == expected, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            // A quoted empty cell (`""`, JSON's empty string) is told from an empty one (null).
            #expect(got.map(\.quotedEmpty) == expected.map(\.quotedEmpty), "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }
}
