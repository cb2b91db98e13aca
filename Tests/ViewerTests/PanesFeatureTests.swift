import CellStore
import FreezeLayout
import Testing
import TestSupport
@testable import Viewer

@Suite("Freezing at runtime", .timeLimit(.minutes(30)))
struct FreezeAtCursorTests {
    @Test("F keeps the rows above and the columns left of the cursor; F again unfreezes")
    func freezeAndUnfreeze() {
        let subject = viewer(wideCSV(rows: 100, columns: 12), width: 60, height: 12, options: .plain,
                             commands: [.moveDown, .moveDown, .moveRight, .moveRight])
        subject.handle(.toggleFreeze)
        #expect(subject.frozenColumns == 2)
        #expect(subject.frozenDataRows == 0..<2)
        #expect(subject.message?.hasPrefix("froze 3 rows and 2 columns") == true)
        for _ in 0..<40 { subject.handle(.moveDown) }
        for _ in 0..<8 { subject.handle(.moveRight) }
        let lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  # column0     column1    │"))
        #expect(lines[1].hasPrefix("  1 r1c0-xxxx   r1c1-xxxx  │"))
        #expect(lines[2].hasPrefix("  2 r2c0-xxxx   r2c1-xxxx  │"))
        #expect(!lines[3].hasPrefix("  3 "), "row 3 scrolled under the frozen rows")
        #expect(lines[3...].contains { $0.contains("r43c10-xxxx") })
        subject.handle(.toggleFreeze)
        #expect(subject.frozenColumns == 0)
        #expect(subject.frozenDataRows.isEmpty)
        #expect(subject.frame().lines[0].hasPrefix("  #│"))
    }

    @Test("F on the top row in view and the first column, then F again, unfreezes; the rows above come back")
    func freezeAtTopOfView() {
        let subject = viewer(wideCSV(rows: 100, columns: 6), width: 60, height: 10, options: .plain,
                             commands: [.pageDown, .pageDown])
        let top = subject.window.visibleRows.lowerBound + subject.mainFirstRow
        #expect(turn(pausing: {}, { subject.handle(.moveUp) }, until: { subject.cursorRow <= top }))
        subject.handle(.toggleFreeze)
        #expect(subject.frozenDataRows.isEmpty && subject.mainFirstRow == top)
        subject.handle(.toggleFreeze)
        #expect(subject.mainFirstRow == 0, "F again unfroze")
        subject.handle(.firstRow)
        #expect(subject.cursorRow == 0, "the rows above are in reach again")
    }

    @Test("a reload keeps the freeze, the widths, the cursor and the search; fewer rows clamp it")
    func reloadKeepsWhatTheUserDid() {
        let before = viewer(wideCSV(rows: 100, columns: 8), width: 70, height: 12, options: .plain,
                            commands: [.moveDown, .moveDown, .moveDown, .moveRight, .moveRight, .toggleFreeze, .widenColumn, .widenColumn]
                                + Array(repeating: .moveDown, count: 30) + [.find("zzz", columnOnly: false), .cancelSearch])
        let after = viewer(wideCSV(rows: 100, columns: 8), width: 70, height: 12, options: .plain)
        after.adopt(before)
        #expect(after.search.pattern?.text == "zzz", "n goes on with the same search")
        #expect(after.frozenDataRows == before.frozenDataRows)
        #expect(after.frozenColumns == 2)
        #expect(after.columnWidths == before.columnWidths)
        #expect(after.cursorRow == before.cursorRow && after.cursorColumn == before.cursorColumn)
        #expect(after.frame().lines.dropLast() == before.frame().lines.dropLast(), "the same screen (the status line says the search was cancelled)")
        let shorter = viewer(wideCSV(rows: 10, columns: 8), width: 70, height: 12, options: .plain)
        shorter.adopt(before)
        #expect(shorter.cursorRow == 9, "clamped to the last row there is")
        _ = shorter.frame()
    }

    @Test("U unfreezes, including columns frozen with -c")
    func unfreeze() {
        let subject = viewer(wideCSV(rows: 10, columns: 6), width: 60, height: 8, options: .plain(frozenColumns: 2))
        #expect(subject.frozenColumns == 2)
        subject.handle(.unfreeze)
        #expect(subject.frozenColumns == 0)
    }

    @Test("a freeze that would take the screen keeps one row and one column of data")
    func freezeTooMuch() {
        let subject = viewer(wideCSV(rows: 100, columns: 12), width: 40, height: 8, options: .plain,
                             commands: Array(repeating: .moveDown, count: 5) + Array(repeating: .moveRight, count: 9))
        subject.handle(.toggleFreeze)
        #expect(subject.window.main.height >= 1)
        #expect(subject.window.main.width >= 1)
        #expect(subject.frozenColumns < 9)
        _ = subject.frame()
    }
}

@Suite("Sideways scrolling by characters", .timeLimit(.minutes(30)))
struct SidewaysTests {
    @Test("zh/zl and Shift-Left/Right scroll by characters; the cursor follows into view")
    func characters() {
        let subject = viewer(wideCSV(rows: 5, columns: 12), width: 40, height: 6, options: .plain)
        subject.handle(key: .character("z"))
        #expect(subject.window.offset.x == 0)
        subject.handle(key: .character("l"))
        #expect(subject.window.offset.x == 8)
        #expect(subject.cursorColumn == 1, "column 0 is only partly in view now")
        subject.handle(key: .shiftRight)
        #expect(subject.window.offset.x == 16)
        subject.handle(key: .shiftLeft)
        subject.handle(key: .character("z"))
        subject.handle(key: .character("h"))
        #expect(subject.window.offset.x == 0)
        // 'z' then something else: the other key still works.
        subject.handle(key: .character("z"))
        subject.handle(key: .character("j"))
        #expect(subject.cursorRow == 1)
    }

    @Test("scrolling by characters splits columns; header and data stay aligned")
    func partialColumns() {
        let subject = viewer(wideCSV(rows: 5, columns: 12), width: 40, height: 6, options: .plain,
                             commands: [.scrollRight])
        let lines = subject.frame().lines
        // Column 0 (9 wide and a separator) is cut 8 cells in: its last two cells show.
        #expect(lines[0].hasPrefix("  #│  column1   column2"))
        #expect(lines[1].hasPrefix("  1│x r1c1-xxxx r1c2-xxxx"))
    }
}

@Suite("Preamble", .timeLimit(.minutes(30)))
struct PreambleTests {
    let csv = "# exported 2024-05-01\n# by: \"ops\", quotes and, commas\nid,v\n1,a\n2,b\n3,c\n4,d\n5,e\n6,f\n7,g\n8,h\n9,i\n"

    func preambleViewer(height: Int = 8) -> Viewer {
        _ = utf8Locale
        let store = CellStore(bytes: Array(csv.utf8), preamble: .detect)
        return Viewer(store: store, options: .plain, screenSize: Size(width: 40, height: height))
    }

    @Test("leading # lines show above the header as text, and are not parsed as CSV")
    func shown() {
        let subject = preambleViewer()
        #expect(subject.file?.preamble == ["# exported 2024-05-01", "# by: \"ops\", quotes and, commas"])
        let lines = subject.frame().lines
        #expect(lines[0].hasPrefix("# exported 2024-05-01"))
        #expect(lines[1].hasPrefix("# by: \"ops\", quotes and, commas"))
        #expect(lines[2].hasPrefix("  #│id v"))
        #expect(lines[3].hasPrefix("  1│ 1 a"))
        #expect(subject.dataRowCount == 9)
    }

    @Test("scrolling down hides it whole first, then the header pins; back at the top it returns")
    func scrollsAway() {
        let subject = preambleViewer()
        subject.handle(.mouse(MouseEvent(.wheelDown, x: 10, y: 5)))
        var lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  #│id v"), "the preamble went first, whole")
        #expect(lines[1].hasPrefix("  1│ 1 a"))
        subject.handle(.mouse(MouseEvent(.wheelDown, x: 10, y: 5)))
        lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  #│id v"), "the header is pinned")
        #expect(!lines[1].hasPrefix("  1│"))
        subject.handle(.firstRow)
        lines = subject.frame().lines
        #expect(lines[0].hasPrefix("# exported"))
        for _ in 0..<9 { subject.handle(.moveDown) }
        #expect(subject.frame().lines[0].hasPrefix("  #│id v"), "moving the cursor down past the screen hides it")
        for _ in 0..<9 { subject.handle(.moveUp) }
        subject.handle(.moveUp)
        #expect(subject.frame().lines[0].hasPrefix("# exported"), "Up at the top brings it back")
    }

    @Test("it never rests half-shown", arguments: [1, 2, 3, 5])
    func neverHalf(steps: Int) {
        let subject = preambleViewer(height: 6)
        for _ in 0..<steps { subject.handle(.moveDown) }
        let lines = subject.frame().lines
        #expect(lines[0].hasPrefix("# exported") && lines[1].hasPrefix("# by") || lines[0].hasPrefix("  #│id"))
    }

    @Test("a # line that reads as the first record is the header, not a preamble")
    func hashHeader() {
        _ = utf8Locale
        let store = CellStore(bytes: Array("#id,name\n1,x\n2,y\n".utf8), preamble: .detect)
        #expect(store.preamble.isEmpty)
        #expect(store.row(0)?.strings == ["#id", "name"])
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 30, height: 6))
        #expect(subject.frame().lines[0].hasPrefix("  #│#id name"))
        let mixed = CellStore(bytes: Array("# exported today\r\n#id;name\r\n1;x\r\n".utf8), preamble: .detect)
        #expect(mixed.preamble == ["# exported today"])
        #expect(mixed.row(0)?.strings == ["#id", "name"])
        #expect(mixed.row(1)?.strings == ["1", "x"])
        let comment = CellStore(bytes: Array("# a note, with a comma and, more\nid,v\n1,2\n".utf8), preamble: .detect)
        #expect(comment.preamble == ["# a note, with a comma and, more"])
    }

    @Test("an explicit count takes lines whatever they hold; none means no preamble")
    func rules() {
        let store = CellStore(bytes: Array("Title line\nid,v\n1,a\n".utf8), preamble: .lines(1))
        #expect(store.preamble == ["Title line"])
        #expect(allRows(store) == [["id", "v"], ["1", "a"]])
        let plain = CellStore(bytes: Array(csv.utf8), preamble: .none)
        #expect(plain.preamble.isEmpty)
        #expect(plain.row(0)?.strings == ["# exported 2024-05-01"])
        let crlf = CellStore(bytes: Array("# a\r\n# b\r\nx,y\r\n1,2\r\n".utf8), preamble: .detect)
        #expect(crlf.preamble == ["# a", "# b"])
        #expect(allRows(crlf) == [["x", "y"], ["1", "2"]])
    }

    func allRows(_ store: CellStore) -> [[String]] { (0..<store.rowCount).compactMap { store.row($0)?.strings } }
}

@Suite("Scroll indicators and debug counts", .timeLimit(.minutes(30)))
struct IndicatorTests {
    func indicatorRows(_ frame: Frame, x: Int) -> [Int] {
        (0..<frame.size.height).filter { frame[x, $0].style == .indicator }
    }

    @Test("the thumb shows the rows in view: at the top, the middle and the end")
    func vertical() {
        let options = ViewerOptions(bounce: .none, showsIndicators: true)
        let subject = viewer(sampleCSV(rows: 100), width: 40, height: 12, options: options)
        #expect(indicatorRows(subject.frame(), x: 39) == [1])
        subject.handle(.lastRow)
        #expect(indicatorRows(subject.frame(), x: 39) == [10])
        subject.handle(.firstRow)
        for _ in 0..<5 { subject.handle(.pageDown) }
        let middle = indicatorRows(subject.frame(), x: 39)
        #expect(middle.count == 1 && (4...6).contains(middle[0]))
    }

    @Test("the thumb follows a bounce: shorter, at the end it was pulled from")
    func followsBounce() {
        let options = ViewerOptions(bounce: .main, showsIndicators: true)
        let subject = viewer(sampleCSV(rows: 12), width: 40, height: 10, options: options)
        let atRest = indicatorRows(subject.frame(), x: 39)
        subject.handle(.moveUp)
        let pulled = indicatorRows(subject.frame(), x: 39)
        #expect(pulled.first == atRest.first)
        #expect(pulled.count < atRest.count)
    }

    @Test("the columns in view are a highlighted stretch of the status line")
    func horizontal() {
        let options = ViewerOptions(bounce: .none, showsIndicators: true)
        let subject = viewer(wideCSV(rows: 5, columns: 20), width: 50, height: 6, options: options)
        var frame = subject.frame()
        let left = (0..<50).filter { frame[$0, 5].style == .statusIndicator }
        #expect(left.first == 0 && left.count < 25)
        subject.handle(.lastColumn)
        frame = subject.frame()
        let right = (0..<50).filter { frame[$0, 5].style == .statusIndicator }
        #expect(right.last == 49)
        // The text of the status line is unchanged under it.
        #expect(frame.lines[5].contains("col 20/20"))
        let none = viewer(wideCSV(rows: 5, columns: 20), width: 50, height: 6, options: .plain).frame()
        #expect(!none.cells.contains { $0.style == .statusIndicator || $0.style == .indicator })
    }

    @Test("--debug-stats counts cells; scrolling one row configures one row of cells")
    func debugStats() {
        let options = ViewerOptions(bounce: .none, showsIndicators: false, showsDebugStats: true)
        let subject = viewer(sampleCSV(rows: 500), width: 100, height: 20, options: options)
        _ = subject.frame()
        subject.handle(.pageDown)
        _ = subject.frame()
        for _ in 0..<18 { subject.handle(.moveDown) }
        _ = subject.frame()
        subject.handle(.moveDown)   // the view scrolls by one row
        let frame = subject.frame()
        let stats = subject.cellStatistics
        // One new row of 5 cells (row number and 4 columns), plus the cursor's old and new cells.
        #expect(stats.configured <= 5 + 4)
        #expect(stats.live == 5 * 18 + 5, "18 data lines and the header line, 5 cells each")
        #expect(frame.lines[19].contains("created \(stats.created) live \(stats.live) pooled \(stats.pooled) configured"))
    }
}

@Suite("Counts and half pages", .timeLimit(.minutes(30)))
struct CountTests {
    func keys(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: .character(character)) }
    }

    @Test("a count before a motion repeats it: 5j, 10l, 3 PageDown; 250G still goes to a row")
    func counts() {
        let subject = viewer(wideCSV(rows: 500, columns: 30), width: 60, height: 12, options: .plain)
        keys(subject, "5j")
        #expect(subject.cursorRow == 5)
        keys(subject, "10l")
        #expect(subject.cursorColumn == 10)
        keys(subject, "2k")
        #expect(subject.cursorRow == 3)
        subject.handle(key: .character("3"))
        subject.handle(key: .pageDown)
        let page = subject.window.main.height
        #expect(subject.cursorRow == 3 + 3 * page)
        keys(subject, "250G")
        #expect(subject.cursorRow == 249)
        keys(subject, "99999999999j")
        #expect(subject.cursorRow == 499, "a huge count stops at the last row, at once")
        keys(subject, "0")
        #expect(subject.cursorColumn == 0, "a leading 0 is still the first column")
    }

    @Test("Ctrl-D and Ctrl-U, d and u, move half a screen")
    func halfPages() {
        let subject = viewer(wideCSV(rows: 500, columns: 5), width: 60, height: 14, options: .plain)
        let half = subject.window.main.height / 2
        subject.handle(key: .control("d"))
        #expect(subject.cursorRow == half)
        keys(subject, "d")
        #expect(subject.cursorRow == 2 * half)
        subject.handle(key: .control("u"))
        #expect(subject.cursorRow == half)
        keys(subject, "2u")
        #expect(subject.cursorRow == 0)
    }
}

@Suite("Ctrl-C from everywhere", .timeLimit(.minutes(30)))
struct ControlCTests {
    @Test("Ctrl-C quits from the grid, help, the inspector, the record view and a prompt",
          arguments: [[], [Command.help], [.inspect], [.recordView], [.search], [.goTo]])
    func quits(opening: [Command]) {
        let subject = viewer(sampleCSV(rows: 20), width: 60, height: 10, options: .plain, commands: opening)
        subject.handle(key: .character("X"))
        subject.handle(key: .control("c"))
        #expect(subject.isFinished)
    }
}

@Suite("Panes over the grid", .timeLimit(.minutes(30)))
struct PaneOnTopTests {
    @Test("the wheel in help scrolls help, not the grid behind it; a press there changes nothing")
    func wheelInHelp() {
        let subject = viewer(sampleCSV(rows: 200), width: 60, height: 12, options: .plain, commands: [.help])
        let first = subject.frame().lines[0]
        subject.handle(.mouse(MouseEvent(.wheelDown, x: 10, y: 5)))
        #expect(subject.frame().lines[0] != first, "help scrolled")
        subject.handle(.mouse(MouseEvent(.press, x: 10, y: 8)))
        #expect(subject.cursorRow == 0 && subject.cursorColumn == 0, "the grid's cursor did not move")
        subject.handle(.mouse(MouseEvent(.wheelUp, x: 10, y: 5)))
        #expect(subject.frame().lines[0] == first)
        #expect(subject.cursorRow == 0)
    }

    @Test("help at 30 columns wraps its lines instead of cutting them, and says there is more below")
    func narrowHelp() {
        let subject = viewer(sampleCSV(rows: 20), width: 30, height: 10, options: .plain, commands: [.help])
        let lines = subject.frame().lines
        #expect(lines[9].contains("more below"), "\(lines[9])")
        let all = HelpPage.lines(Panes.helpText, width: 30)
        #expect(all.allSatisfy { DisplayWidth.of($0) <= 30 })
        let words = Panes.helpText.joined(separator: " ").split(separator: " ")
        #expect(all.joined(separator: " ").split(separator: " ") == words, "every word is there, in order")
        for _ in 0..<40 { subject.handle(key: .pageDown) }
        #expect(subject.frame().lines[9].contains("the end"))
    }
}

@Suite("Prompts edit like a shell line", .timeLimit(.minutes(30)))
struct PromptEditingTests {
    func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: .character(character)) }
    }


    static func line(of subject: Viewer) -> PromptLine? {
        subject.promptLine
    }

    @Test("cursor moves, Home/End, Ctrl-A/E, Delete, Ctrl-U, Ctrl-W and Ctrl-K edit in place")
    func editing() {
        var line = PromptLine()
        for character in "city oslo" { _ = line.edit(.character(character)) }
        _ = line.edit(.home)
        _ = line.edit(.delete)
        _ = line.edit(.character("C"))
        #expect(line.text == "City oslo" && line.cursor == 1)
        _ = line.edit(.end)
        _ = line.edit(.control("w"))
        #expect(line.text == "City ")
        _ = line.edit(.control("a"))
        _ = line.edit(.right)
        _ = line.edit(.control("k"))
        #expect(line.text == "C")
        _ = line.edit(.control("e"))
        _ = line.edit(.character("x"))
        _ = line.edit(.left)
        _ = line.edit(.control("u"))
        #expect(line.text == "x" && line.cursor == 0)
        _ = line.edit(.backspace)
        #expect(line.text == "x")
    }

    @Test("Home and End in a prompt keep the typed text; the screen shows the cursor where it is")
    func homeEndKeepText() {
        let subject = viewer(sampleCSV(rows: 30), width: 40, height: 8, options: .plain, commands: [.search])
        type(subject, "abc")
        subject.handle(key: .home)
        subject.handle(key: .end)
        subject.handle(key: .left)
        #expect(Self.line(of: subject)?.text == "abc")
        let frame = subject.frame()
        #expect(frame.lines[7].hasPrefix("/abc "), "\(frame.lines[7])")
        #expect(frame.cursor == Point(x: 3, y: 7), "the terminal's cursor, on the c")
    }

    @Test("Up and Down walk earlier entries; an empty / Enter repeats the last search")
    func history() {
        let subject = viewer(sampleCSV(rows: 60), width: 60, height: 10, options: .plain)
        for text in ["7", "12"] {
            subject.handle(.goTo)
            type(subject, text)
            subject.handle(key: .enter)
        }
        #expect(subject.cursorRow == 11)
        subject.handle(.goTo)
        subject.handle(key: .up)
        #expect(Self.line(of: subject)?.text == "12")
        subject.handle(key: .up)
        #expect(Self.line(of: subject)?.text == "7")
        subject.handle(key: .up)
        #expect(Self.line(of: subject)?.text == "7", "stops at the oldest")
        subject.handle(key: .down)
        subject.handle(key: .down)
        #expect(Self.line(of: subject)?.text == "", "back to a new line")
        subject.handle(key: .escape)
        subject.handle(.search)
        type(subject, "r2")
        subject.handle(key: .enter)
        waitUntil("the search") {
            subject.handle(.refresh)
            return !subject.isSearching
        }
        subject.handle(.search)
        subject.handle(key: .enter)
        #expect(subject.history.searches == ["r2"], "the repeat is not a new entry")
        #expect(subject.search.pattern?.text == "r2")
    }
}
