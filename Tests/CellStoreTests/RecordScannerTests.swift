import Foundation
import Testing
@testable import CellStore

/// The scanner must agree with the parser (libcsv as this project sets it up, with the
/// project's rule for text after a closing quote) on every input.
@Suite("Record scanner against libcsv")
struct RecordScannerTests {
    /// Records and widest record by the scanner, fed in chunks of `chunk` bytes.
    func scan(_ bytes: [UInt8], dialect: Dialect = Dialect(), chunk: Int = 1 << 20) -> RecordScanner {
        RecordScanner.scanning(bytes, dialect: dialect, chunk: chunk)
    }

    func libcsv(_ bytes: [UInt8], dialect: Dialect = Dialect()) throws -> [Row] {
        try RecordParser.records(in: bytes, dialect: dialect)
    }

    @Test("hostile random inputs: same records, same widest record", arguments: [1, 3, 17, 4096])
    func random(chunk: Int) throws {
        for seed in 0..<200 {
            let bytes = hostileCSV(length: 50 + (seed * 37) % 3000, seed: UInt64(seed + chunk * 1000))
            let expected = try libcsv(bytes)
            let scanner = scan(bytes, chunk: chunk)
            #expect(scanner.recordCount == expected.count, "seed \(seed)")
            #expect(scanner.widestRecord == (expected.map(\.count).max() ?? 0), "seed \(seed)")
        }
    }

    @Test("every delimiter and quote byte", arguments: [UInt8(ascii: ","), 0x09, UInt8(ascii: ";"), UInt8(ascii: "|"), UInt8(ascii: " ")])
    func delimiters(delimiter: UInt8) throws {
        for quote in [UInt8(ascii: "\""), UInt8(ascii: "'")] {
            let dialect = Dialect(delimiter: delimiter, quote: quote)
            for seed in 0..<50 {
                var bytes = hostileCSV(length: 800, seed: UInt64(seed) &* 7919)
                bytes = bytes.map { $0 == UInt8(ascii: ",") ? delimiter : ($0 == UInt8(ascii: "\"") ? quote : $0) }
                let expected = try libcsv(bytes, dialect: dialect)
                let scanner = scan(bytes, dialect: dialect, chunk: 7)
                #expect(scanner.recordCount == expected.count)
                #expect(scanner.widestRecord == (expected.map(\.count).max() ?? 0))
            }
        }
    }

    @Test("hand-made cases", arguments: [
        "", "\n", "\r\n", "\r", "\n\n", "\r\r\n\n", "a", "a,", ",", ",,\n", "\"", "\"\"", "\"a\"\"", "a\"b\n",
        "\"a\"b,c\nd", "\"a\"\r\nb", "\"a\r\nb\"\r\n", "a\r\rb", "\"\"\"\"", " \"a\",b", "a,\"b\nc\",d\r\n\r\ne",
    ])
    func handMade(text: String) throws {
        let bytes = Array(text.utf8)
        let expected = try libcsv(bytes)
        for chunk in [1, 2, 100] {
            let scanner = scan(bytes, chunk: chunk)
            #expect(scanner.recordCount == expected.count, "chunk \(chunk)")
            #expect(scanner.widestRecord == (expected.map(\.count).max() ?? 0))
        }
    }

    @Test("the conformance files", arguments: (try? FileManager.default.contentsOfDirectory(
        atPath: Fixtures.conformance.appendingPathComponent("csv-spectrum/csvs").path)) ?? [])
    func conformance(name: String) throws {
        let bytes = Array(try Data(contentsOf: Fixtures.conformance.appendingPathComponent("csv-spectrum/csvs/\(name)")))
        #expect(scan(bytes).recordCount == (try libcsv(bytes)).count)
    }

    @Test("malformed quoting is found, with its record")
    func problems() {
        var scanner = scan(Array("a,b\nc\"d,e\n".utf8))
        #expect(scanner.firstProblem == .init(kind: .quoteInUnquotedField, record: 1, offset: 5))
        scanner = scan(Array("a,b\n\"c\"d,e\n".utf8))
        #expect(scanner.firstProblem?.kind == .textAfterClosingQuote)
        scanner = scan(Array("a,b\nc,\"d\ne\n".utf8))
        #expect(scanner.firstProblem == .init(kind: .unclosedQuote, record: 1, offset: 6))
        scanner = scan(Array("a,\"b\"\"c\"\nd\n".utf8))
        #expect(scanner.firstProblem == nil)
        #expect(scanner.problemCount == 0)
    }

    @Test("the store reports the first problem with its line, and never hangs on it")
    func storeProblem() {
        let store = CellStore(bytes: Array("# note\nh1,h2\n1,2\n\"3\nx\",4\n5,\"6\n7,8\n".utf8), preamble: .detect)
        let problem = store.progress.quotingProblem
        #expect(problem?.kind == .unclosedQuote)
        #expect(problem?.record == 3)
        #expect(problem?.line == 6)
        #expect(store.rowCount == 4)
        #expect(store.row(3)?.strings == ["5", "6\n7,8\n"])
    }
}
