import Testing
@testable import CellStore

/// What the scanner reports about malformed quoting. That it reads every input as libcsv
/// and the plain rules do is the field kernel's differential suite (`FieldKernelTests`).
@Suite("Record scanner", .timeLimit(.minutes(30)))
struct RecordScannerTests {
    /// Records and widest record by the scanner, fed in chunks of `chunk` bytes.
    func scan(_ bytes: [UInt8], dialect: Dialect = Dialect(), chunk: Int = 1 << 20) -> RecordScanner {
        RecordScanner.scanning(bytes, dialect: dialect, chunk: chunk)
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
