import Foundation
import Testing
import App
import CellStore
import FreezeLayout
import Table
import Viewer

@Suite("Frequency and summary sheets over the table", .timeLimit(.minutes(30)))
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
        let table = Viewer(store: CellStore(bytes: Array(Self.csv.utf8), onChange: screen.wake), screenSize: screen.size)
        return (AppLoop(table: table, screen: screen, clock: clock, reopen: { CellStore(bytes: Array(Self.csv.utf8)) }), screen)
    }

    private func keys(_ text: String) -> [Happening] { text.map { .key(.character($0)) } }

    private func cells(_ viewer: Viewer, column: Int) -> [String] {
        (0..<viewer.dataRowCount).map { String(decoding: viewer.table.cell(row: $0, column: column), as: UTF8.self) }
    }

    @Test("# counts the column's values, most frequent first; Enter on one filters the table to it")
    func frequency() {
        let (subject, screen) = loop()
        screen.script = [keys("l#")]
        subject.step()
        #expect(subject.sheets.count == 2)
        turn(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        let sheet = subject.top
        // The empty value is an empty cell (the screen labels it `(empty)`).
        #expect(cells(sheet, column: 0) == ["Oslo", "Bergen", "", "Tromsø"])
        #expect(cells(sheet, column: 1) == ["6", "3", "2", "1"])
        #expect(cells(sheet, column: 2) == ["50.00", "25.00", "16.67", "8.33"])
        // Enter on Bergen: back to the table, showing the Bergen rows only.
        screen.script = [[.key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 1)
        turn(subject, screen, until: "the filter") { subject.table.dataRowCount == 3 }
        #expect(cells(subject.table, column: 0) == ["2", "7", "11"])
    }

    @Test("the empty value is a value: Enter on it keeps the rows with an empty cell")
    func emptyValue() {
        let (subject, screen) = loop()
        screen.script = [keys("l#")]
        subject.step()
        turn(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        screen.script = [[.key(.down), .key(.down), .key(.enter)]]
        subject.step()
        turn(subject, screen, until: "the filter") { subject.table.dataRowCount == 2 }
        #expect(cells(subject.table, column: 0) == ["3", "9"])
    }

    @Test("I lists every column with its kind and counts; Enter opens a column's frequency over it; q goes back one sheet")
    func summary() {
        let (subject, screen) = loop()
        screen.script = [keys("I")]
        subject.step()
        turn(subject, screen, until: "the summary") {
            subject.top.dataRowCount == 3 && subject.top.frame().lines.last?.contains("Enter: the column") == true
        }
        let sheet = subject.top
        #expect(cells(sheet, column: 0) == ["id", "city", "amount"])
        #expect(cells(sheet, column: 1) == ["integer", "text", "integer"])
        #expect(cells(sheet, column: 2) == ["12", "10", "12"], "filled")
        #expect(cells(sheet, column: 3) == ["0", "2", "0"], "empty")
        #expect(cells(sheet, column: 5)[2] == "1" && cells(sheet, column: 6)[2] == "20", "min and max of amount")
        screen.script = [[.key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 3, "the frequency sheet over the summary")
        turn(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
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
        turn(subject, screen, until: "the filter") { subject.table.dataRowCount == 4 }
        screen.script = [keys("l#")]
        subject.step()
        turn(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        #expect(cells(subject.top, column: 0) == ["Bergen", "Tromsø"])
        #expect(cells(subject.top, column: 1) == ["3", "1"])
    }
}

extension SheetTests {
    @Test("a sheet's viewer is made once: the cursor, the sheet's sort and a width stay while its rows are replaced")
    func viewerMadeOnce() {
        let (subject, screen) = loop()
        func counts(_ values: [(String, Int)]) -> [Row] { values.map { Row(cells: [$0.0, "\($0.1)"]) } }
        let sheet = SteppedSheet(steps: [
            counts([("Oslo", 3), ("Bergen", 2), ("Tromsø", 1), ("Bodø", 1)]),
            counts([("Oslo", 5), ("Bergen", 4), ("Tromsø", 2), ("Bodø", 1), ("Alta", 1)]),
            counts([("Oslo", 6), ("Bergen", 7), ("Tromsø", 3), ("Bodø", 1), ("Alta", 2), ("Molde", 9)]),
        ])
        subject.push(sheet)
        let viewer = subject.top
        /// Until the sheet's passes are done, then one more turn to show what they made.
        func settle(_ what: String) {
            turn(subject, screen, until: what) { !viewer.isQueryRunning }
            screen.turnWithNews(subject)
        }
        // Sorted by count, then the cursor on the third row and the value column widened.
        screen.script = [keys("l]")]
        subject.step()
        settle("the sort")
        screen.script = [keys("jj") + [.key(.left)] + keys(">>>")]
        subject.step()
        #expect(cells(viewer, column: 0) == ["Oslo", "Bergen", "Tromsø", "Bodø"])
        let width = viewer.columnWidths[0]
        #expect(viewer.cursorRow == 2)
        // The pass publishes twice: the same viewer, its sort run again over the new rows.
        for _ in 0..<2 {
            sheet.release()
            screen.turnWithNews(subject)
        }
        settle("the sort of the new rows")
        #expect(sheet.published == 3)
        #expect(subject.top === viewer, "no new viewer was made")
        #expect(cells(viewer, column: 0) == ["Molde", "Bergen", "Oslo", "Tromsø", "Alta", "Bodø"])
        #expect(viewer.cursorRow == 2 && viewer.cursorColumn == 0, "the cursor stays where the user put it")
        #expect(viewer.columnWidths[0] == width, "the width the user chose stays")
        #expect(viewer.frame().lines.last?.contains("sorted by count") == true, "\(viewer.frame().lines.last ?? "")")
    }

    @Test("a sheet is rows in memory, never a file: no CSV is written out and parsed back for it", arguments: ["l#", "I"])
    func sheetsAreRowsInMemory(keysTyped: String) {
        let (subject, screen) = loop()
        screen.script = [keys(keysTyped)]
        subject.step()
        #expect(subject.sheets.count == 2)
        let sheet = subject.top
        turn(subject, screen, until: "the pass") { sheet.source.isComplete }
        #expect(sheet.file == nil, "a sheet has no file behind it")
        #expect(sheet.source is MemoryRows)
        #expect(subject.top === sheet)
    }

    @Test("a sheet of a sheet: # and I over a frequency sheet count its own rows")
    func sheetOfASheet() {
        let (subject, screen) = loop()
        screen.script = [keys("l#")]
        subject.step()
        turn(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        // Of the counts 6, 3, 2 and 1, each occurs once.
        screen.script = [keys("l#")]
        subject.step()
        #expect(subject.sheets.count == 3)
        turn(subject, screen, until: "the count of the sheet") { subject.top.frame().lines.last?.contains("all 4 values are unique") == true }
        #expect(cells(subject.top, column: 0) == ["6", "3", "2", "1"])
        #expect(cells(subject.top, column: 1) == ["1", "1", "1", "1"])
        screen.script = [keys("qI")]
        subject.step()
        turn(subject, screen, until: "the summary of the sheet") {
            subject.top.dataRowCount == 4 && subject.top.frame().lines.last?.contains("Enter: the column") == true
        }
        #expect(cells(subject.top, column: 0) == ["value", "count", "percent", "share"])
        #expect(cells(subject.top, column: 1) == ["text", "integer", "decimal", "text"])
    }

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
        turn(subject, screen, until: "the filter") { subject.table.dataRowCount == 3 }
        #expect(cells(subject.table, column: 1) == ["Bergen", "Bergen", "Bergen"])
        #expect(frequency.cancelled && summary.cancelled, "both sheets' passes were stopped")
    }

    @Test("a sheet's own passes wake the loop: Ctrl-S from a frequency sheet says it wrote the file")
    func saveFromSheet() throws {
        let (subject, screen) = loop()
        screen.script = [keys("l#")]
        subject.step()
        turn(subject, screen, until: "the count") { subject.top.frame().lines.last?.contains("distinct values in") == true }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        screen.script = [[.key(Key.control("s"))] + keys(target) + [.key(.enter)]]
        subject.step()
        // Only the wake of the save's own thread brings the news here.
        turn(subject, screen, until: "the save") { subject.top.frame().lines.last?.contains("wrote 4 rows") == true }
        let written = try String(contentsOfFile: target, encoding: .utf8)
        // What `--frequency city --output csv` writes: no bar, the empty value empty.
        #expect(written == "value,count,percent\nOslo,6,50.00\nBergen,3,25.00\n,2,16.67\nTromsø,1,8.33\n")
    }
}

/// A sheet whose rows are given, and whose Enter does what it is told.
final class FixedSheet: SheetSource {
    let viewer: Viewer
    let choice: (Int) -> SheetChoice
    private(set) var cancelled = false

    init(csv: String, choice: @escaping (Int) -> SheetChoice) {
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let rows = MemoryRows(name: "fixed", columns: lines.first ?? [])
        rows.append(lines.dropFirst().map { Row(cells: $0) })
        rows.finish()
        var options = ViewerOptions()
        options.isSheet = true
        viewer = Viewer(source: rows, options: options, screenSize: Size(width: 90, height: 12))
        self.choice = choice
    }

    func update() {}
    func choose(record: Int) -> SheetChoice { choice(record) }
    func cancel() { cancelled = true }
}

/// A sheet whose pass is the test: `update()` publishes the next of `steps` (rows that
/// replace those before, as a count's newer table does) once the test has released it.
final class SteppedSheet: SheetSource {
    let viewer: Viewer
    let rows = MemoryRows(name: "stepped", columns: ["value", "count"])
    private var steps: [[Row]]
    private var released = 1
    private(set) var published = 0

    init(steps: [[Row]]) {
        self.steps = steps
        var options = ViewerOptions(bounce: .none, showsIndicators: false)
        options.isSheet = true
        viewer = Viewer(source: rows, options: options, screenSize: Size(width: 90, height: 12))
        update()
    }

    /// Lets the next `update()` publish one more step.
    func release() { released += 1 }

    func update() {
        guard published < released, !steps.isEmpty else { return }
        published += 1
        rows.replace(steps.removeFirst())
        if steps.isEmpty { rows.finish() }
    }

    func choose(record: Int) -> SheetChoice { .nothing }
    func cancel() {}
}
