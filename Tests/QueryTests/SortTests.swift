import CellStore
import Foundation
import Table
import TestSupport
import Testing
@testable import Query

/// Cells that make sorting hard: numbers in every dress, dates, natural text, case, empty.
func hostileValue(_ generator: inout SeededGenerator, kind: Int) -> String {
    func pick(_ n: Int) -> Int { Int(generator.next() % UInt64(n)) }
    switch kind {
    case 0:   // numbers
        let shapes = ["\(pick(2000) - 1000)", "\(pick(100)).\(pick(100))", "-\(pick(9)).\(pick(9))e\(pick(5))",
                      "\(pick(100))%", "$\(pick(1000))", "-€\(pick(50)).5", "£1,\(100 + pick(900)),000", " \(pick(10)) ",
                      "", "", "N/A", "1,\(100 + pick(900))", "+\(pick(10))", "0.\(pick(10))E-2"]
        return shapes[pick(shapes.count)]
    case 1:   // dates
        let shapes = ["2024-0\(1 + pick(9))-1\(pick(10))", "2023-12-31T2\(pick(4)):\(10 + pick(50))", "2024-01-01 00:00:0\(pick(10)).5",
                      "2024-06-01T12:00:00+0\(pick(9)):00", "2024-06-01T12:00:00Z", "", "soon", "1999-0\(1 + pick(9))-01"]
        return shapes[pick(shapes.count)]
    default:  // text
        let shapes = ["file\(pick(20))", "File\(pick(20))", "file0\(pick(20))", "a\(pick(3))b\(pick(30))", "Zürich", "zebra",
                      "Äpfel", "äpfel", "", "x", "X", "x,\"y\"", "line\nbreak", "9", "10", "\(pick(3))\(pick(3))", "naïve"]
        return shapes[pick(shapes.count)]
    }
}

func quoted(_ cell: String) -> String {
    cell.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
}

func hostileTable(rows: Int, seed: UInt64) -> (bytes: [UInt8], cells: [[String]]) {
    var generator = SeededGenerator(seed: seed)
    var cells = [["amount", "when", "name", "other"]]
    for _ in 0..<rows {
        cells.append([hostileValue(&generator, kind: 0), hostileValue(&generator, kind: 1), hostileValue(&generator, kind: 2),
                      hostileValue(&generator, kind: Int(generator.next() % 3))])
    }
    let text = cells.map { $0.map(quoted).joined(separator: ",") }.joined(separator: generator.next() % 2 == 0 ? "\n" : "\r\n") + "\n"
    return (Array(text.utf8), cells)
}

func sortedRecords(_ store: CellStore, keys: [SortKey], kinds: [ColumnKind]? = nil, budget: Int = SortedRecords.defaultBudget,
                   workers: Int = 2) -> SortedRecords {
    let sorted = SortedRecords.start(store: store, headerRows: 1, keys: keys, kinds: kinds, memoryBudget: budget, workers: workers)
    sorted.wait()
    return sorted
}

@Suite(.timeLimit(.minutes(30))) struct SortTests {
    @Test(arguments: [(1 << 20, 1), (1 << 12, 2), (1 << 20, 2)])
    func matchesTheReferenceOverHostileValues(budget: Int, workers: Int) throws {
        for seed in UInt64(1)...4 {
            let (bytes, cells) = hostileTable(rows: 700, seed: seed)
            let store = CellStore(bytes: bytes, name: "t.csv", checkpointSpacing: 512)
            for keys in [[SortKey(column: 0)], [SortKey(column: 0, descending: true)], [SortKey(column: 1)],
                         [SortKey(column: 2)], [SortKey(column: 2, descending: true), SortKey(column: 0)],
                         [SortKey(column: 3), SortKey(column: 1, descending: true)]] {
                let kinds = keys.map { [ColumnKind.number, .date, .text, .text][$0.column] }
                let sorted = sortedRecords(store, keys: keys, kinds: kinds, budget: budget, workers: workers)
                #expect(sorted.phase == .done)
                let got = sorted.records(in: 0..<sorted.count).map(\.record)
                let expected = Reference.sorted(cells, headerRows: 1, keys: keys, kinds: kinds)
                let differs = got.indices.first { $0 < expected.count && got[$0] != expected[$0] }
                #expect(got.count == expected.count && differs == nil,
                        "seed \(seed) keys \(keys): row \(differs ?? -1) is record \(differs.map { got[$0] } ?? -1), not \(differs.map { expected[$0] } ?? -1)")
                // Offsets lead to the records themselves.
                for ref in sorted.records(in: 0..<20) {
                    #expect(store.row(ref.record, at: ref.offset)?.strings == cells[ref.record])
                }
                for row in [0, 1, sorted.count / 2, sorted.count - 1] {
                    #expect(sorted.index(of: got[row]) == row)
                }
            }
        }
    }

    @Test func spillsRunsBeyondTheBudget() {
        let (bytes, cells) = hostileTable(rows: 8000, seed: 9)
        let store = CellStore(bytes: bytes, name: "t.csv", checkpointSpacing: 1024)
        let sorted = sortedRecords(store, keys: [SortKey(column: 2)], kinds: [.text], budget: 1 << 14)
        #expect(sorted.spilledRuns > 2)
        #expect(sorted.records(in: 0..<sorted.count).map(\.record)
                == Reference.sorted(cells, headerRows: 1, keys: [SortKey(column: 2)], kinds: [.text]))
    }

    /// The key reader follows the parser over hostile bytes: sorting by a column reads
    /// the cells the parser reads.
    @Test(arguments: UInt64(1)...6)
    func readsCellsAsTheParserDoes(seed: UInt64) throws {
        let bytes = hostileCSV(length: 6000, seed: seed)
        let store = CellStore(bytes: bytes, name: "h.csv", delimiter: UInt8(ascii: ","), checkpointSpacing: 256)
        let rows = (0..<store.rowCount).map { store.row($0)?.strings ?? [] }
        for column in 0..<3 {
            let keys = [SortKey(column: column)]
            let sorted = sortedRecords(store, keys: keys, kinds: [.text])
            let got = sorted.records(in: 0..<sorted.count).map(\.record)
            // Every record read alone from its offset is the record the block parse reads.
            for ref in sorted.records(in: 0..<sorted.count) where column == 0 {
                #expect(store.row(ref.record, at: ref.offset)?.strings == rows[ref.record], "seed \(seed) record \(ref.record)")
            }
            let expected = Reference.sorted(rows, headerRows: 1, keys: keys, kinds: [.text])
            #expect(got == expected, "seed \(seed) column \(column): first difference at \(got.indices.first { $0 < expected.count && got[$0] != expected[$0] } ?? -1)")
        }
    }

    /// Text past ASCII whose scalars lowercasing leaves alone is folded from its bytes
    /// without a String; a text key must be what lowercasing the String first gives.
    @Test("a text key past ASCII is the key of its lowercased text, on the fast path and off it")
    func foldsTextAsLowercasing() {
        let pieces: [[UInt8]] = ["A", "z", "7", "007", " ", "é", "É", "ü", "Ü", "ï", "œ", "Œ", "ß", "ẞ", "北京", "Σ", "σ", "ς", "İ",
                                 "Д", "д", "Ω", "ǅ", "𝔸", "Ꭰ", "ꭰ", "ﬀ", "Ａ", "ａ"].map { Array($0.utf8) }
            + [[0xC3], [0xE2, 0x82], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF], [0xE0, 0x80, 0x80]]
        var generator = SeededGenerator(seed: 41)
        func pick(_ n: Int) -> Int { Int(generator.next() % UInt64(n)) }
        func key(_ bytes: [UInt8]) -> [UInt8] {
            var key: [UInt8] = []
            bytes.withUnsafeBytes { KeyEncoding.appendText($0, to: &key) }
            return key
        }
        var fast = 0
        for _ in 0..<4000 {
            let cell = (0..<(1 + pick(6))).flatMap { _ in pieces[pick(pieces.count)] }
            let lowered = Array(String(decoding: cell, as: UTF8.self).lowercased().utf8)
            #expect(key(cell) == key(lowered), "\(cell)")
            if cell.contains(where: { $0 >= 0x80 }) && cell.withUnsafeBytes({ KeyEncoding.isOwnLowercase($0) }) { fast += 1 }
        }
        #expect(fast > 200)
        #expect(!Array("É".utf8).withUnsafeBytes { KeyEncoding.isOwnLowercase($0) })
        #expect(Array("naïve 北京 œuvre".utf8).withUnsafeBytes { KeyEncoding.isOwnLowercase($0) })
    }

    /// A column blank in its first thousand records is judged by the filled cells after
    /// them: its numbers sort as numbers, not as text.
    @Test("a sparse number column is judged a number column from its filled cells")
    func judgesSparseColumns() {
        var text = "id,price\n"
        for index in 0..<1500 { text += "\(index),\n" }
        for value in ["10.5", "10.25", "-3", "-20"] { text += "x,\(value)\n" }
        let store = CellStore(bytes: Array(text.utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 256)
        #expect(ColumnKind.judge(column: 1, in: store, headerRows: 1) == .number)
        let sorted = SortedRecords.start(store: store, headerRows: 1, keys: [SortKey(column: 1)])
        sorted.wait()
        let prices = sorted.records(in: 0..<sorted.count).compactMap { store.row($0.record)?.field(1) }.filter { !$0.isEmpty }
        #expect(prices.map { String(decoding: $0, as: UTF8.self) } == ["-20", "-3", "10.25", "10.5"])
    }

    @Test func judgesKinds() {
        func kind(_ cells: [String]) -> ColumnKind { ColumnKind.judge(cells.map { Array($0.utf8)[...] }) }
        #expect(kind(["1", "-2.5", "1,000", "12%", "$3", "", "4e2"]) == .number)
        #expect(kind(["2024-01-02", "2024-01-02T10:00:00Z", ""]) == .date)
        #expect(kind(["file1", "2", "3"]) == .text)
        #expect(kind([]) == .text)
    }

    @Test func readsNumbersAndDates() {
        func number(_ text: String) -> Double? { Array(text.utf8).withUnsafeBytes { KeyEncoding.number($0) } }
        #expect(number("-1,234.5") == -1234.5)
        #expect(number("12%") == 0.12)
        #expect(number("-€3.20") == -3.2)
        #expect(number("£1,000") == 1000)
        #expect(number("1e3") == 1000)
        #expect(number("1,23") == nil)
        #expect(number("12a") == nil)
        #expect(number("-") == nil)
        #expect(KeyEncodingProbe.instant("2024-01-01T01:00:00+01:00") == KeyEncodingProbe.instant("2024-01-01"))
        #expect(KeyEncodingProbe.instant("2024-13-01") == nil)
        #expect(Reference.natural("file2", "file10") < 0)
    }

    @Test func headerRowsStayOutAndEmptyCellsGoLast() {
        let store = CellStore(bytes: Array("n\n3\n\n1\n2\n".utf8), name: "e.csv")
        let up = sortedRecords(store, keys: [SortKey(column: 0)])
        #expect(up.records(in: 0..<10).map(\.record) == [3, 4, 1, 2])
        let down = sortedRecords(store, keys: [SortKey(column: 0, descending: true)])
        #expect(down.records(in: 0..<10).map(\.record) == [1, 4, 3, 2])
    }
}


@Test(.timeLimit(.minutes(30))) func readsNumbersExactlyAsStrtodDoes() {
    var generator = SeededGenerator(seed: 77)
    func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(generator.next() % 10)) }) }
    for _ in 0..<20_000 {
        // No leading zero before another digit: `007` is a code, not a number.
        let length = 1 + Int(generator.next() % 22)
        var text = length == 1 ? digits(1) : String(1 + generator.next() % 9) + digits(length - 1)
        if generator.next() % 2 == 0 { text += "." + digits(Int(generator.next() % 22)) }
        if generator.next() % 3 == 0 { text += "e" + (generator.next() % 2 == 0 ? "-" : "") + String(generator.next() % 40) }
        let got = Array(text.utf8).withUnsafeBytes { KeyEncoding.number($0) }
        #expect(got == Double(text), "\(text)")
    }
}
