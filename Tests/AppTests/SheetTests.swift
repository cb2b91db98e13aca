import Foundation
import Testing
import App
import CellStore
import FreezeLayout
import Viewer

@Suite("Frequency and summary sheets over the table")
struct SheetTests {
    /// city: Oslo ×6, Bergen ×3, empty ×2, Tromsø ×1 (ties in order of first appearance).
    private static let csv = "id,city,amount\n" + [
        "1,Oslo,10", "2,Bergen,20", "3,,5", "4,Oslo,7", "5,Tromsø,1", "6,Oslo,3", "7,Bergen,8",
        "8,Oslo,2", "9,,4", "10,Oslo,6", "11,Bergen,9", "12,Oslo,11",
    ].joined(separator: "\n") + "\n"

    private func loop() -> (AppLoop, FakeScreen) {
        setlocale(LC_ALL, "C.UTF-8")
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 90, height: 12)
        let table = Viewer(store: CellStore(bytes: Array(Self.csv.utf8)), screenSize: screen.size)
        return (AppLoop(table: table, screen: screen, clock: clock, reopen: { CellStore(bytes: Array(Self.csv.utf8)) }), screen)
    }

    private func keys(_ text: String) -> [Happening] { text.map { .key(.character($0)) } }

    /// Turns with news until `condition` holds (the passes run on their own threads).
    private func run(_ subject: AppLoop, _ screen: FakeScreen, until what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            if Date() > deadline { Issue.record("timed out waiting for \(what)"); return }
            screen.script = [[.news]]
            subject.step()
            usleep(2000)
        }
    }

    private func cells(_ viewer: Viewer, column: Int) -> [String] {
        (0..<viewer.dataRowCount).map { String(decoding: viewer.table.cell(row: $0, column: column), as: UTF8.self) }
    }

    @Test("# counts the column's values, most frequent first; Enter on one filters the table to it")
    func frequency() {
        let (subject, screen) = loop()
        screen.script = [keys("l#")]
        subject.step()
        #expect(subject.sheets.count == 2)
        run(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        let sheet = subject.top
        #expect(cells(sheet, column: 0) == ["Oslo", "Bergen", "(empty)", "Tromsø"])
        #expect(cells(sheet, column: 1) == ["6", "3", "2", "1"])
        #expect(cells(sheet, column: 2) == ["50.00", "25.00", "16.67", "8.33"])
        // Enter on Bergen: back to the table, showing the Bergen rows only.
        screen.script = [[.key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 1)
        run(subject, screen, until: "the filter") { subject.table.dataRowCount == 3 }
        #expect(cells(subject.table, column: 0) == ["2", "7", "11"])
    }

    @Test("the empty value is a value: Enter on it keeps the rows with an empty cell")
    func emptyValue() {
        let (subject, screen) = loop()
        screen.script = [keys("l#")]
        subject.step()
        run(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        screen.script = [[.key(.down), .key(.down), .key(.enter)]]
        subject.step()
        run(subject, screen, until: "the filter") { subject.table.dataRowCount == 2 }
        #expect(cells(subject.table, column: 0) == ["3", "9"])
    }

    @Test("I lists every column with its kind and counts; Enter opens a column's frequency over it; q goes back one sheet")
    func summary() {
        let (subject, screen) = loop()
        screen.script = [keys("I")]
        subject.step()
        run(subject, screen, until: "the summary") { subject.top.frame().lines.last?.contains("Enter: the column") == true }
        let sheet = subject.top
        #expect(cells(sheet, column: 0) == ["id", "city", "amount"])
        #expect(cells(sheet, column: 1) == ["integer", "text", "integer"])
        #expect(cells(sheet, column: 2) == ["12", "10", "12"], "filled")
        #expect(cells(sheet, column: 3) == ["0", "2", "0"], "empty")
        #expect(cells(sheet, column: 5)[2] == "1" && cells(sheet, column: 6)[2] == "20", "min and max of amount")
        screen.script = [[.key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 3, "the frequency sheet over the summary")
        run(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        #expect(cells(subject.top, column: 0).first == "Oslo")
        screen.script = [keys("q")]
        subject.step()
        #expect(subject.sheets.count == 2 && !subject.isFinished)
        screen.script = [[.key(.escape)]]
        subject.step()
        #expect(subject.sheets.count == 1 && !subject.isFinished, "Esc goes back from a sheet")
    }

    @Test("sheets honour the filters in force")
    func filtered() {
        let (subject, screen) = loop()
        screen.script = [keys("&Bergen|Tromsø") + [.key(.enter)]]
        subject.step()
        run(subject, screen, until: "the filter") { subject.table.dataRowCount == 4 }
        screen.script = [keys("l#")]
        subject.step()
        run(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        #expect(cells(subject.top, column: 0) == ["Bergen", "Tromsø"])
        #expect(cells(subject.top, column: 1) == ["3", "1"])
    }
}

extension SheetTests {
    @Test("a value chosen in a sheet opened from another sheet applies to the sheet that opened both, and both close")
    func nestedSheets() {
        let (subject, screen) = loop()
        // Sheets whose rows are there at once, so the loop's routing is what is tested.
        let frequency = FixedSheet(csv: "value,count\nOslo,6\nBergen,3\n") { record in
            .command(.keepValue(column: 1, value: Array((record == 1 ? "Oslo" : "Bergen").utf8)))
        }
        let summary = FixedSheet(csv: "column,type\nid,integer\ncity,text\n") { _ in .push(frequency) }
        subject.push(summary)
        screen.script = [[.key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 3, "the second sheet over the first")
        screen.script = [[.key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 1, "back at the table")
        run(subject, screen, until: "the filter") { subject.table.dataRowCount == 3 }
        #expect(cells(subject.table, column: 1) == ["Bergen", "Bergen", "Bergen"])
        #expect(frequency.cancelled && summary.cancelled, "both sheets' passes were stopped")
    }

    @Test("a sheet's own passes wake the loop: Ctrl-S from a frequency sheet says it wrote the file")
    func saveFromSheet() throws {
        let (subject, screen) = loop()
        screen.script = [keys("l#")]
        subject.step()
        run(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        screen.script = [[.key(Key.control("s"))] + keys(target) + [.key(.enter)]]
        subject.step()
        // Only the wake of the save's own thread brings the news here.
        let deadline = Date().addingTimeInterval(10)
        while subject.top.frame().lines.last?.contains("wrote 4 rows") != true && Date() < deadline {
            screen.script = [[.news]]
            subject.step()
            usleep(2000)
        }
        #expect(subject.top.frame().lines.last?.contains("wrote 4 rows") == true)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        // What `--frequency city --output csv` writes: no bar, the empty value empty.
        #expect(written == "value,count,percent\nOslo,6,50.00\nBergen,3,25.00\n,2,16.67\nTromsø,1,8.33\n")
    }
}

/// A sheet whose rows are given, and whose Enter does what it is told.
final class FixedSheet: SheetSource {
    let csv: String
    let choice: (Int) -> SheetChoice
    private(set) var cancelled = false

    init(csv: String, choice: @escaping (Int) -> SheetChoice) {
        self.csv = csv
        self.choice = choice
    }

    func viewer(size: Size) -> Viewer {
        var options = ViewerOptions()
        options.isSheet = true
        return Viewer(store: CellStore(bytes: Array(csv.utf8)), options: options, screenSize: size)
    }

    var hasNews: Bool { false }
    func choose(record: Int) -> SheetChoice { choice(record) }
    func cancel() { cancelled = true }
}
