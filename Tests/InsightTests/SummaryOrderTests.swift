import CellStore
@testable import Insight
import Query
import Scan
import Table
import Testing

/// The summary's min and max are the first and last filled values of an ascending sort on
/// the column, whatever the column holds: one order, the sort's.
@Suite("Summary min and max follow the sort", .timeLimit(.minutes(30)))
struct SummaryOrderTests {
    static let numbers = ["5", "40", "-3.5", "1,000", "1e3", "12%", "$5", "-€3.20", " 7 ", "007", "10", "9", "0.0", "-0", "1e400", "2,500%"]
    static let texts = ["n/a", "Zoë", "zoe", "Zoe", "ZOE", "alpha", "Alpha", "Beta", "beta", "file2", "file10", "File02", "Émile",
                        "émile", "a b", "x,\"y\"", "line\nbreak", "true", "No", "zz9", "ß", "Ωmega", "中文", "\u{301}e"]
    static let dates = ["2024-01-02", "2024-01-02T10:00:00Z", "2023-12-31 23:59", "2024-02-29T00:00+01:00", "1999-01-01",
                        "2024-06-01T12:00:00+02:00", "2024-06-01 10:00"]

    /// A cell drawn from the pools with the weights of one column: `shares` are the parts
    /// (out of 100) of numbers, dates and empty cells; the rest is text.
    static func cell(_ generator: inout SeededGenerator, numbers: Int, dates: Int, empty: Int) -> String {
        func pick(_ pool: [String]) -> String { pool[Int(generator.next() % UInt64(pool.count))] }
        let roll = Int(generator.next() % 100)
        if roll < numbers { return pick(Self.numbers) }
        if roll < numbers + dates { return pick(Self.dates) }
        if roll < numbers + dates + empty { return "" }
        return pick(Self.texts)
    }

    static func quoted(_ cell: String) -> String {
        cell.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
    }

    /// The first and last filled cells of column `column` sorted ascending, as the sort
    /// (`--sort`, `[`) orders it.
    static func sortedEnds(_ store: CellStore, column: Int) throws -> (String?, String?) {
        let sorted = SortedRecords.start(store: store, headerRows: 1, keys: [SortKey(column: column)])
        sorted.wait()
        let cells = sorted.records(in: 0..<sorted.count).compactMap { store.row($0.record)?.field(column) }.filter { !$0.isEmpty }
        return (cells.first.map { String(decoding: $0, as: UTF8.self) }, cells.last.map { String(decoding: $0, as: UTF8.self) })
    }

    /// Mostly numbers (judged numbers by the sort), mostly dates, mostly text, an even mix,
    /// all numbers, all dates, numbers and text half and half: (numbers, dates, empty).
    static let weights = [(93, 0, 4), (0, 93, 4), (3, 3, 10), (30, 30, 10), (100, 0, 0), (0, 95, 5), (50, 0, 0)]

    /// A CSV of random mixed columns (`weights`), and its data records' cells.
    static func mixedColumns(seed: UInt64) -> (csv: [UInt8], cells: [[String]]) {
        var generator = SeededGenerator(seed: seed)
        let rows = 40 + Int(generator.next() % 200)
        var cells: [[String]] = []
        for _ in 0..<rows { cells.append(weights.map { Self.cell(&generator, numbers: $0.0, dates: $0.1, empty: $0.2) }) }
        let lines = [weights.indices.map { "c\($0)" }.joined(separator: ",")] + cells.map { $0.map(Self.quoted).joined(separator: ",") }
        return (Array((lines.joined(separator: generator.next() % 2 == 0 ? "\n" : "\r\n") + "\n").utf8), cells)
    }

    /// A value counted before is not keyed again unless it ties the greatest: then it is
    /// the greatest's last tie, as the sort's last row is.
    @Test("repeated values that tie the greatest make the max the last of them, as the sort has it")
    func repeatedTies() throws {
        let values = ["a", "b", "B", "b", "a", "B", "b", "A", "a"]
        let csv = Array(("v\n" + values.joined(separator: "\n") + "\n").utf8)
        let store = CellStore(bytes: csv, delimiter: UInt8(ascii: ","), checkpointSpacing: 256)
        let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: ["v"], headerRows: 1)
        scan.wait()
        guard case .finished(let summary) = scan.status else { throw CancellationError() }
        let (first, last) = try Self.sortedEnds(store, column: 0)
        #expect(last == "b" && first == "a")
        #expect(summary[0].maximum == last && summary[0].minimum == first)
    }

    @Test("random mixed columns: min and max are the ends of the sort", arguments: 0..<10 as Range<UInt64>)
    func differential(seed: UInt64) throws {
        let weights = Self.weights
        let csv = Self.mixedColumns(seed: seed).csv
        let store = CellStore(bytes: csv, delimiter: UInt8(ascii: ","), checkpointSpacing: 256)
        let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: weights.indices.map { "c\($0)" }, headerRows: 1)
        scan.wait()
        guard case .finished(let summary) = scan.status else { throw CancellationError() }
        for column in weights.indices {
            let (first, last) = try Self.sortedEnds(store, column: column)
            #expect(summary[column].minimum == first, "seed \(seed) column \(column)")
            #expect(summary[column].maximum == last, "seed \(seed) column \(column)")
        }
    }

    /// A text column of many values: most cells are judged by their first byte alone to
    /// lie between the ends (`liesWithinEnds`); the ends must still be the sort's.
    @Test("a text column of many values, first bytes of every kind: min and max are the ends of the sort", arguments: 0..<8 as Range<UInt64>)
    func manyTextValues(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed &+ 100)
        let firsts = Array("aAbBmMzZ0123456789 !#$%&'()*+-./:;<=>?@[]^_`{|}~\u{1}".unicodeScalars).map(String.init) + ["é", "É", "中", "ß", "Ω"]
        let rest = Array("abcXYZ019 -_.éü".unicodeScalars).map(String.init)
        var lines = ["v"]
        for _ in 0..<(500 + Int(generator.next() % 2_000)) {
            var cell = firsts[Int(generator.next() % UInt64(firsts.count))]
            for _ in 0..<Int(generator.next() % 6) { cell += rest[Int(generator.next() % UInt64(rest.count))] }
            lines.append(Self.quoted(cell))
        }
        let store = CellStore(bytes: Array((lines.joined(separator: "\n") + "\n").utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 256)
        let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: ["v"], headerRows: 1)
        scan.wait()
        guard case .finished(let summary) = scan.status else { throw CancellationError() }
        let (first, last) = try Self.sortedEnds(store, column: 0)
        #expect(summary[0].minimum == first, "seed \(seed)")
        #expect(summary[0].maximum == last, "seed \(seed)")
    }

    @Test("on two threads in small pieces, and joined from parts while running, the ends stay the sort's", arguments: 0..<6 as Range<UInt64>)
    func sharedAndJoined(seed: UInt64) throws {
        let (csv, cells) = Self.mixedColumns(seed: seed)
        let columns = Array(Self.weights.indices)
        let (pass, store) = smallPass(csv, columns: 0..<columns.count, first: 1, pieceLimit: 64, spacing: 16)
        let orders = SummaryScan.judge(columns, reader: try #require(store.recordReader()), headerRows: 1)
        let profiles = try #require(SummaryScan.profile(pass, columns: columns, orders: orders, budget: .standard, control: ScanControl()))
        let cut = cells.count / 3
        for column in columns {
            let (first, last) = try Self.sortedEnds(store, column: column)
            #expect(profiles[column].least?.text == first, "seed \(seed) column \(column)")
            #expect(profiles[column].greatest?.text == last, "seed \(seed) column \(column)")
            // Two parts' partial summaries, joined as the sheet joins them while the pass runs.
            var parts = [ColumnProfile(counter: ValueCounter(budget: 1 << 20, kept: 64), order: orders[column]),
                         ColumnProfile(counter: ValueCounter(budget: 1 << 20, kept: 64), order: orders[column])]
            for (index, row) in cells.enumerated() {
                Array(row[column].utf8).withUnsafeBytes { parts[index < cut ? 0 : 1].add($0, record: index + 1) }
            }
            let joined = parts[0].summary(column: column, name: "", commonValues: 3, isComplete: false)
                .joined(with: parts[1].summary(column: column, name: "", commonValues: 3, isComplete: false))
            #expect(joined.minimum == first && joined.maximum == last, "seed \(seed) column \(column)")
        }
    }

    @Test("a number column with one word: the word is the max, as the sort puts it last; mixed text by natural order")
    func numbersWithAWord() throws {
        let text = "n,name\n" + (5...40).map { "\($0),\(["Zoë", "alpha", "Beta"][$0 % 3])" }.joined(separator: "\n") + "\nn/a,file10\n"
        let store = CellStore(bytes: Array(text.utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 256)
        let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: ["n", "name"], headerRows: 1)
        scan.wait()
        guard case .finished(let rows) = scan.status else { throw CancellationError() }
        #expect(rows[0].kind == .text && rows[0].mean == nil)
        #expect(rows[0].minimum == "5" && rows[0].maximum == "n/a")
        #expect(rows[1].minimum == "alpha" && rows[1].maximum == "Zoë")
    }
}
