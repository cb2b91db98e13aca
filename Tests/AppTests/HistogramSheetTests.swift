import Foundation
import Testing
import App
import CellStore
import FreezeLayout
import Table
import Viewer

@Suite("The histogram sheet: bins of a range, % for values, Enter filters", .timeLimit(.minutes(30)))
struct HistogramSheetTests {
    /// price: 0.5 … 99.5 (one a row, 100 rows); day: 100 days of 2024, in every month;
    /// rating: 1 to 5; city: text.
    private static let csv = "price,day,rating,city\n" + (0..<100).map { index in
        "\(index).5,2024-\(String(format: "%02d", index % 12 + 1))-0\(index / 12 + 1),\(index % 5 + 1),"
            + (index % 3 == 0 ? "Oslo" : "Lyon")
    }.joined(separator: "\n") + "\n"

    private func loop(_ csv: String = Self.csv) -> (AppLoop, FakeScreen) {
        setlocale(LC_ALL, "C.UTF-8")
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 90, height: 16)
        let table = Viewer(store: CellStore(bytes: Array(csv.utf8), onChange: screen.wake), screenSize: screen.size)
        return (AppLoop(table: table, screen: screen, clock: clock, reopen: { CellStore(bytes: Array(csv.utf8)) }), screen)
    }

    private func keys(_ text: String) -> [Happening] { text.map { .key(.character($0)) } }

    /// Turns the loop with news on its fake clock until `condition` holds, waiting for the
    /// passes' news between turns.
    private func run(_ subject: AppLoop, _ screen: FakeScreen, until what: String,
                     sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) {
        screen.turn(subject, until: what, condition, sourceLocation: sourceLocation)
    }

    private func cells(_ viewer: Viewer, column: Int) -> [String] {
        (0..<viewer.dataRowCount).map { String(decoding: viewer.table.cell(row: $0, column: column), as: UTF8.self) }
    }

    @Test("# on a column of many numbers shows bins with round bounds; Enter on one keeps its rows as a typed filter")
    func bins() {
        let (subject, screen) = loop()
        screen.script = [keys("#")]
        subject.step()
        run(subject, screen, until: "the bins") { subject.top.frame().lines.last?.contains("100 numbers in 10 bins of 10") == true }
        let sheet = subject.top
        #expect(cells(sheet, column: 0) == (0..<10).map { "[\($0 * 10), \($0 * 10 + 10))" })
        #expect(cells(sheet, column: 1) == Array(repeating: "10", count: 10))
        #expect(cells(sheet, column: 2) == Array(repeating: "10.00", count: 10))
        // Enter on [20, 30): the table keeps the ten rows from 20.5 to 29.5.
        screen.script = [[.key(.down), .key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 1)
        run(subject, screen, until: "the filter") { subject.table.dataRowCount == 10 }
        #expect(cells(subject.table, column: 0) == (20..<30).map { "\($0).5" })
        let status = subject.table.frame().lines.last ?? ""
        #expect(status.contains("1 filter") && status.contains("kept the rows where price is in [20, 30)"), "\(status)")
    }

    @Test("% switches the sheet to the exact values and back; q returns to the table")
    func switching() {
        let (subject, screen) = loop()
        screen.script = [keys("#")]
        subject.step()
        run(subject, screen, until: "the bins") { subject.top.frame().lines.last?.contains("bins of 10") == true }
        screen.script = [keys("%")]
        subject.step()
        #expect(subject.sheets.count == 2)
        run(subject, screen, until: "the values") { subject.top.frame().lines.last?.contains("all 100 values are unique") == true }
        #expect(subject.top.frame().lines[0].contains("value"))
        screen.script = [keys("%")]
        subject.step()
        run(subject, screen, until: "the bins again") { subject.top.frame().lines.last?.contains("bins of 10") == true }
        screen.script = [keys("q")]
        subject.step()
        #expect(subject.sheets.count == 1)
    }

    @Test("one value in one row is said once, not '1 times'")
    func once() {
        let (subject, screen) = loop("n\n5\n")
        screen.script = [keys("#")]
        subject.step()
        run(subject, screen, until: "the value") { subject.top.frame().lines.last?.contains("1 distinct value") == true }
        screen.script = [keys("%")]
        subject.step()
        run(subject, screen, until: "its bin") { subject.top.frame().lines.last?.contains("one value, 5, once (a flat line)") == true }
    }

    @Test("few distinct numbers open as values, % shows them in bins; dates bin by month; text has no bins")
    func kinds() {
        let (subject, screen) = loop()
        screen.script = [keys("ll#")]
        subject.step()
        run(subject, screen, until: "the ratings") { subject.top.frame().lines.last?.contains("5 distinct values") == true }
        screen.script = [keys("%")]
        subject.step()
        run(subject, screen, until: "the ratings in bins") { subject.top.frame().lines.last?.contains("100 numbers in") == true }
        screen.script = [keys("qh#")]
        subject.step()
        run(subject, screen, until: "the days") { subject.top.frame().lines.last?.contains("100 dates in 12 bins of 1 month") == true }
        #expect(cells(subject.top, column: 0).first == "[2024-01-01, 2024-02-01)")
        screen.script = [keys("qll#")]
        subject.step()
        run(subject, screen, until: "the cities") { subject.top.frame().lines.last?.contains("2 distinct values") == true }
        screen.script = [keys("%")]
        subject.step()
        #expect(subject.top.frame().lines.last?.contains("% switches a number or date column's sheet") == true)
    }
}
