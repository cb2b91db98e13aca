import Testing
import CellStore
import FreezeLayout
import Table
@testable import Viewer

@Suite("Hiding, moving and choosing columns", .timeLimit(.minutes(30)))
struct ColumnChoiceTests {
    private func viewer() -> Viewer {
        var text = "id,city,amount,note\n"
        for index in 1...20 { text += "\(index),c\(index),\(index * 10),n\(index)\n" }
        return Viewer(store: CellStore(bytes: Array(text.utf8)), screenSize: Size(width: 60, height: 8))
    }

    private func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    @Test("- hides the cursor's column, the status line counts it, + brings every column back")
    func hideAndShow() {
        let subject = viewer()
        type(subject, "l-")
        var lines = subject.frame().lines
        #expect(!lines[0].contains("city") && lines[0].contains("amount"), "\(lines[0])")
        #expect(lines.last?.contains("col 2/3 (1 hidden)") == true, "\(lines.last ?? "")")
        #expect(subject.cursorFileColumn == 2, "the cursor is on the next column")
        type(subject, "---")
        #expect(subject.columnCount == 1, "the last column stays")
        type(subject, "+")
        lines = subject.frame().lines
        #expect(lines[0].contains("id") && lines[0].contains("city") && lines[0].contains("note"))
        #expect(subject.table.columns.isIdentity)
        #expect(subject.invariantViolations.isEmpty)
    }

    @Test("H and L move the cursor's column and the cursor with it; moving it back restores the file's order")
    func move() {
        let subject = viewer()
        type(subject, "LL")
        #expect(subject.table.columns.shown == [1, 2, 0, 3])
        #expect(subject.cursorColumn == 2 && subject.cursorFileColumn == 0)
        let header = subject.frame().lines[0]
        #expect(header.range(of: "amount")!.lowerBound < header.range(of: "id")!.lowerBound)
        #expect(String(decoding: subject.table.cell(row: 4, column: 2), as: UTF8.self) == "5")
        type(subject, "HH")
        #expect(subject.table.columns.isIdentity && subject.cursorColumn == 0)
        type(subject, "H")
        #expect(subject.table.columns.isIdentity, "nothing left of the first column")
    }

    @Test("* shows only the columns whose names match; no match says so and changes nothing; empty shows all")
    func choose() {
        let subject = viewer()
        type(subject, "*^(ID|NOTE)$\n")
        #expect(subject.table.columns.shown == nil, "smart case: a capital makes case matter, so no match")
        #expect(subject.frame().lines.last?.contains("no column name matches") == true)
        type(subject, "*^(id|note)$\n")
        #expect(subject.table.columns.shown == [0, 3])
        #expect(subject.frame().lines.last?.contains("2 columns of 4 shown") == true)
        type(subject, "*(\n")
        #expect(subject.table.columns.shown == [0, 3], "a bad pattern says why and changes nothing")
        type(subject, "*\n")
        #expect(subject.table.columns.isIdentity)
    }

    @Test("with columns hidden, copy, the inspector, search in a column and --echo use the column shown")
    func readsFollowTheMap() {
        let subject = viewer()
        type(subject, "l-jy")
        #expect(subject.takeClipboard() == Array("20".utf8), "row 2's amount")
        subject.handle(.inspect)
        guard case .inspector(let inspector) = subject.mode else {
            Issue.record("no inspector")
            return
        }
        #expect(inspector.title.contains("amount"))
    }
}
