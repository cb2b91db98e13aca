import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("Row numbers in a filtered or sorted view", .timeLimit(.minutes(30)))
struct RecordNumberJumpTests {
    /// 300 records: id (its record number), a code `x<id>` and a number that sorts them backwards.
    static let csv: String = {
        var text = "id,code,rank\n"
        for index in 1...300 { text += "\(index),x\(index),\(1000 - index)\n" }
        return text
    }()

    private func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    private func settle(_ subject: Viewer) {
        waitUntil("the view's passes", timeout: 60) {
            subject.handle(.refresh)
            return !subject.isQueryRunning
        }
        subject.handle(.refresh)
    }

    /// The number in the margin on the cursor's row.
    private func margin(_ subject: Viewer) -> Int { subject.table.displayNumber(ofRow: subject.cursorRow) }

    @Test("25G and :35 go to the records the margin numbers 25 and 35, not to the 25th and 35th shown rows")
    func filtered() {
        let subject = viewer(Self.csv, width: 60, height: 12)
        type(subject, "&^x[0-9]*5$\n")
        settle(subject)
        #expect(subject.dataRowCount == 30)
        type(subject, "25G")
        #expect(margin(subject) == 25)
        #expect(subject.frame().lines.contains { $0.hasPrefix(" 25│") })
        type(subject, ":35\n")
        #expect(margin(subject) == 35)
        // Not in the view: the first shown row after it, said on the status line.
        type(subject, "24G")
        #expect(margin(subject) == 25)
        #expect(subject.message == "row 24 is not in this view: row 25 is the next shown", "\(subject.message ?? "")")
        // Past the last shown row: the last one before it.
        type(subject, ":299\n")
        #expect(margin(subject) == 295)
        #expect(subject.message == "row 299 is not in this view: row 295 is the last shown", "\(subject.message ?? "")")
        // Past the file: the last row, as in the plain view.
        type(subject, "9999G")
        #expect(margin(subject) == 295)
        #expect(subject.message == "there are 300 rows", "\(subject.message ?? "")")
    }

    @Test("in a sorted view the margin shows record numbers too: 25G goes to record 25 wherever it sorted")
    func sorted() {
        let subject = viewer(Self.csv, width: 60, height: 12)
        subject.handle(.moveRight)
        subject.handle(.moveRight)
        type(subject, "[")
        settle(subject)
        #expect(margin(subject) == 300, "sorted up by rank: the last record first")
        type(subject, "25G")
        #expect(margin(subject) == 25)
        #expect(subject.cursorRow == 275)
        type(subject, ":1\n")
        #expect(margin(subject) == 1)
        #expect(subject.cursorRow == 299)
        // Filtered over the sort: a row not shown goes to the next shown in the view's order.
        type(subject, "&^x[0-9]*5$\n")
        settle(subject)
        type(subject, "24G")
        #expect(margin(subject) == 15, "the row after record 24 in the sorted order is 23, 22, …: 15 is the next shown")
    }
}
