import FreezeLayout
import Testing
@testable import Viewer

@Suite("Frame composer", .timeLimit(.minutes(30)))
struct FrameComposerTests {
    @Test("drawing reads only: frames from one state are the same, and leave the cursor, freeze and scroll as they were")
    func drawingOnlyReads() {
        let subject = viewer(sampleCSV(rows: 200), width: 30, height: 9)
        for command in [Command.pageDown, .moveRight, .moveRight, .toggleFreeze, .moveDown, .find("1", columnOnly: false)] {
            subject.handle(command)
            let window = subject.window, cursor = (subject.cursorRow, subject.cursorColumn), frozen = subject.frozenDataRows
            let first = subject.frame()
            #expect(subject.frame() == first, "\(command)")
            #expect(subject.window == window && subject.cursorRow == cursor.0 && subject.cursorColumn == cursor.1,
                    "\(command)")
            #expect(subject.frozenDataRows == frozen)
        }
    }
}
