import CellStore
import Export
import Insight
import Query
import Scan
import Testing
@testable import Viewer

/// The sort, the summary and the screen read a cell as a number or an instant in one way:
/// random columns of numbers and dates, sorted and summarised, must agree on which values
/// come first and last, and every number must be right-aligned.
@Suite(.timeLimit(.minutes(30))) struct ValueReadingTests {
    /// A number written in one of the forms a user's file may hold.
    static func number(_ generator: inout SeededGenerator) -> String {
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(generator.next() % 10)) }) }
        let length = 1 + Int(generator.next() % 8)
        var body = length == 1 ? digits(1) : String(1 + generator.next() % 9) + digits(length - 1)
        switch generator.next() % 10 {
        case 0: body += "." + digits(1 + Int(generator.next() % 4))
        case 1: body += "e" + (generator.next() % 2 == 0 ? "-" : "") + String(generator.next() % 30)
        case 2: body += "%"
        case 3 where body.count > 3:
            // Thousands separators.
            var grouped = ""
            for (index, character) in body.reversed().enumerated() {
                if index > 0 && index % 3 == 0 { grouped.append(",") }
                grouped.append(character)
            }
            body = String(grouped.reversed())
        case 4: body = ["$", "€", "£", "¥"][Int(generator.next() % 4)] + body
        case 5: body = "1e4" + String(generator.next() % 10) + String(generator.next() % 10)   // often past Double's range
        default: break
        }
        switch generator.next() % 4 {
        case 0: body = "-" + body
        case 1: body = "+" + body
        default: break
        }
        return generator.next() % 8 == 0 ? " " + body + " " : body
    }

    /// An ISO 8601 date, date and time, or date and time with a zone.
    static func instant(_ generator: inout SeededGenerator) -> String {
        func two(_ limit: UInt64, from: UInt64 = 0) -> String {
            let value = from + generator.next() % limit
            return value < 10 ? "0\(value)" : "\(value)"
        }
        // A few days only, so that zones and the two separators decide the order often.
        var text = "2021-05-0\(1 + generator.next() % 3)"
        switch generator.next() % 4 {
        case 0: return text
        case 1: text += (generator.next() % 2 == 0 ? "T" : " ") + "\(two(24)):\(two(60))"
        default: text += "T\(two(24)):\(two(60)):\(two(60))"
        }
        switch generator.next() % 3 {
        case 0: return text + "Z"
        case 1: return text + (generator.next() % 2 == 0 ? "+" : "-") + "\(two(14)):\(two(2) == "00" ? "00" : "30")"
        default: return text
        }
    }

    /// The records of column 0 of `cells` in the sort's order (`descending` or not).
    func sorted(_ store: CellStore, descending: Bool) -> [Int] {
        let sorted = SortedRecords.start(store: store, headerRows: 1, keys: [SortKey(column: 0, descending: descending)])
        sorted.wait()
        return sorted.records(in: 0..<sorted.count).map(\.record)
    }

    func summary(_ store: CellStore) throws -> ColumnSummary {
        let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: ["v"], headerRows: 1)
        scan.wait()
        guard case .finished(let rows) = scan.status else { throw CancellationError() }
        return try #require(rows.first)
    }

    @Test("a number column: the sort's first and last are the summary's min and max", arguments: UInt64(1)...12)
    func numbers(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let cells = (0..<(2 + Int(generator.next() % 60))).map { _ in Self.number(&generator) }
        let store = CellStore(bytes: Array(("v\n" + cells.map { "\"\($0)\"" }.joined(separator: "\n") + "\n").utf8), name: "n.csv")
        let value: (String?) -> Double? = { $0.flatMap { CellValue.number(Array($0.utf8)[...])?.value } }
        let order = sorted(store, descending: false)
        let summary = try summary(store)
        #expect(summary.kind == .integer || summary.kind == .decimal, "\(cells)")
        #expect(value(summary.minimum) == value(cells[order.first! - 1]), "\(cells)")
        #expect(value(summary.maximum) == value(cells[order.last! - 1]), "\(cells)")
        #expect(value(summary.maximum) == value(cells[sorted(store, descending: true).first! - 1]))
        if let mean = summary.mean { #expect(!mean.isNaN) }
        #expect(!summary.cells.contains { $0.contains("nan") }, "\(summary.cells)")
        for cell in cells { #expect(CellText.isNumber(Array(cell.utf8)[...]), "right-aligned: \(cell)") }
    }

    @Test("a date/time column: the sort's first and last are the summary's min and max", arguments: UInt64(1)...12)
    func instants(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let cells = (0..<(2 + Int(generator.next() % 60))).map { _ in Self.instant(&generator) }
        let store = CellStore(bytes: Array(("v\n" + cells.joined(separator: "\n") + "\n").utf8), name: "d.csv")
        let instant: (String?) -> Double? = { $0.flatMap { CellValue.instant(Array($0.utf8)[...]) } }
        let order = sorted(store, descending: false)
        let summary = try summary(store)
        #expect(summary.kind == .dateTime, "\(cells)")
        #expect(instant(summary.minimum) == instant(cells[order.first! - 1]), "\(cells)")
        #expect(instant(summary.maximum) == instant(cells[order.last! - 1]), "\(cells)")
    }

    @Test("past Double's range a mean is infinite or blank, never NaN")
    func infiniteValues() throws {
        let up = try summary(CellStore(bytes: Array("v\n1e400\n1\n".utf8), name: "i.csv"))
        #expect(up.mean == .infinity && up.standardDeviation == nil)
        #expect(up.cells[7] == "inf" && up.cells[8] == "")
        #expect(up.maximum == "1e400" && up.minimum == "1")
        let both = try summary(CellStore(bytes: Array("v\n1e400\n-1e400\n".utf8), name: "i.csv"))
        #expect(both.mean == nil && both.cells[7] == "" && both.cells[8] == "")
        let huge = try summary(CellStore(bytes: Array("v\n1.5e308\n1.5e308\n".utf8), name: "h.csv"))
        #expect(huge.mean == 1.5e308)
    }

    @Test("a number past Double's range is at its end in the quantiles, as in a sort: not left out of the ranks")
    func quantilesWithInfinities() throws {
        let numbers = (0..<20).map(String.init)
        let up = try summary(CellStore(bytes: Array(("v\n1e400\n" + numbers.joined(separator: "\n") + "\n").utf8), name: "u.csv"))
        #expect(up.quantiles == [10, 5, 15, 1, 19], "\(String(describing: up.quantiles))")
        let both = try summary(CellStore(bytes: Array(("v\n1e400\n-1e400\n" + numbers.joined(separator: "\n") + "\n").utf8),
                                         name: "b.csv"))
        #expect(both.quantiles == [9.5, 4.25, 14.75, 0.05, 18.95], "\(String(describing: both.quantiles))")
        let alone = try summary(CellStore(bytes: Array("v\n1e400\n1e401\n".utf8), name: "a.csv"))
        #expect(alone.quantiles == [.infinity, .infinity, .infinity, .infinity, .infinity])
        #expect(Array(alone.cells[12...16]) == ["inf", "inf", "inf", "inf", "inf"], "\(alone.cells)")
    }

    @Test("the standard deviation of values near either end of Double's range is theirs: not 0 for tiny ones, not inf for huge ones")
    func extremeSpreads() throws {
        func deviation(_ cells: [String]) throws -> Double? {
            try summary(CellStore(bytes: Array(("v\n" + cells.joined(separator: "\n") + "\n").utf8), name: "s.csv")).standardDeviation
        }
        // Sample deviation of a and b: |a − b| / √2.
        let tiny = try #require(try deviation(["1e-308", "3e-308"]))
        #expect(abs(tiny / (2e-308 / 2.0.squareRoot()) - 1) < 1e-12, "\(tiny)")
        let subnormal = try #require(try deviation(["1e-320", "3e-320"]))
        let gap = try #require(Double("2e-320"))
        #expect(abs(subnormal / (gap / 2.0.squareRoot()) - 1) < 1e-3, "\(subnormal)")
        let huge = try #require(try deviation(["1e308", "-1e308"]))
        #expect(abs(huge / (1e308 * 2.0.squareRoot()) - 1) < 1e-12, "\(huge)")
        // Past Double's range itself: infinite.
        #expect(try deviation(["1.7e308", "-1.7e308"]) == .infinity)
        // In between, what it always was: 1, 2, 3, 4 → √(5/3).
        #expect(try deviation(["1", "2", "3", "4"]) == (5.0 / 3).squareRoot())
        #expect(try deviation(["5e-200", "5e-200"]) == 0)
        // Many parts joined (the summary's two cores): the same as one.
        let many = (0..<50_000).map { "\($0 % 97)e-310" }
        let joined = try #require(try deviation(many))
        let values = many.map { Double($0)! }
        let mean = values.reduce(0) { $0 + $1 * 1e300 } / Double(values.count)
        let reference = (values.reduce(0) { $0 + ($1 * 1e300 - mean) * ($1 * 1e300 - mean) } / Double(values.count - 1)).squareRoot() / 1e300
        #expect(abs(joined / reference - 1) < 1e-9, "\(joined) \(reference)")
    }

    @Test("a percentage is read in hundredths everywhere")
    func percentages() throws {
        let store = CellStore(bytes: Array("v\n50%\n0.6\n25%\n".utf8), name: "p.csv")
        let summary = try summary(store)
        #expect(summary.minimum == "25%" && summary.maximum == "0.6")
        #expect(summary.mean == 0.45)
        #expect(sorted(store, descending: false) == [3, 1, 2])
    }

    @Test("currency values are right-aligned on screen and in a table, as the sort reads them as numbers")
    func currencyIsAligned() {
        let lines = viewer("item,price\na,$12.00\nb,-€3.20\nc,7\n", width: 24, height: 5).frame().lines
        #expect(Array(lines[0..<4]) == [
            "  #│item price          ",
            "  1│a    $12.00         ",
            "  2│b    -€3.20         ",
            "  3│c         7         ",
        ])
        var bytes: [UInt8] = []
        let writer = OutputWriter(format: .table) { bytes += $0; return true }
        for row in [["item", "price"], ["a", "$12.00"], ["b", "-€3.20"], ["c", "7"]] { writer.write(Row(cells: row)) }
        writer.finish()
        #expect(String(decoding: bytes, as: UTF8.self) == "item  price\n────────────\na     $12.00\nb     -€3.20\nc          7\n")
    }
}
