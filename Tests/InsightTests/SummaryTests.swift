import CellStore
@testable import Insight
import Scan
import Testing

@Suite(.timeLimit(.minutes(30)))
struct SummaryTests {
    func summary(_ text: String, names: [String], budget: InsightBudget = InsightBudget(bytes: 48 << 20)) throws -> [ColumnSummary] {
        let store = CellStore(bytes: Array(text.utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 16)
        let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: names, headerRows: 1, budget: budget)
        scan.wait()
        guard case .finished(let rows) = scan.status else { throw CancellationError() }
        return rows
    }

    @Test func eachKindWithItsFigures() throws {
        let csv = """
        id,price,when,ok,name,zip,blank
        1,10.5,2024-01-02,true,Zoë,007,
        2,-3,2024-01-02T10:00:00Z,no,al,010,
        10,1e2,2023-12-31 23:59,TRUE,,100,
        ,0.25,2024-02-29T00:00+01:00,yes,bob,,

        """
        let rows = try summary(csv, names: ["id", "price", "when", "ok", "name", "zip", "blank"])
        #expect(rows.map(\.kind) == [.integer, .decimal, .dateTime, .boolean, .text, .text, .empty])
        let id = rows[0]
        #expect(id.filled == 3 && id.empty == 1)
        #expect(id.minimum == "1" && id.maximum == "10")
        #expect(id.mean == 13.0 / 3)
        #expect(id.distinct == 4)
        let price = rows[1]
        #expect(price.minimum == "-3" && price.maximum == "1e2")
        #expect(abs(price.mean! - 26.9375) < 1e-12)
        let values = [10.5, -3, 100, 0.25]
        let mean = values.reduce(0, +) / 4
        let deviation = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 3).squareRoot()
        #expect(abs(price.standardDeviation! - deviation) < 1e-9)
        #expect(rows[2].minimum == "2023-12-31 23:59")
        #expect(rows[4].shortest == 2 && rows[4].longest == 3)
        #expect(rows[4].minimum == "al" && rows[4].maximum == "Zoë", "natural order ignoring case, as a sort has it")
        #expect(rows[5].mean == nil)
        #expect(rows[6].filled == 0 && rows[6].empty == 4 && rows[6].minimum == nil)
        #expect(rows[3].common.first?.count == 1)
    }

    @Test("the mean is correctly rounded: 0.1, 0.2 and 0.3 give 0.2, not 0.19999999999999998")
    func meanCorrectlyRounded() throws {
        let rows = try summary("x\n0.1\n0.2\n0.3\n", names: ["x"])
        #expect(rows[0].mean == 0.2)
        // Means whose exact value sits next to a rounding boundary; each expected Double is
        // the exact rational mean rounded once (computed with Python's fractions).
        let cases: [(String, Double)] = [("0.7\n0.1\n0.1\n", 0.3), ("1.1\n2.2\n3.3\n", 2.2),
                                         ("0.3\n0.6\n", 0.44999999999999996), ("4.35\n4.35\n4.35\n", 4.35)]
        for (cells, expected) in cases {
            let rows = try summary("x\n" + cells, names: ["x"])
            #expect(rows[0].mean == expected, "\(cells)")
        }
    }

    @Test func numbersAsTheSortReadsThem() {
        for text in ["007", "1e", ".", "+", "1.2.3", "0x10", "inf", "NaN", " ", "1,00", "12,3456", ",100", "$", "%", "$x", "1,000,00"] {
            #expect(Array(text.utf8).withUnsafeBytes { CellReader.number($0) } == nil, "\(text)")
        }
        // The forms a sort reads as numbers, read as the sort reads them: thousands separators,
        // a percent sign (hundredths), a currency sign, spaces around.
        for (text, value) in [("1,000", 1000.0), ("-1,234.5", -1234.5), ("12%", 0.12), ("$5", 5), ("-€3.20", -3.2), ("$-3", -3),
                              ("£1,000,000", 1_000_000), ("¥7", 7), ("2,500%", 25), (" 1 ", 1)] {
            #expect(Array(text.utf8).withUnsafeBytes { CellReader.number($0)?.1.value } == value, "\(text)")
        }
    }

    @Test func kindsOfCells() {
        func kind(_ text: String) -> ValueKind { Array(text.utf8).withUnsafeBytes { CellReader.classify($0).kind } }
        #expect(kind("42") == .integer && kind("-0") == .integer && kind("+7") == .integer)
        #expect(kind("4.2") == .decimal && kind(".5") == .decimal && kind("5.") == .decimal && kind("1E-3") == .decimal)
        #expect(kind("2024-13-01") == .text && kind("2024-01-01T25:00") == .text && kind("2024-01-01T10:00:00.123+0530") == .dateTime)
        #expect(kind("False") == .boolean && kind("NO") == .boolean && kind("nope") == .text && kind("0") == .integer)
    }

    @Test func distinctPastTheBudgetIsAnEstimateWithinTwoPercent() throws {
        var text = "v,w\n"
        for index in 0..<30_000 { text += "value \(index),\(index % 3)\n" }
        let rows = try summary(text, names: ["v", "w"], budget: InsightBudget(bytes: 64 << 10))
        #expect(rows[0].distinctIsEstimate)
        #expect(abs(Double(rows[0].distinct) - 30_000) / 30_000 < 0.02)
        #expect(rows[0].filled == 30_000)
        #expect(!rows[1].distinctIsEstimate && rows[1].distinct == 3)
        #expect(rows[1].mean == 1 && rows[1].kind == .integer)
    }
}

extension SummaryTests {
    @Test("past the budget, the most common values listed are sure ones, with exact counts")
    func commonValuesPastTheBudget() throws {
        var text = "v\n"
        var rows: [String] = []
        for index in 0..<6000 { rows.append("u\(index)") }
        rows += Array(repeating: "hot", count: 400) + Array(repeating: "", count: 250)
        var generator = SystemRandomNumberGenerator()
        rows.shuffle(using: &generator)
        text += rows.joined(separator: "\n") + "\n"
        let summary = try #require(try summary(text, names: ["v"], budget: InsightBudget(bytes: 1 << 16, keptValues: 64)).first)
        #expect(!summary.commonIsEstimate && summary.distinctIsEstimate, "counted again exactly, as --frequency counts")
        #expect(summary.empty == 250)
        let common = summary.common.map { ($0.text, $0.count) }
        #expect(common.first?.0 == "hot" && common.first?.1 == 400, "\(common)")
        #expect(common.contains { $0.0 == "" && $0.1 == 250 }, "the empty value, counted exactly: \(common)")
        #expect(!common.contains { $0.0.hasPrefix("u") }, "no value that occurs once is passed off as common: \(common)")
    }
}

extension SummaryTests {
    @Test("the common values are the most frequent ones, whatever the order they first appear in")
    func commonValuesAreTheMostFrequent() throws {
        let rows = try summary("v\na\nb\nc\nz\nz\nz\nd\nd\n", names: ["v"])
        let common = try #require(rows.first).common.map { "\($0.text) (\($0.count))" }
        #expect(common == ["z (3)", "d (2)", "a (1)"])
    }

    @Test("a bounded top-k agrees with a full sort on random counts", arguments: [1, 2, 3, 4, 7])
    func topAgreesWithAFullSort(limit: Int) {
        var generator = SeededGenerator(seed: UInt64(limit))
        for _ in 0..<200 {
            var table = ValueTable()
            let values = 1 + Int(generator.next() % 30)
            for record in 0..<(values * 3) {
                let byte = [UInt8(generator.next() % UInt64(values))]
                let inserted = byte.withUnsafeBytes { table.add($0, hash: UInt64(byte[0]) &* 0x9E37_79B9_7F4A_7C15, record: record) }
                #expect(inserted)
            }
            let all = table.entries.indices.sorted { a, b in
                let x = table.entries[a], y = table.entries[b]
                return x.count != y.count ? x.count > y.count : x.first < y.first
            }
            #expect(table.top(limit) == Array(all.prefix(limit)))
        }
    }
}
