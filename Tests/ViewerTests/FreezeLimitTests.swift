import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("F takes at most half the screen", .timeLimit(.minutes(30)))
struct FreezeLimitTests {
    @Test("F low on the screen freezes the rows nearest the cursor, the header included in half the grid", arguments: [1, 2])
    func half(headerRows: Int) {
        let subject = viewer(sampleCSV(rows: 100), width: 40, height: 21, options: .plain(headerRows: headerRows))
        subject.handle(.repeated(.moveDown, times: 16))
        subject.handle(.toggleFreeze)
        // 20 grid lines: the header rows and frozen rows take 10.
        #expect(subject.frozenDataRows.count + headerRows == 10)
        #expect(subject.frozenDataRows.upperBound == 16)
        #expect(subject.window.headerHeight == 10)
        #expect(subject.message?.contains("at most half the screen") == true, "\(subject.message ?? "")")
        let lines = subject.frame().lines
        #expect(lines[10].hasPrefix(" 17│"), "data shows below the freeze: \(lines)")
    }

    @Test("F high on the screen freezes what is above the cursor, as before")
    func small() {
        let subject = viewer(sampleCSV(rows: 100), width: 40, height: 21)
        subject.handle(.repeated(.moveDown, times: 3))
        subject.handle(.toggleFreeze)
        #expect(subject.frozenDataRows == 0..<3)
        #expect(subject.message?.contains("at most half") == false)
    }
}
