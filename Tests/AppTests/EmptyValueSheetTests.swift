import Foundation
import Testing
import App
import CellStore
import FreezeLayout
import Table
import Viewer

/// The frequency sheet's empty value is an empty cell, labelled `(empty)` on screen in the
/// style of text the data does not hold: a real `(empty)` text reads apart from it, and
/// filters, sort, search and Ctrl-S all see it empty.
@Suite("The frequency sheet's empty value", .timeLimit(.minutes(30)))
struct EmptyValueSheetTests {
    /// v: a real `(empty)` text ×2, the empty value ×1, `x` ×1.
    private static let csv = "v\n(empty)\n\n(empty)\nx\n"

    private func loop() -> (AppLoop, FakeScreen) {
        setlocale(LC_ALL, "C.UTF-8")
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 50, height: 8)
        let table = Viewer(store: CellStore(bytes: Array(Self.csv.utf8), onChange: screen.wake), screenSize: screen.size)
        return (AppLoop(table: table, screen: screen, clock: clock, reopen: { CellStore(bytes: Array(Self.csv.utf8)) }), screen)
    }

    private func keys(_ text: String) -> [Happening] { text.map { .key(.character($0)) } }

    /// The sheet's lines above the status line, trailing spaces dropped.
    private func grid(_ viewer: Viewer) -> [String] {
        viewer.frame().lines.dropLast().map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    /// The frequency sheet of v, counted.
    private func sheet() -> (AppLoop, FakeScreen) {
        let (subject, screen) = loop()
        screen.script = [keys("#")]
        subject.step()
        // The count's end, and its rows taken in by the sheet's viewer (the status line may
        // say the end a turn before the rows are laid out).
        turn(subject, screen, until: "the count") {
            let lines = subject.top.frame().lines
            return lines.last?.contains("distinct values in") == true && lines.count > 1 && lines[1].contains("│")
        }
        return (subject, screen)
    }

    @Test("the empty value is an empty cell drawn (empty) dim and italic; a real (empty) is plain text")
    func toldApart() {
        let (subject, _) = sheet()
        let sheet = subject.top
        #expect((0..<sheet.dataRowCount).map { String(decoding: sheet.table.cell(row: $0, column: 0), as: UTF8.self) }
                == ["(empty)", "", "x"])
        #expect(grid(sheet).prefix(4) == [
            "  # value  │count percent share",
            "  1 (empty)│    2   50.00 ████████████████████",
            "  2 (empty)│    1   25.00 ██████████",
            "  3 x      │    1   25.00 ██████████",
        ])
        let frame = sheet.frame()
        // Row 1 holds the cursor (reversed): the real text in the cursor's style; row 2 the label.
        #expect(frame.style(x: 4, y: 1) == .cursor)
        #expect(frame.style(x: 4, y: 2) == .madeName)
        #expect(frame.style(x: 4, y: 3) == .plain)
        // Under the cursor the label stays told apart from text.
        sheet.handle(key: .down)
        #expect(sheet.frame().style(x: 4, y: 2) == .madeNameOfCursorColumn)
        #expect(sheet.frame().style(x: 4, y: 1) == .plain)
    }

    @Test("&^$ in the sheet keeps the empty value, and only it")
    func filterKeepsTheEmptyValue() {
        let (subject, screen) = sheet()
        screen.script = [keys("&^$") + [.key(.enter)]]
        subject.step()
        turn(subject, screen, until: "the filter") { subject.top.dataRowCount == 1 && subject.top.frame().lines.last?.contains("1 filter") == true }
        #expect(grid(subject.top).prefix(2) == ["  # value  │count percent share", "  2 (empty)│    1   25.00 ██████████"])
        // The label is not text: a filter for it keeps the real value alone.
        let (other, otherScreen) = self.sheet()
        otherScreen.script = [keys("&^\\(empty\\)$") + [.key(.enter)]]
        other.step()
        turn(other, otherScreen, until: "the filter") { other.top.frame().lines.last?.contains("1 filter") == true }
        #expect(grid(other.top).prefix(2) == ["  # value  │count percent share", "  1 (empty)│    2   50.00 ████████████████████"])
        #expect(other.top.dataRowCount == 1)
    }

    @Test("[ sorts the empty value last, as every empty cell")
    func sortsLast() {
        let (subject, screen) = sheet()
        screen.script = [keys("[")]
        subject.step()
        turn(subject, screen, until: "the sort") { subject.top.frame().lines.last?.contains("sorted by value") == true }
        #expect(grid(subject.top).prefix(4) == [
            "  # value  │count percent share",
            "  1 (empty)│    2   50.00 ████████████████████",
            "  3 x      │    1   25.00 ██████████",
            "  2 (empty)│    1   25.00 ██████████",
        ])
        #expect(subject.top.frame().style(x: 4, y: 3) == .madeName)
    }

    @Test("/empty finds the real text only, never the label")
    func searchSkipsTheLabel() {
        let (subject, screen) = sheet()
        // From row 1, the real text: the next match is row 1 again, around the end.
        screen.script = [keys("/empty") + [.key(.enter)]]
        subject.step()
        turn(subject, screen, until: "the search") { !subject.top.isSearching }
        #expect(subject.top.cursorRow == 0, "no match in row 2: the empty value holds no text")
        let status = subject.top.frame().lines.last ?? ""
        #expect(status.contains("search wrapped around"), "\(status)")
    }

    @Test("Ctrl-S writes the empty value as an empty field and a real (empty) as itself")
    func savesEmpty() throws {
        let (subject, screen) = sheet()
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        screen.script = [[.key(Key.control("s"))] + keys(target) + [.key(.enter)]]
        subject.step()
        turn(subject, screen, until: "the save") { subject.top.frame().lines.last?.contains("wrote 3 rows") == true }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "value,count,percent\n(empty),2,50.00\n,1,25.00\nx,1,25.00\n")
    }
}
