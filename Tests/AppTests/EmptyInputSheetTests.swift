import Foundation
import Testing
import TestSupport
import App
import CellStore
import FreezeLayout
import Viewer

@Suite("Sheets over an empty input", .timeLimit(.minutes(30)))
struct EmptyInputSheetTests {
    @Test("I and # on an input with no record say so, as --summary does, and open no sheet")
    func emptyInput() throws {
        setlocale(LC_ALL, "C.UTF-8")
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 60, height: 8)
        // Indexed as it is made (bytes in memory).
        let store = CellStore(bytes: [])
        try #require(store.isComplete)
        let subject = AppLoop(table: Viewer(store: store, screenSize: screen.size), screen: screen, clock: clock,
                              reopen: { CellStore(bytes: []) })
        for key in ["I", "#"] {
            screen.script = [key.map { .key(.character($0)) }]
            subject.step()
            #expect(subject.sheets.count == 1, "\(key)")
            #expect(subject.top.frame().lines.last?.contains("empty input, nothing to count") == true,
                    "\(key): \(subject.top.frame().lines.last ?? "")")
        }
    }

    @Test("I and # on a header with no data row open their sheets, as --summary and --frequency write them: zero counts")
    func headerOnly() throws {
        setlocale(LC_ALL, "C.UTF-8")
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 60, height: 8)
        let bytes = Array("a,b\n".utf8)
        let store = CellStore(bytes: bytes, onChange: screen.wake)
        try #require(store.isComplete)
        let subject = AppLoop(table: Viewer(store: store, screenSize: screen.size), screen: screen, clock: clock,
                              reopen: { CellStore(bytes: bytes) })
        for key in ["I", "#"] {
            screen.script = [key.map { .key(.character($0)) }]
            subject.step()
            #expect(subject.sheets.count == 2, "\(key)")
            turn(subject, screen, until: "the \(key) sheet") {
                (subject.top.frame().lines.last ?? "").contains(key == "#" ? "in 0 rows" : "row 1/2")
            }
            let status = subject.top.frame().lines.last ?? ""
            // The summary: a row for each of the header's two columns; the count: none.
            #expect(status.contains(key == "#" ? "0 distinct values in 0 rows" : "row 1/2"), "\(key): \(status)")
            #expect(!status.contains("empty input"), "\(key): \(status)")
            screen.script = [[.key(.escape)]]
            subject.step()
            #expect(subject.sheets.count == 1, "\(key): Esc goes back to the table")
        }
    }
}
