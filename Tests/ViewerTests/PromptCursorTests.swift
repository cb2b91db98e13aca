import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("The prompt's cursor, and pasted text", .timeLimit(.minutes(30)))
struct PromptCursorTests {
    @Test("the terminal's cursor shows where typing goes, on the character it goes before; no blank is drawn for it")
    func cursor() {
        let subject = viewer(sampleCSV(rows: 5), width: 30, height: 6)
        #expect(subject.frame().cursor == nil, "no cursor in the grid")
        for key: Key in [.character("/"), .character("a"), .character("b")] { subject.handle(key: key) }
        var frame = subject.frame()
        #expect(frame.lines[5] == "/ab" + String(repeating: " ", count: 27))
        #expect(frame.cursor == Point(x: 3, y: 5))
        subject.handle(key: .left)
        frame = subject.frame()
        #expect(frame.lines[5].hasPrefix("/ab "), "the text is not pushed apart: \(frame.lines[5])")
        #expect(frame.cursor == Point(x: 2, y: 5))
        #expect(frame[2, 5] == FrameCell("b", .status))
        subject.handle(key: .escape)
        #expect(subject.frame().cursor == nil)
    }

    @Test("a paste in the grid does nothing; at a prompt it is typed, a line break at its end dropped")
    func paste() {
        let subject = viewer(sampleCSV(rows: 50), width: 60, height: 8)
        subject.handle(key: .paste("jjjG[q", wasCut: false))
        #expect((subject.cursorRow, subject.cursorColumn) == (0, 0))
        #expect(!subject.isFinished && !subject.isQueryRunning)
        #expect(subject.message == "a paste does nothing in the grid: paste at a prompt (/, :, &)")
        subject.handle(key: .character(":"))
        subject.handle(key: .paste("42\n", wasCut: false))
        #expect(subject.promptLine?.text == "42")
        subject.handle(key: .enter)
        #expect(subject.cursorRow == 41)
        subject.handle(key: .character("/"))
        subject.handle(key: .paste("a\tb\nc", wasCut: false))
        #expect(subject.promptLine?.text == "abc")
        #expect(subject.message == "pasted: 2 control characters (line breaks, tabs) left out")
        subject.handle(key: .escape)
        subject.handle(key: .character("v"))
        subject.handle(key: .paste("q", wasCut: false))
        #expect(subject.mode != .grid, "a pane is not closed by a paste")
    }
}
