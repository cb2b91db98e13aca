import CellStore
@testable import Insight
import Scan
import Testing

/// Values longer than a cell the parser keeps are counted, measured and ordered whole.
@Suite(.timeLimit(.minutes(30)))
struct LongValueTests {
    /// Three long values that share their first MiB (a < c < b: a is a start of c), one of
    /// them twice, and a short one; quoted or not, in pieces of any phase.
    static func csv(quoted: Bool) -> (text: [UInt8], a: String, b: String, c: String) {
        let base = String(repeating: "é0123456789", count: 110_000)   // 1.32 MB, over the limit
        let a = base + "x", b = base + "y", c = base + "x" + String(repeating: "z", count: 70_000)
        func cell(_ value: String) -> String { quoted ? "\"" + value + "\"" : value }
        let text = "id,text,n\n1,\(cell(a)),1\n2,\(cell(b)),2\n3,short,3\n4,\(cell(a)),4\n5,\(cell(c)),5\n"
        return (Array(text.utf8), a, b, c)
    }

    @Test(arguments: [false, true])
    func frequencyTellsApartValuesThatShareTheirStart(quoted: Bool) throws {
        let (text, a, b, c) = Self.csv(quoted: quoted)
        let store = CellStore(bytes: text, delimiter: UInt8(ascii: ","), checkpointSpacing: 1 << 10)
        let count = FrequencyCount(input: try #require(ScanInput(store: store)), column: 1, headerRows: 1)
        count.wait()
        guard case .finished(let table) = count.status else { throw CancellationError() }
        #expect(table.distinct == 4)
        #expect(table.rows.map(\.count) == [2, 1, 1, 1])
        #expect(table.rows.map(\.wholeLength) == [a.utf8.count, b.utf8.count, nil, c.utf8.count])
        #expect(table.rows[2].text == "short")
        #expect(table.rows[0].value.count <= LongValue.shownBytes && a.utf8.starts(with: table.rows[0].value))
        #expect(table.rows.map(\.firstRecord) == [1, 2, 3, 5])
        #expect(table.rows[0].shownText.hasSuffix("… (\(a.utf8.count) bytes)"))
    }

    @Test(arguments: [false, true])
    func summaryMeasuresAndOrdersWholeValues(quoted: Bool) throws {
        let (text, a, _, c) = Self.csv(quoted: quoted)
        let store = CellStore(bytes: text, delimiter: UInt8(ascii: ","), checkpointSpacing: 1 << 10)
        let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: ["id", "text", "n"], headerRows: 1)
        scan.wait()
        guard case .finished(let rows) = scan.status else { throw CancellationError() }
        let column = rows[1]
        #expect(column.distinct == 4)
        #expect(column.kind == .text)
        #expect(column.shortest == 5)
        #expect(column.longest == c.unicodeScalars.count)
        #expect(column.minimum == "short", "short < é…")
        // A sort keys a cell by its start: the three long values tie, and the last in the
        // file is the last of the sort.
        #expect(column.maximum?.hasSuffix("… (\(c.utf8.count) bytes)") == true, "\(column.maximum?.suffix(30) ?? "")")
        #expect(column.common.first?.count == 2 && column.common.first?.wholeLength == a.utf8.count)
        #expect(column.cells[11].contains("… (\(a.utf8.count) bytes) (2)"))
    }

    @Test func aStreamingHashDoesNotDependOnWhereThePiecesAreCut() {
        let bytes = Array((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var whole = StreamingHash()
        bytes.withUnsafeBytes { whole.add($0) }
        for cut in [1, 3, 7, 8, 9, 64, 4999] {
            var pieces = StreamingHash()
            var index = 0
            while index < bytes.count {
                bytes[index..<min(bytes.count, index + cut)].withUnsafeBytes { pieces.add($0) }
                index += cut
            }
            #expect(pieces.value == whole.value, "cut \(cut)")
        }
        var other = StreamingHash()
        (bytes + [0]).withUnsafeBytes { other.add($0) }
        #expect(other.value != whole.value)
    }
}
