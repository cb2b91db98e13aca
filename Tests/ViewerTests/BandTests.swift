import CellStore
import FreezeLayout
import Insight
import Testing
@testable import Viewer

@Suite("The distribution band under the header", .timeLimit(.minutes(30)))
struct BandTests {
    static let ratings = "id,rating,city\n" + (1...10).map { index in
        "\(index),\([1, 2, 2, 3, 3, 3, 3, 4, 4, 5][index - 1]),\(index <= 6 ? "Oslo" : "Lyon")"
    }.joined(separator: "\n") + "\n"

    /// A viewer with the band on, once its pictures are exact.
    static func banded(_ csv: String, width: Int = 40, height: Int = 8, options: ViewerOptions = .plain) -> Viewer {
        var options = options
        options.showsBand = true
        let subject = viewer(csv, width: width, height: height, options: options)
        waitUntil("the band's pictures") {
            subject.handle(.refresh)
            return subject.band.isExact
        }
        return subject
    }

    @Test("B draws each column's picture in a line under the header, scrolling with it")
    func drawn() {
        let subject = viewer(Self.ratings, width: 40, height: 8)
        subject.handle(key: .character("B"))
        #expect(subject.band.isOn)
        waitUntil("the band's pictures") {
            subject.handle(.refresh)
            return subject.band.isExact
        }
        let lines = subject.frame().lines
        #expect(lines[0] == "  #│id rating city                      ")
        #expect(lines[1] == "▃▅█│██ ▂▄█▄▂  ██▓▓                      ")
        #expect(lines[2] == "  1│ 1      1 Oslo                      ")
        // Its style says it is exact: the band's, not the dim one.
        #expect(subject.frame().style(x: 4, y: 1) == .band)
        subject.handle(key: .character("B"))
        #expect(subject.frame().lines[1] == "  1│ 1      1 Oslo                      ")
    }

    @Test("text draws the shares of its values as segments and its distinct count where there is room")
    func textBar() {
        let csv = "city\n" + (Array(repeating: "Oslo", count: 6) + ["Lyon", "Lyon", "Rome", "Nice"]).joined(separator: "\n") + "\n"
        let subject = Self.banded(csv, width: 30, height: 6, options: .plain(showsRowNumbers: false))
        subject.handle(key: .character(">"))
        subject.handle(key: .character(">"))
        subject.handle(key: .character(">"))
        subject.handle(key: .character(">"))
        subject.handle(key: .character(">"))
        subject.handle(key: .character(">"))
        let line = subject.frame().lines[1]
        #expect(line.hasPrefix("█████▓▒█ 4"), "\(line)")
    }

    @Test("on an 80-column terminal the band's status keeps the cells left out of a column of long numbers: they come before its range")
    func leftOutBeforeTheRange() {
        let csv = "id,price\n" + (1...40).map { "\($0),\($0 % 13 == 0 ? "n/a" : "\(900000 + $0).123456789")" }.joined(separator: "\n") + "\n"
        let subject = Self.banded(csv, width: 80)
        subject.handle(key: .character("l"))
        subject.handle(key: .up)
        let status = subject.frame().lines[7]
        #expect(status.contains("37 numbers, 3 not numbers: from 900001.123456789"), "\(status)")
    }

    @Test("Up from the first row steps onto the band, Down back; Enter there opens the column's sheet")
    func cursor() {
        let subject = Self.banded(Self.ratings, width: 80)
        subject.handle(key: .character("l"))
        subject.handle(key: .up)
        #expect(subject.isCursorOnBand)
        let frame = subject.frame()
        #expect(frame.style(x: 7, y: 1) == .cursor)
        #expect(frame.style(x: 7, y: 2) != .cursor)
        #expect(frame.lines[7].contains("10 numbers from 1 to 5  (Enter: histogram)"), "\(frame.lines[7])")
        subject.handle(key: .down)
        #expect(!subject.isCursorOnBand && subject.cursorRow == 0)
        subject.handle(key: .up)
        subject.handle(key: .enter)
        #expect(subject.takeSheet() != nil)
        // Other motions leave it; G goes to the last row.
        subject.handle(key: .character("G"))
        #expect(!subject.isCursorOnBand && subject.cursorRow == 9)
    }

    @Test("a press on the band puts the cursor there and opens that column")
    func click() {
        let subject = Self.banded(Self.ratings)
        subject.handle(.mouse(MouseEvent(.press, x: 8, y: 1)))
        #expect(subject.isCursorOnBand && subject.cursorColumn == 1)
        #expect(subject.takeSheet() != nil)
    }

    @Test("a terminal without block characters gets ASCII levels")
    func ascii() {
        var options = ViewerOptions.plain
        options.drawsBlocks = false
        let subject = Self.banded(Self.ratings, options: options)
        #expect(subject.frame().lines[1] == ":=#│## :=#=:  ##==                      ")
    }

    @Test("the corner names the band in the glyphs the terminal draws: ~shape in ASCII until exact")
    func cornerLabel() {
        #expect(FrameComposer.bandLabel(width: 8, isExact: false, glyphs: .ascii) == "~shape")
        #expect(FrameComposer.bandLabel(width: 8, isExact: false, glyphs: .blocks) == "≈shape")
        #expect(FrameComposer.bandLabel(width: 8, isExact: true, glyphs: .ascii) == "shape")
    }

    @Test("one distinct value draws a flat line and says so; an empty column too")
    func flat() {
        let subject = Self.banded("alpha,beta\n5,\n5,\n5,\n", width: 80)
        #expect(subject.frame().lines[1].hasPrefix("▃▅█│▁▁▁▁▁ ▁▁▁▁"), "\(subject.frame().lines[1])")
        subject.handle(key: .up)
        #expect(subject.frame().lines[7].contains("one value, 5, 3 times (a flat line)"))
        subject.handle(key: .character("l"))
        #expect(subject.frame().lines[7].contains("no value: every cell is empty"))
        // One row: once, not "1 times".
        let single = Self.banded("alpha\n5\n", width: 80)
        single.handle(key: .up)
        #expect(single.frame().lines[7].contains("one value, 5, once (a flat line)"), "\(single.frame().lines[7])")
    }

    @Test("a column past the most the band pictures says so on the band, not that it is not pictured yet")
    func pastTheColumnLimit() {
        let columns = PictureScan.columnLimit + 3
        let header = (0..<columns).map { "c\($0)" }.joined(separator: ",")
        let row = (0..<columns).map { "\($0 % 7)" }.joined(separator: ",")
        let subject = Self.banded(header + "\n" + row + "\n" + row + "\n", width: 80)
        subject.handle(key: .character("$"))
        subject.handle(key: .up)
        let status = subject.frame().lines[7]
        #expect(status.contains("not pictured: the band pictures the first \(PictureScan.columnLimit) columns"), "\(status)")
        subject.handle(key: .character("0"))
        #expect(subject.frame().lines[7].contains("one value, 0"))
    }

    @Test("a filtered view's band pictures the rows kept")
    func filtered() {
        let subject = Self.banded(Self.ratings)
        subject.handle(.filter("Lyon", columnOnly: false))
        waitUntil("the filtered band") {
            subject.handle(.refresh)
            return subject.band.isExact && subject.band.shown?.records == 4
        }
        #expect(subject.band.picture(ofFileColumn: 1)?.bins?.total == 4)
        #expect(subject.band.picture(ofFileColumn: 2)?.distinct.count == 1)
        subject.handle(.filter("", columnOnly: false))
        waitUntil("the whole band again") {
            subject.handle(.refresh)
            return subject.band.isExact && subject.band.shown?.records == 10
        }
    }

    @Test("with \" the band pictures the marked rows kept, and every row again after")
    func markedOnly() {
        let subject = Self.banded(Self.ratings)
        // Rows 1 and 3: ratings 1 and 2, both in Oslo.
        for key in ["m", "j", "j", "m"] { subject.handle(key: .character(Character(key))) }
        subject.handle(key: .character("\""))
        #expect(subject.dataRowCount == 2)
        waitUntil("the marked rows' band") {
            subject.handle(.refresh)
            return subject.band.isExact && subject.band.shown?.records == 2
        }
        #expect(subject.band.picture(ofFileColumn: 1)?.bins?.total == 2)
        #expect(subject.band.picture(ofFileColumn: 2)?.distinct.count == 1)
        subject.handle(key: .character("\""))
        waitUntil("the whole band again") {
            subject.handle(.refresh)
            return subject.band.isExact && subject.band.shown?.records == 10
        }
    }

    @Test("on a screen too short for it the band gives way, and comes back when there is room",
          arguments: [Size(width: 40, height: 3), Size(width: 10, height: 4), Size(width: 1, height: 1), Size(width: 0, height: 0)])
    func degenerate(size: Size) {
        let subject = Self.banded(Self.ratings)
        subject.handle(.resize(size))
        #expect(subject.frame().size == size)
        #expect(subject.invariantViolations == [])
        subject.handle(key: .up)
        subject.handle(.resize(Size(width: 40, height: 8)))
        #expect(subject.frame().lines[1].hasPrefix("▃▅█│"))
        #expect(subject.invariantViolations == [])
    }

    @Test("frozen rows sit under the band; the band stays while main scrolls")
    func frozenAndScrolled() {
        let subject = Self.banded(Self.ratings, height: 8)
        subject.handle(key: .character("j"))
        subject.handle(key: .character("F"))
        var lines = subject.frame().lines
        #expect(lines[1].hasPrefix("▃▅█│"))
        #expect(lines[2].hasPrefix("  1│"))
        subject.handle(key: .character("G"))
        lines = subject.frame().lines
        #expect(lines[1].hasPrefix("▃▅█│") && lines[2].hasPrefix("  1│") && lines[6].hasPrefix(" 10│"))
    }

    @Test("with frozen rows on a short screen the band gives way first: the header and the frozen rows keep their lines",
          arguments: [4, 5, 6, 7, 8])
    func frozenOnShortScreen(height: Int) {
        let subject = Self.banded(Self.ratings, height: 10)
        for _ in 0..<3 { subject.handle(key: .character("j")) }
        subject.handle(key: .character("F"))
        subject.handle(.resize(Size(width: 40, height: height)))
        let banded = Array(subject.frame().lines.dropLast())
        subject.handle(key: .character("B"))
        let plain = Array(subject.frame().lines.dropLast())
        // The grid with the band is the grid without it, or that with the band under the
        // header: never a row drawn over, nor a header line of no record.
        let withBand = [plain[0], "▃▅█│██ ▂▄█▄▂  ██▓▓                      "] + plain.dropFirst().dropLast()
        #expect(banded == plain || banded == withBand, "\(banded)")
        #expect(!banded.contains { $0.hasPrefix(" -1") })
        #expect(subject.invariantViolations == [])
    }

    @Test("a viewer made again over the file (R) takes the band back, pictured anew")
    func reload() {
        let first = Self.banded(Self.ratings)
        let second = viewer(Self.ratings)
        #expect(!second.band.isOn)
        second.adopt(first)
        #expect(second.band.isOn)
        waitUntil("the new band") {
            second.handle(.refresh)
            return second.band.isExact
        }
        #expect(second.frame().lines[1] == first.frame().lines[1])
    }

    @Test("a band line that shows what the last frame's did is copied, not laid out again; what changes it is drawn anew")
    func copiedWhileUnchanged() {
        let csv = "a,bb,ccc,dddd,eeeee,f,g,h\n" + (1...40).map { index in
            (0..<8).map { column in "\(index * (column + 1) % (7 + column))" }.joined(separator: ",")
        }.joined(separator: "\n") + "\n"
        let subject = Self.banded(csv, width: 24, height: 8)
        _ = subject.frame()
        let made = subject.band.cache.linesMade
        // Rows scroll under it: the band is a copy.
        for key: Key in [.down, .down, .pageDown, .up, .character("G"), .character("g")] {
            subject.handle(key: key)
            _ = subject.frame()
        }
        #expect(subject.band.cache.linesMade == made)
        // Whatever it shows, drawn from the cache or anew, is the same line (text and styles).
        func bandCells() -> ArraySlice<FrameCell> {
            let frame = subject.frame()
            return frame.cells[frame.size.width..<(2 * frame.size.width)]
        }
        for key: Key in [.right, .right, .right, .right, .right, .right, .up, .left, .left, .down, .character("F"), .right, .up] {
            subject.handle(key: key)
            let copied = bandCells()
            subject.band.cache.clear()
            #expect(copied == bandCells(), "after \(key)")
        }
        #expect(subject.band.cache.linesMade > made)
        #expect(subject.invariantViolations == [])
    }
}
