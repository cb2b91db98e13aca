import CellStore
import FreezeLayout
import Testing
@testable import Viewer

@Suite("Viewer frames", .timeLimit(.minutes(30)))
struct ViewerFrameTests {
    @Test("the first screen: corner, header, row numbers, data and status line")
    func firstScreen() {
        let frame = viewer(sampleCSV(rows: 20), width: 40, height: 6).frame()
        #expect(frame.lines == [
            "  #│id name   city   amount             ",
            "  1│ 1 Bo     Oslo      3.5             ",
            "  2│ 2 Chen   Kraków    6.5             ",
            "  3│ 3 Dmitri Zürich    9.5             ",
            "  4│ 4 Ann    Lyon     12.5             ",
            " t.csv  row 1/20  col 1/4 id  comma     ",
        ])
        // Header cells are in the header style; the cursor cell is highlighted.
        #expect(frame.style(x: 4, y: 0) == .headerOfCursorColumn)
        #expect(frame.style(x: 8, y: 0) == .header)
        #expect(frame.style(x: 5, y: 1) == .cursor)
        #expect(frame.style(x: 8, y: 1) == .plain)
    }

    @Test("the header stays on the first line after any paging", arguments: [
        [Command.pageDown], [.pageDown, .pageDown, .pageUp], [.lastRow], [.lastRow, .pageUp, .moveUp],
    ])
    func headerStays(commands: [Command]) {
        let subject = viewer(sampleCSV(rows: 100), width: 40, height: 10, commands: commands)
        let lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  #│id  name   city   amount"))
        // Row numbers match the data: the id column holds the row number here.
        for line in lines[1..<9] {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "│" })
            #expect(fields.count >= 2 && fields[0] == fields[1], "\(line)")
        }
    }

    @Test("PageDown moves one screen and keeps the cursor's place on it")
    func pageDown() {
        let subject = viewer(sampleCSV(rows: 100), width: 40, height: 10, commands: [.pageDown])
        #expect(subject.window.offset.y == 8)
        #expect(subject.cursorRow == 8)
        #expect(subject.frame().lines[1].hasPrefix("  9│  9"))
    }

    @Test("G shows the last row; g goes back to the first")
    func lastRow() {
        let subject = viewer(sampleCSV(rows: 100), width: 40, height: 10, commands: [.lastRow])
        let lines = subject.frame().lines
        #expect(lines[8].hasPrefix("100│100"))
        #expect(lines[9].contains("row 100/100"))
        subject.handle(.firstRow)
        #expect(subject.frame().lines[1].hasPrefix("  1│  1"))
    }

    @Test("a frozen column stays while the rest scrolls right")
    func frozenColumnStays() {
        let options = ViewerOptions(headerRows: 1, frozenColumns: 1)
        let subject = viewer(wideCSV(rows: 5, columns: 12), width: 50, height: 8, options: options,
                             commands: Array(repeating: .moveRight, count: 8))
        let lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  # column0  │"))
        #expect(lines[1].hasPrefix("  1 r1c0-xxxx│"))
        #expect(!lines[1].contains("r1c1-"))
        #expect(lines[1].contains("r1c8-xxxx"))
        // The header band's labels sit above their data.
        let header = lines[0], data = lines[1]
        let labelStart = try! #require(header.range(of: "column8"))
        let dataStart = try! #require(data.range(of: "r1c8-xxxx"))
        #expect(header.distance(from: header.startIndex, to: labelStart.lowerBound)
                == data.distance(from: data.startIndex, to: dataStart.lowerBound))
    }

    @Test("End goes to the last column and Home back to the first")
    func homeEnd() {
        let subject = viewer(wideCSV(rows: 3, columns: 20), width: 50, height: 6, commands: [.lastColumn])
        #expect(subject.cursorColumn == 19)
        #expect(subject.frame().lines[1].contains("r1c19-xxxx"))
        subject.handle(.firstColumn)
        #expect(subject.window.offset.x == 0)
        #expect(subject.frame().lines[1].contains("r1c0-xxxx"))
    }

    @Test("numbers are right-aligned, text left-aligned")
    func alignment() {
        let lines = viewer("n,t\n5,a\n12345,bcdef\n", width: 30, height: 5).frame().lines
        #expect(lines[1].hasPrefix("  1│    5 a    "))
        #expect(lines[2].hasPrefix("  2│12345 bcdef"))
    }

    @Test("without row numbers the data starts at the left edge")
    func noRowNumbers() {
        let lines = viewer("a,b\n1,2\n", width: 20, height: 4, options: .plain(showsRowNumbers: false)).frame().lines
        #expect(lines[0].hasPrefix("a b"))
        #expect(lines[1].hasPrefix("1 2"))
    }

    @Test("with no header row, the first record is data row 1")
    func noHeader() {
        let lines = viewer("a,b\n1,2\n", width: 20, height: 4, options: .plain(headerRows: 0)).frame().lines
        #expect(lines[0].hasPrefix("  1│a b"))
        #expect(lines[1].hasPrefix("  2│1 2"))
    }

    @Test("ragged rows show empty cells; long rows get their own columns")
    func ragged() {
        let lines = viewer("a,b\n1\n2,3,4\n", width: 20, height: 5).frame().lines
        // The column past the header is named as everywhere else, wide enough for its name.
        #expect(lines[0].hasPrefix("  #│a b column 3"))
        #expect(lines[1].hasPrefix("  1│1  "))
        #expect(lines[2].hasPrefix("  2│2 3        4"))
    }

    @Test("control characters and escape sequences never reach the frame raw")
    func controls() {
        let csv = "a,b\n\"x\u{1B}[31my\",\"bell\u{07}\"\n\"line\nbreak\",\"tab\there\"\n"
        let frame = viewer(csv, width: 40, height: 5).frame()
        for cell in frame.cells {
            #expect(!cell.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) })
        }
        #expect(frame.lines[1].contains("x␛[31my"))
        #expect(frame.lines[1].contains("bell␇"))
        #expect(frame.lines[2].contains("line↵break"))
        #expect(frame.lines[2].contains("tab→here"))
        let symbolX = frame.line(1).distance(from: frame.line(1).startIndex, to: frame.line(1).firstIndex(of: "␇")!)
        #expect(frame.style(x: symbolX, y: 1) == .symbol)
    }

    @Test("invalid UTF-8 shows as U+FFFD")
    func invalidUTF8() {
        _ = utf8Locale
        let bytes: [UInt8] = Array("a\n".utf8) + [0x41, 0xFF, 0x42, 0x0A]
        let subject = Viewer(store: CellStore(bytes: bytes), screenSize: Size(width: 20, height: 4))
        #expect(subject.frame().lines[1].hasPrefix("  1│A\u{FFFD}B"))
    }

    @Test("wide characters take two cells and are never split at an edge")
    func wideCharacters() {
        let csv = "k,v\n1,北京上海广州深圳\n"
        let frame = viewer(csv, width: 14, height: 4).frame()
        #expect(frame.lines[1].hasPrefix("  1│1 北京上 …"))
        for y in 0..<frame.size.height {
            for x in 0..<frame.size.width where frame[x, y].isContinuation {
                #expect(x > 0 && !frame[x - 1, y].isContinuation)
                #expect(DisplayWidth.of(frame[x - 1, y].text.first!) == 2)
            }
        }
    }

    @Test("a long cell is clipped with an ellipsis at the column's width")
    func clipped() {
        let long = String(repeating: "x", count: 200)
        let line = viewer("a,b\n\(long),1\n", width: 80, height: 4).frame().lines[1]
        #expect(line.contains("x…"))
        #expect(line.contains(" 1"))
    }

    @Test("any screen size draws without a crash", arguments: [(0, 0), (1, 1), (2, 2), (9, 3), (10, 2), (10, 3), (200, 60)])
    func sizes(width: Int, height: Int) {
        let subject = viewer(sampleCSV(rows: 50), width: width, height: height,
                             options: .plain(frozenColumns: 3), commands: [.pageDown, .lastColumn, .lastRow])
        let frame = subject.frame()
        #expect(frame.size == Size(width: width, height: height))
        if width > 0 && height > 0 && (width < 10 || height < 3) {
            #expect(frame.lines[0].hasPrefix(String("terminal too small".prefix(width))))
        }
    }

    @Test("a resize keeps the cursor on screen")
    func resize() {
        let subject = viewer(sampleCSV(rows: 100), width: 40, height: 30, commands: [.lastRow])
        subject.handle(.resize(Size(width: 30, height: 6)))
        let lines = subject.frame().lines
        #expect(lines.count == 6)
        #expect(lines[4].hasPrefix("100│100"))
    }

    @Test("an empty input shows an empty sheet and says so")
    func emptyInput() {
        let lines = viewer("", width: 30, height: 4).frame().lines
        #expect(lines[3].contains("empty input"))
        #expect(viewer("a,b\n", width: 30, height: 4).frame().lines[3].contains("no rows"))
    }

    @Test("frozen columns that would fill the screen are dropped")
    func frozenTooWide() {
        let subject = viewer(wideCSV(rows: 3, columns: 10), width: 30, height: 5,
                             options: .plain(frozenColumns: 8))
        _ = subject.frame()
        #expect(subject.frozenColumns < 8)
        #expect(subject.window.main.width >= 30 / 4)
    }

    @Test("q and Ctrl-C quit")
    func quit() {
        for key in [Key.character("q"), .control("c")] {
            let subject = viewer("a\n1\n")
            #expect(subject.handle(key: key))
            #expect(subject.isFinished)
        }
    }

    @Test("every key in the key table dispatches its command")
    func keyTable() {
        for binding in KeyMap.bindings {
            for sequence in binding.sequences { #expect(KeyMap.match(sequence) == .command(binding.command)) }
        }
        #expect(KeyMap.match([.character("z")]) == .prefix)
        #expect(KeyMap.helpLines.contains { $0.hasPrefix("q, Ctrl-C") && $0.hasSuffix("quit, at once during a search (Ctrl-C anywhere)") })
    }
}

@Suite("Column widths", .timeLimit(.minutes(30)))
struct ColumnWidthTests {
    @Test("widths come from the first rows and, once loaded, the last ones")
    func tailSample() {
        let subject = viewer(sampleCSV(rows: 5000), width: 60, height: 6, commands: [.lastRow])
        let lines = subject.frame().lines
        // id 5000 and amount 15000.5 are wider than anything in the first 1000 rows.
        #expect(lines[4].contains("5000 Ann"))
        #expect(lines[4].contains("15000.5"))
        #expect(!lines[4].contains("…"))
    }

    @Test("a short header never makes its column narrower than the header")
    func headerWidth() {
        let lines = viewer("a_long_header,b\n1,2\n", width: 40, height: 4).frame().lines
        #expect(lines[0].contains("a_long_header b"))
    }

    @Test("one long column is capped so it cannot take the screen")
    func capped() {
        let subject = viewer("a,b\n\(String(repeating: "w", count: 300)),1\n", width: 80, height: 4)
        _ = subject.frame()
        #expect(subject.columnWidths[0] <= 40)
    }
}

@Suite("Large cells and wide files", .timeLimit(.minutes(30)))
struct LargeInputTests {
    @Test("a multi-megabyte cell is drawn from its first bytes only")
    func hugeCell() {
        let huge = String(repeating: "é", count: 3_000_000)
        let subject = viewer("a,b\n\"\(huge)\",2\n", width: 60, height: 4)
        let line = subject.frame().lines[1]
        #expect(line.contains("éé…"))
        #expect(line.contains(" 2"))
        #expect(CellText.width(ArraySlice(huge.utf8), limit: 50) == 50)
    }

    @Test("a cell cut on a character boundary shows no stray U+FFFD")
    func cutBoundary() {
        let cells = CellText.layout(ArraySlice(String(repeating: "北", count: 10_000).utf8), width: 9, alignRight: false, style: .plain)
        #expect(cells.count == 9)
        #expect(!cells.contains { $0.text == "\u{FFFD}" })
        #expect(cells.last?.text == "…")
    }

    @Test("thousands of columns are sized from a bounded sample")
    func manyColumns() {
        let header = (0..<5000).map { "c\($0)" }.joined(separator: ",")
        let row = (0..<5000).map { "\($0)" }.joined(separator: ",")
        let csv = header + "\n" + Array(repeating: row, count: 2000).joined(separator: "\n") + "\n"
        let subject = viewer(csv, width: 80, height: 10, commands: [.lastColumn])
        #expect(subject.columnCount == 5000)
        #expect(subject.frame().lines[1].contains("4999"))
    }
}
