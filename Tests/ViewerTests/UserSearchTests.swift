import CellStore
import Foundation
import Testing
@testable import Viewer

@Suite("Search, as a user tries it")
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
