import CellStore
import Foundation
import Testing
@testable import Viewer

@Suite("Search, as a user tries it", .timeLimit(.minutes(30)))
struct UserSearchTests {
    let csv = "name,city,note\nAnn,Oslo,x\nBo,Oslo Fjord,\"say \"\"hi\"\"\"\nChen,ZÜRICH,y\nDmitri,oslo,z\nEve,Oslo,\"multi\nline\"\n"

    func search(_ subject: Viewer, _ text: String, key: Character = "/") {
        subject.handle(key: .character(key))
        for character in text { subject.handle(key: .character(character)) }
        subject.handle(key: .enter)
        settle(subject)
    }

    func settle(_ subject: Viewer) {
        waitUntil("the search to end") {
            subject.handle(.refresh)
            return !subject.isSearching
        }
    }

    @Test("zürich finds ZÜRICH; ^Oslo$ finds Oslo, not Oslo Fjord or oslo; n and N wrap")
    func cells() {
        let subject = viewer(csv, width: 60, height: 10)
        search(subject, "zürich")
        #expect((subject.cursorRow, subject.cursorColumn) == (2, 1))
        subject.handle(.firstRow)
        subject.handle(.firstColumn)
        search(subject, "^Oslo$")
        #expect((subject.cursorRow, subject.cursorColumn) == (0, 1))
        subject.handle(key: .character("n"))
        settle(subject)
        #expect((subject.cursorRow, subject.cursorColumn) == (4, 1))
        subject.handle(key: .character("n"))
        settle(subject)
        #expect((subject.cursorRow, subject.cursorColumn) == (0, 1))
        #expect(subject.message == "search wrapped around to the top")
        subject.handle(key: .character("N"))
        settle(subject)
        #expect((subject.cursorRow, subject.cursorColumn) == (4, 1))
        #expect(subject.message == "search wrapped around to the bottom")
    }

    @Test("in a sorted view, wrapping around is told by the view's rows, not the file's order")
    func wrapInSortedView() {
        // Sorted by amount, descending: the file's last record shows first, the first last.
        let text = "id,amount\n" + (1...40).map { "\($0),\($0 * 10)\n" }.joined()
        let subject = viewer(text, width: 60, height: 10)
        subject.handle(.firstColumn)
        subject.handle(key: .character("l"))
        subject.handle(.sort(descending: true, adding: false))
        waitUntil("the sort") {
            subject.handle(.refresh)
            return !subject.isQueryRunning && subject.dataRowCount == 40
        }
        #expect(subject.cursorRow == 0)
        // Record 5 (amount 50) is row 35, below the cursor, though earlier in the file.
        search(subject, "^50$")
        #expect(subject.cursorRow == 35)
        #expect(subject.message == nil, "\(subject.message ?? "")")
        // On from there to amount 400 (the top row): that did come around.
        search(subject, "^400$")
        #expect(subject.cursorRow == 0)
        #expect(subject.message == "search wrapped around to the top")
    }

    @Test("a quote in the pattern finds a cell that holds one; a line break is \\n; a bad pattern says where")
    func quotesAndErrors() {
        let subject = viewer(csv, width: 60, height: 10)
        search(subject, "\"hi\"$")
        #expect((subject.cursorRow, subject.cursorColumn) == (1, 2))
        search(subject, "i\\nl")
        #expect((subject.cursorRow, subject.cursorColumn) == (4, 2))
        search(subject, "([")
        #expect(subject.message == "invalid pattern at character 3: missing terminating ] for character class")
    }

    @Test("N from the bottom finds the last match before the cursor, in one column with \\")
    func backward() {
        let subject = viewer(sampleCSV(rows: 3000), width: 60, height: 10)
        subject.handle(.lastRow)
        subject.handle(key: .right)
        subject.handle(key: .right)
        search(subject, "^zürich$", key: "\\")
        #expect((subject.cursorRow, subject.cursorColumn) == (2, 2))
        subject.handle(.lastRow)
        subject.handle(key: .character("N"))
        settle(subject)
        #expect((subject.cursorRow, subject.cursorColumn) == (2998, 2))
        #expect(subject.message == nil)
        search(subject, "^3$", key: "\\")
        #expect(subject.message == "not found: ^3$")
    }
}
