import Foundation
import TestSupport
import Testing
@testable import CellStore

/// `--quote none`: no field is quoted; a quote is data wherever it is (TSV files with
/// literal quotes). libcsv and the field kernel follow the same rule (on hostile bytes:
/// the kernel's differential suite, `FieldKernelTests`).
@Suite("No quoting", .timeLimit(.minutes(30)))
struct NoQuoteTests {
    let dialect = Dialect(delimiter: 0x09, quote: Dialect.noQuote)

    @Test("quotes are data: at a field's start, alone, never closed")
    func quotesAreData() throws {
        let text = "id\tsize\tnote\n1\t12\" screen\tok\n2\t\"quoted\" word\tfine\n3\t\"unclosed\tx\n4\t\"\"\t\"\n"
        let rows = try RecordParser.records(in: Array(text.utf8), dialect: dialect).map(\.strings)
        #expect(rows == [["id", "size", "note"], ["1", "12\" screen", "ok"], ["2", "\"quoted\" word", "fine"],
                         ["3", "\"unclosed", "x"], ["4", "\"\"", "\""]])
        let store = CellStore(bytes: Array(text.utf8), name: "q.tsv", quote: Dialect.noQuote)
        #expect(allRows(of: store) == rows)
        #expect(store.progress.quotingProblem == nil)
        #expect(store.dialect?.summary == "tab, no quotes")
        #expect(Dialect.detect(sample: ArraySlice("a\t\"b\nc\td\"\n".utf8), fileName: nil, quote: Dialect.noQuote).lineEnding == [0x0A])
    }

    @Test("a long cell measured from the input ends at its line end")
    func longCellEndsAtLineEnd() {
        // A cell whose length its row does not know is read to its end: the line feed that
        // stands for "no quote" must end it, not read as a literal quote.
        let bytes = Array("a\tbbbb\ncc\tdd\n".utf8)
        let cell = InputCell(source: MemorySource(bytes), dialect: dialect, origin: RecordOrigin(offset: 0), column: 1,
                             length: Int.max)
        var read: [UInt8] = []
        #expect(cell.read { read += $0; return true })
        #expect(String(decoding: read, as: UTF8.self) == "bbbb")
    }

    @Test("a stretch holding every byte value still never opens a quoted field")
    func everyByteValue() throws {
        var bytes: [UInt8] = []
        for round in 0..<300 { bytes += (0...255).map { UInt8(($0 + round) % 256) } }
        let expected = referenceRecords(bytes, delimiter: 0x09, quote: Dialect.noQuote)
        for slice in [7, 300, 1 << 16] {
            let parser = try RecordParser(dialect: dialect, limits: RecordParser.Limits(slice: slice))
            let rows = parsed(bytes, by: parser, chunk: 1 << 20)
            #expect(rows.map { row in (0..<row.count).map { Array(row.field($0)) } } == expected)
        }
    }
}
