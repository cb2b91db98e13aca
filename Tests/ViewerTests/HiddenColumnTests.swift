import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

/// A hidden column is out of the view: searches and filters look only at what is shown.
@Suite("Hidden columns and what matches", .timeLimit(.minutes(30)))
struct HiddenColumnTests {
    /// `secret` holds `needle` on rows 2 and 4; `note` on row 5 only.
    let csv = "id,secret,note\n1,a,x\n2,needle,x\n3,b,x\n4,needle,x\n5,c,needle\n6,d,x\n"

    func type(_ subject: Viewer, _ keys: String) {
        for character in keys { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    func settle(_ subject: Viewer) {
        waitUntil("the searches and passes to end") {
            subject.handle(.refresh)
            return !subject.isSearching && !subject.isQueryRunning
        }
        subject.handle(.refresh)
    }

    func ids(_ subject: Viewer) -> [String] {
        subject.table.fetch(rows: [0..<subject.dataRowCount])
        return (0..<subject.dataRowCount).map { String(decoding: subject.table.row($0)?.field(0) ?? [], as: UTF8.self) }
    }

    @Test("/ skips a hidden column: the cursor lands where the match shows")
    func search() {
        let subject = viewer(csv, width: 60, height: 10)
        type(subject, "l-")   // hide `secret`
        #expect(subject.columnName(subject.cursorColumn) == "note")
        subject.handle(.firstColumn)
        type(subject, "/needle\n")
        settle(subject)
        #expect((subject.cursorRow, subject.columnName(subject.cursorColumn)) == (4, "note"))
        type(subject, "n")
        settle(subject)
        #expect(subject.cursorRow == 4, "the only match in view")
        #expect(subject.message == "search wrapped around to the top")
    }

    @Test("with columns moved, n goes through a row in the order the columns show")
    func viewOrder() {
        let subject = viewer("a,b,c\nx1,x2,x3\n", width: 60, height: 10)
        type(subject, "llH")   // c moves before b: a, c, b
        #expect((0..<3).map(subject.columnName) == ["a", "c", "b"])
        subject.handle(.firstColumn)
        type(subject, "/x\n")
        settle(subject)
        #expect(subject.columnName(subject.cursorColumn) == "c")
        type(subject, "n")
        settle(subject)
        #expect(subject.columnName(subject.cursorColumn) == "b")
        type(subject, "N")
        settle(subject)
        #expect(subject.columnName(subject.cursorColumn) == "c")
    }

    @Test("& and &! look only at the columns shown, and again when columns are hidden or shown")
    func filters() {
        let subject = viewer(csv, width: 60, height: 10)
        type(subject, "&needle\n")
        settle(subject)
        #expect(ids(subject) == ["2", "4", "5"])
        subject.handle(.firstColumn)
        type(subject, "l-")   // hide `secret`: the filter is run again over what shows
        settle(subject)
        #expect(ids(subject) == ["5"])
        type(subject, "+")
        settle(subject)
        #expect(ids(subject) == ["2", "4", "5"])
        type(subject, "&\n")
        settle(subject)
        subject.handle(.firstColumn)
        type(subject, "l-&!needle\n")
        settle(subject)
        #expect(ids(subject) == ["1", "2", "3", "4", "6"])
    }
}
