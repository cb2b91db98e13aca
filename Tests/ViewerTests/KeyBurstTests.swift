import CellStore
import Foundation
import FreezeLayout
import Testing
import Table
@testable import Viewer

/// Keys typed faster than a search answers: each is obeyed, in order.
@Suite("Keys in a burst after a search", .timeLimit(.minutes(30)))
struct KeyBurstTests {
    /// 30 rows; `x` in the name column on every third row.
    let csv: String = {
        var text = "id,name,city,amount\n"
        for index in 1...30 { text += "\(index),\(index % 3 == 0 ? "x" : "a")\(index),c\(index),\(index)\n" }
        return text
    }()

    func type(_ subject: Viewer, _ keys: String) {
        for character in keys { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    func settle(_ subject: Viewer) {
        waitUntil("the searches to end") {
            subject.handle(.refresh)
            return !subject.isSearching
        }
    }

    @Test("nnn moves three matches; n$ ends on the last column; /x Enter then j moves a row below the match")
    func burst() {
        let subject = viewer(csv, width: 60, height: 10)
        type(subject, "/^x\n")
        settle(subject)
        #expect(subject.cursorRow == 2)
        type(subject, "nnn")
        settle(subject)
        #expect(subject.cursorRow == 11, "three matches on: rows 6, 9, 12")
        type(subject, "n$")
        settle(subject)
        #expect((subject.cursorRow, subject.cursorColumn) == (14, 3))
        subject.handle(.firstRow)
        subject.handle(.firstColumn)
        type(subject, "/^x\nj")
        settle(subject)
        #expect((subject.cursorRow, subject.cursorColumn) == (3, 1))
        type(subject, "Nk")
        settle(subject)
        #expect((subject.cursorRow, subject.cursorColumn) == (1, 1), "N back to row 3, then up one")
    }

    @Test("Esc stops a search; the keys typed before it still act")
    func escape() {
        let subject = viewer(csv, width: 60, height: 10)
        type(subject, "/^x\n")
        subject.handle(key: .character("j"))
        subject.handle(key: .escape)
        settle(subject)
        #expect(!subject.isSearching)
        #expect(subject.cursorRow == 1 || subject.cursorRow == 3, "j acted, after the search or instead of it")
    }

    @Test("a count before n and N repeats them; before g goes to that row, as before G")
    func counts() {
        let subject = viewer(csv, width: 60, height: 10)
        type(subject, "/^x\n")
        settle(subject)
        type(subject, "3n")
        settle(subject)
        #expect(subject.cursorRow == 11)
        type(subject, "2N")
        settle(subject)
        #expect(subject.cursorRow == 5)
        type(subject, "12n")
        settle(subject)
        #expect(subject.cursorRow == 11, "ten matches in all: twelve on wraps round to two on")
        #expect(subject.message == "search wrapped around to the top")
        type(subject, "5g")
        #expect(subject.cursorRow == 4)
        type(subject, "25G")
        #expect(subject.cursorRow == 24)
        type(subject, "g")
        #expect(subject.cursorRow == 0)
    }

    @Test("q quits at once during a search; typed after keys held for a prompt, it is the prompt's text")
    func quitDuringSearch() {
        let subject = Viewer(source: SlowRows(), options: .plain, screenSize: Size(width: 60, height: 10))
        type(subject, "/zzzqqq\n")
        #expect(subject.isSearching, "the slow rows take seconds to search")
        subject.handle(key: .character("q"))
        #expect(subject.isFinished, "q is not held behind the search")
        #expect(!subject.isSearching, "quitting stopped the search")

        let typing = Viewer(source: SlowRows(), options: .plain, screenSize: Size(width: 60, height: 10))
        type(typing, "/zzzqqq\n")
        type(typing, "/aq")
        #expect(!typing.isFinished, "q after a held / is text for its prompt")
        typing.handle(key: .escape)
        #expect(!typing.isSearching && !typing.isFinished)
        #expect(typing.promptLine?.text == "aq")
    }
}

/// Rows a search reads slowly: a batch of 4,096 takes 10 ms, so searching all of them
/// takes seconds (a stand-in for a slow disk), while a cancelled search stops at once.
private final class SlowRows: RowSource {
    let name = "slow"
    let rowCount = 4096 * 1000
    let isComplete = true
    let columnCount = 2
    let headerRows: Int? = 1
    let generation = 0
    let wake: @Sendable () -> Void = {}

    func row(_ index: Int) -> Row? { Row(cells: ["\(index)", "a"]) }

    func snapshot() -> RowSnapshot? {
        RowSnapshot(count: rowCount, columnCount: columnCount) { range in
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(10))
            return range.map { Row(cells: ["\($0)", "a"]) }
        }
    }
}
