#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("Search", .timeLimit(.minutes(30)))
struct SearchTests {
    /// Types keys into the viewer.
    func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: .character(character)) }
    }

    /// Waits, bounded, for a background search to end.
    func settle(_ subject: Viewer) {
        waitUntil("the search to end") {
            subject.handle(.refresh)
            return !subject.isSearching
        }
    }

    @Test("/ finds a value thousands of rows down and highlights it; n past the last match wraps to the first")
    func findAndWrap() throws {
        var csv = "id,name,note\n"
        for index in 1...5000 { csv += "\(index),name\(index),\(index % 2000 == 0 ? "NEEDLE here" : "hay")\n" }
        let subject = viewer(csv, width: 60, height: 10)
        subject.handle(key: .character("/"))
        type(subject, "needle")
        subject.handle(key: .enter)
        settle(subject)
        #expect(subject.cursorRow == 1999)
        #expect(subject.cursorColumn == 2)
        let frame = subject.frame()
        // The column was sized from rows without the needle: it shows cut, as "NEE…".
        let line = try #require(frame.lines.firstIndex { $0.contains("NEE") })
        let x = frame.line(line).distance(from: frame.line(line).startIndex, to: try #require(frame.line(line).range(of: "NEE")).lowerBound)
        #expect(frame.style(x: x, y: line) == .cursor || frame.style(x: x, y: line) == .match)
        subject.handle(key: .character("n"))
        settle(subject)
        #expect(subject.cursorRow == 3999)
        subject.handle(key: .character("n"))
        settle(subject)
        #expect(subject.cursorRow == 1999)
        #expect(subject.message == "search wrapped around to the top")
        subject.handle(key: .character("N"))
        settle(subject)
        #expect(subject.cursorRow == 3999)
        #expect(subject.message == "search wrapped around to the bottom")
    }

    @Test("other matches on screen are highlighted in every region, header included")
    func highlight() {
        let subject = viewer("key,value\nabc,x\ny,abcd\n", width: 40, height: 6, options: .plain(frozenColumns: 1))
        subject.handle(key: .character("/"))
        type(subject, "ab")
        subject.handle(key: .enter)
        settle(subject)
        let frame = subject.frame()
        let styles = (0..<frame.size.height).flatMap { y in (0..<frame.size.width).map { frame.style(x: $0, y: y) } }
        #expect(styles.contains(.match))
        // The frozen column (left band) and main both show highlights.
        #expect(frame.style(x: 4, y: 1) == .match || frame.style(x: 4, y: 1) == .cursor)
        #expect(frame.style(x: 10, y: 2) == .match || frame.style(x: 10, y: 2) == .cursor)
    }

    @Test("smart case: lower case ignores case, a capital makes it matter; regular expressions work")
    func smartCase() {
        let subject = viewer("a\nxx\nFoo\nfoo\nbar42\n", width: 30, height: 8)
        for (pattern, row) in [("foo", 1), ("Foo", 1), ("^foo$", 1), ("[0-9]+", 3), ("f.o", 1)] {
            subject.handle(.firstRow)
            subject.handle(key: .character("/"))
            type(subject, pattern)
            subject.handle(key: .enter)
            settle(subject)
            #expect(subject.cursorRow == row, "\(pattern)")
        }
        subject.handle(.firstRow)
        subject.handle(key: .character("/"))
        type(subject, "FOO")
        subject.handle(key: .enter)
        settle(subject)
        #expect(subject.message == "not found: FOO")
    }

    @Test("\\ searches the cursor's column only; a bad pattern says so")
    func columnOnly() {
        let subject = viewer("a,b\nzz,x\nx,zz\n", width: 30, height: 6, commands: [.moveRight])
        subject.handle(key: .character("\\"))
        type(subject, "zz")
        subject.handle(key: .enter)
        settle(subject)
        #expect(subject.cursorRow == 1)
        #expect(subject.cursorColumn == 1)
        subject.handle(key: .character("/"))
        type(subject, "([")
        subject.handle(key: .enter)
        #expect(subject.message == "invalid pattern at character 3: missing terminating ] for character class")
    }

    @Test("on an input still loading, not found says how far it looked")
    func whileLoading() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID()).csv").path
        try Data(sampleCSV(rows: 30_000).utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        _ = utf8Locale
        let store = try CellStore.open(InputSpec(path: path), startsLoader: false)
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 60, height: 10))
        let known = subject.dataRowCount
        #expect(known < 30_000)
        subject.handle(key: .character("/"))
        type(subject, "29999")
        subject.handle(key: .enter)
        settle(subject)
        #expect(subject.message == "not found in the \(Viewer.grouped(known)) rows read so far: 29999")
    }

    @Test("Esc cancels a search; Esc at the prompt cancels it too")
    func cancel() {
        var csv = "a\n"
        for index in 0..<200_000 { csv += "row\(index)\n" }
        let subject = viewer(csv, width: 30, height: 6)
        subject.handle(key: .character("/"))
        type(subject, "no such thing")
        subject.handle(key: .enter)
        subject.handle(key: .escape)
        #expect(!subject.isSearching)
        #expect(subject.cursorRow == 0)
        subject.handle(key: .character("/"))
        type(subject, "x")
        subject.handle(key: .escape)
        #expect(subject.mode == .grid)
    }
}

@Suite("Go to and widths", .timeLimit(.minutes(30)))
struct GoToTests {
    func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: .character(character)) }
    }

    @Test(":2500 lands on row 2500; :name and :#n go to columns; 250G goes to row 250")
    func goTo() {
        let subject = viewer(sampleCSV(rows: 3000), width: 60, height: 10)
        subject.handle(key: .character(":"))
        type(subject, "2500")
        subject.handle(key: .enter)
        #expect(subject.cursorRow == 2499)
        #expect(subject.frame().lines[9].contains("row 2,500/3,000"))
        subject.handle(key: .character(":"))
        type(subject, "CIT")
        subject.handle(key: .enter)
        #expect(subject.cursorColumn == 2)
        subject.handle(key: .character(":"))
        type(subject, "#4")
        subject.handle(key: .enter)
        #expect(subject.cursorColumn == 3)
        type(subject, "250G")
        #expect(subject.cursorRow == 249)
        subject.handle(key: .character(":"))
        type(subject, "nope")
        subject.handle(key: .enter)
        #expect(subject.message == "no column named nope")
        subject.handle(key: .character(":"))
        type(subject, "99999")
        subject.handle(key: .enter)
        #expect(subject.cursorRow == 2999)
        #expect(subject.message == "there are 3,000 rows")
        // 0 alone is still the first column.
        subject.handle(key: .character("0"))
        #expect(subject.cursorColumn == 0)
    }

    @Test("< and > change the column's width; = fits it; _ toggles full width; widths stay while scrolling")
    func widths() {
        let long = String(repeating: "w", count: 70)
        let subject = viewer("a,b\n\(long),1\nx,2\n", width: 120, height: 6)
        _ = subject.frame()
        let fitted = subject.columnWidths[0]
        #expect(fitted == 50)
        subject.handle(key: .character("<"))
        #expect(subject.columnWidths[0] == 49)
        subject.handle(key: .character(">"))
        subject.handle(key: .character(">"))
        #expect(subject.columnWidths[0] == 51)
        subject.handle(key: .character("_"))
        #expect(subject.columnWidths[0] == 70)
        #expect(subject.frame().lines[1].contains(long + " "))
        subject.handle(key: .character("_"))
        #expect(subject.columnWidths[0] == fitted)
        subject.handle(key: .character("="))
        #expect(subject.columnWidths[0] == 70)
        for _ in 0..<3 { subject.handle(.moveDown) }
        #expect(subject.columnWidths[0] == 70)
    }
}

@Suite("Inspector, record view, help, copy, echo", .timeLimit(.minutes(30)))
struct ReadingTests {
    @Test("Enter on a multi-line cell shows all its lines, scrolls to its end, and says where it is")
    func inspector() {
        let lines = (1...40).map { "line \($0)" }.joined(separator: "\n")
        let subject = viewer("k,text\n1,\"\(lines)\"\n", width: 60, height: 12, commands: [.moveRight])
        subject.handle(key: .enter)
        guard case .inspector(let inspector) = subject.mode else { Issue.record("no inspector"); return }
        #expect(inspector.title.hasPrefix("row 1 · text · "))
        #expect(inspector.title.contains("40 lines"))
        var frame = subject.frame().lines
        #expect(frame[2].contains("line 1 "))
        subject.handle(key: .character("G"))
        frame = subject.frame().lines
        #expect(frame.contains { $0.contains("line 40") })
        #expect(frame.contains { $0.contains("of 40") })
        subject.handle(key: .character("q"))
        #expect(subject.mode == .grid)
    }

    @Test("a cell of hundreds of kilobytes opens at once, wrapped to the pane")
    func largeCell() {
        let big = String(repeating: "0123456789", count: 40_000)
        let subject = viewer("a\n\(big)\n", width: 80, height: 20)
        subject.handle(key: .enter)
        #expect(subject.frame().lines.contains { $0.contains("bytes 1–") })
        subject.handle(key: .character("G"))
        #expect(subject.frame().lines.contains { $0.contains("of 400,000 (100%)  q closes") })
    }

    @Test("v shows the record as a list; Left on the first record goes to the last; v returns there")
    func recordView() {
        let subject = viewer(sampleCSV(rows: 30), width: 60, height: 10)
        subject.handle(key: .character("v"))
        var lines = subject.frame().lines
        #expect(lines[0].hasPrefix(" record 1 of 30"))
        #expect(lines[1].hasPrefix(" id     │ 1"))
        #expect(lines[2].hasPrefix(" name   │ Bo"))
        subject.handle(key: .left)
        lines = subject.frame().lines
        #expect(lines[0].hasPrefix(" record 30 of 30"))
        #expect(subject.message == "round to the last record")
        subject.handle(key: .right)
        #expect(subject.frame().lines[0].hasPrefix(" record 1 of 30"))
        subject.handle(key: .character("p"))
        subject.handle(key: .character("v"))
        #expect(subject.mode == .grid)
        #expect(subject.cursorRow == 29)
    }

    @Test("? lists every key from the table that dispatches them, and says how to quit")
    func help() {
        let subject = viewer("a\n1\n", width: 100, height: 100)
        subject.handle(key: .character("?"))
        let text = subject.frame().lines.joined(separator: "\n")
        #expect(text.contains("q: Quit"))
        for binding in KeyMap.bindings { #expect(text.contains(binding.label), "\(binding.label)") }
        for binding in KeyMap.pagerBindings { #expect(text.contains(binding.label), "\(binding.label)") }
        subject.handle(key: .escape)
        #expect(subject.mode == .grid)
        subject.handle(key: .function(1))
        #expect(subject.mode == .help(scroll: 0))
    }

    @Test("y copies the cell, Y the row as CSV; the status line confirms")
    func copy() {
        let subject = viewer("a,b\n\"x,1\",\"say \"\"hi\"\"\"\n", width: 80, height: 5, commands: [.moveRight])
        subject.handle(key: .character("y"))
        #expect(subject.takeClipboard() == Array("say \"hi\"".utf8))
        #expect(subject.message?.hasPrefix("copied the cell") == true)
        subject.handle(key: .character("Y"))
        #expect(subject.takeClipboard() == Array("\"x,1\",\"say \"\"hi\"\"\"".utf8))
        #expect(subject.takeClipboard() == nil)
    }

    @Test("--echo: Enter chooses the cell, the row or the column and finishes")
    func echo() {
        for (mode, expected) in [(EchoMode.cell, Choice.bytes(Array("2".utf8))), (.row, .bytes(Array("1,2".utf8))), (.column, .column(1))] {
            let options = ViewerOptions(bounce: .none, showsIndicators: false, echo: mode)
            let subject = viewer("a,b\n1,2\n", options: options, commands: [.moveRight])
            subject.handle(key: .enter)
            #expect(subject.isFinished)
            #expect(subject.chosen == expected)
        }
    }
}

@Suite("Go to before the index is complete", .timeLimit(.minutes(30)))
struct EarlyGoToTests {
    @Test("a go-to near the end of a file still loading shows those rows at once, marked ≈; farther in, it says why it stops")
    func nearTheEnd() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("goto-\(UUID()).csv").path
        try Data(sampleCSV(rows: 100_000).utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        _ = utf8Locale
        let store = try CellStore.open(InputSpec(path: path), startsLoader: false)
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 60, height: 10))
        for character in ":50000" { subject.handle(key: .character(character)) }
        subject.handle(key: .enter)
        #expect(subject.message?.hasPrefix("row 50,000 is past the") == true)
        let estimated = try #require(store.estimatedRows)
        let target = estimated.upperBound - 10   // a record number; data row = record - header + 1
        for character in ":\(target)" { subject.handle(key: .character(character)) }
        subject.handle(key: .enter)
        #expect(subject.cursorRow == target - 1)
        #expect(subject.message?.hasPrefix("≈") == true)
        #expect(subject.frame().lines[9].contains("row ≈"))
    }
}

@Suite("Panes at any size", .timeLimit(.minutes(30)))
struct PaneSizeTests {
    @Test("the prompt, the inspector, the record view and help draw at any size", arguments: [(0, 0), (1, 1), (3, 2), (12, 4), (200, 60)])
    func sizes(width: Int, height: Int) {
        let lines = (1...30).map { "line \($0) 北京" }.joined(separator: "\n")
        for keys in [[Key.character("/"), .character("x")], [.enter], [.character("v")], [.character("?")], [.character(":")]] {
            let subject = viewer("a,b\n\"\(lines)\",2\n", width: 40, height: 10)
            for key in keys { subject.handle(key: key) }
            subject.handle(.resize(Size(width: width, height: height)))
            for key in [Key.down, .pageDown, .character("G"), .up, .right, .left] {
                subject.handle(key: key)
                #expect(subject.frame().size == Size(width: width, height: height))
            }
        }
    }
}

extension ReadingTests {
    @Test("the record view wraps a value at its spaces, cutting only a word longer than the line")
    func recordViewWrapsAtSpaces() {
        let text = "id,note\n1,3 w014 w015 w016 w017 w018\n2,abcdefghijklmnopqrstuvwxyz0123456789\n"
        let subject = viewer(text, width: 23, height: 8)
        subject.handle(key: .character("v"))
        #expect(subject.frame().lines[1...4] == [
            " id   │ 1              ",
            " note │ 3 w014 w015    ",
            "      │ w016 w017 w018 ",
            "                       ",
        ])
        subject.handle(key: .right)
        #expect(subject.frame().lines[1...4] == [
            " id   │ 2              ",
            " note │ abcdefghijklmno",
            "      │ pqrstuvwxyz0123",
            "      │ 456789         ",
        ])
    }
}
