import Foundation
import Testing
import App
import CellStore
import FreezeLayout
import Viewer

@Suite("Sheets over an empty input")
struct EmptyInputSheetTests {
    @Test("I and # on an input with no record say so, as --summary does, and open no sheet")
    func emptyInput() throws {
        setlocale(LC_ALL, "C.UTF-8")
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 60, height: 8)
        let store = CellStore(bytes: [])
        let deadline = Date().addingTimeInterval(30)
        while !store.isComplete && Date() < deadline { usleep(1000) }
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
}
