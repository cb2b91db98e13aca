import Testing
@testable import CellStore

/// Text after a closing quote is read as Python's csv, rust-csv and FastCSV read it, and
/// the parser, the scanner and a plain reference agree on every input.
@Suite("Malformed quoting")
struct MalformedQuoteTests {
    @Test("text after a closing quote joins the field; the record ends where it would")
    func strayText() throws {
        #expect(try parseAll("a,b\n\"x\" ,y\nc,d\n") == [["a", "b"], ["x ", "y"], ["c", "d"]])
        #expect(try parseAll("\"x\"y\"z\",w\n") == [["xy\"z\"", "w"]])
        #expect(try parseAll("\"a\"b\r\n\"c\"\"d\"e,f") == [["ab"], ["c\"de", "f"]])
        #expect(try parseAll("\"x\"tail") == [["xtail"]])
        #expect(try parseAll("\"x\"t\n") == [["xt"]])
        #expect(try parseAll("1,\"quoted\" and more,3\n4,5,6\n") == [["1", "quoted and more", "3"], ["4", "5", "6"]])
    }

    @Test("the store counts every record of a file with stray text")
    func storeKeepsRecords() {
        var text = "id,name\n"
        for index in 0..<500 { text += index % 7 == 0 ? "\(index),\"n\(index)\" x\n" : "\(index),n\(index)\n" }
        let store = CellStore(bytes: Array(text.utf8), checkpointSpacing: 256)
        #expect(store.rowCount == 501)
        #expect(store.row(500)?.strings == ["499", "n499"])
        #expect(store.row(1)?.strings == ["0", "n0 x"])
        #expect(store.progress.quotingProblem?.kind == .textAfterClosingQuote)
    }

    @Test("parser and reference agree on hostile inputs, in any chunks", arguments: [1, 2, 5, 64, 4096])
    func parserAgrees(chunk: Int) throws {
        for seed in 0..<150 {
            let bytes = hostileCSV(length: 40 + (seed * 53) % 2500, seed: UInt64(seed) &+ UInt64(chunk) &* 7777)
            let rows = parsed(bytes, by: try RecordParser(dialect: Dialect()), chunk: chunk)
            let expected = referenceRecords(bytes)
            #expect(rows.map { row in (0..<row.count).map { Array(row.field($0)) } } == expected, "seed \(seed)")
        }
    }

    @Test("scanner and reference agree: records and widest record", arguments: [1, 3, 17, 4096])
    func scannerAgrees(chunk: Int) {
        for seed in 0..<200 {
            let bytes = hostileCSV(length: 50 + (seed * 37) % 3000, seed: UInt64(seed) &* 31 &+ UInt64(chunk))
            let expected = referenceRecords(bytes)
            let scanner = RecordScanner.scanning(bytes, dialect: Dialect(), chunk: chunk)
            #expect(scanner.recordCount == expected.count, "seed \(seed)")
            #expect(scanner.widestRecord == (expected.map(\.count).max() ?? 0), "seed \(seed)")
        }
    }

    @Test("other delimiters and quotes", arguments: [UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")])
    func otherDialects(delimiter: UInt8) throws {
        for quote in [UInt8(ascii: "\""), UInt8(ascii: "'")] {
            for seed in 0..<40 {
                var bytes = hostileCSV(length: 700, seed: UInt64(seed) &* 104729)
                bytes = bytes.map { $0 == UInt8(ascii: ",") ? delimiter : ($0 == UInt8(ascii: "\"") ? quote : $0) }
                let rows = try RecordParser.records(in: bytes, dialect: Dialect(delimiter: delimiter, quote: quote))
                let expected = referenceRecords(bytes, delimiter: delimiter, quote: quote)
                #expect(rows.map { row in (0..<row.count).map { Array(row.field($0)) } } == expected)
            }
        }
    }
}
