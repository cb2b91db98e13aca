import CellStore
import FreezeLayout
import Testing
@testable import Viewer

/// The 15 numbered behaviors of shared/reference/dqk-freeze-window.md, each by name.
@Suite("DQK freeze-window behaviors", .timeLimit(.minutes(30)))
struct FreezePaneBehaviorTests {
    /// Column n's header is its letter in capitals, its data the same letter in lower
    /// case, so a header cell and a data cell at one x must agree on the letter.
    static func letters(rows: Int = 200, columns: Int = 20) -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        // Past Z the names go on as AAAAA2, …: a repeated name would be shown made unique
        // (`AAAAAA_2`), wider than the others, and these tests want columns of one width.
        let header = (0..<columns).map { index in
            String(repeating: letters[index % 26], count: index < 26 ? 6 : 5) + (index < 26 ? "" : String(index / 26 + 1))
        }.joined(separator: ",")
        let row = (0..<columns).map { String(repeating: letters[$0 % 26].lowercased(), count: 6) }.joined(separator: ",")
        return header + "\n" + Array(repeating: row, count: rows).joined(separator: "\n") + "\n"
    }

    /// `letters`, with each data cell naming its record too (`bb0042`): two letters, then
    /// the record's number, so a line shows which record each band drew there.
    static func numbered(rows: Int = 200, columns: Int = 20) -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRST")
        let header = (0..<columns).map { String(repeating: letters[$0 % 20], count: 6) }.joined(separator: ",")
        let body = (1...rows).map { row in
            (0..<columns).map { column in
                let number = String(row)
                return String(repeating: letters[column % 20].lowercased(), count: 2) + String(repeating: "0", count: 4 - number.count) + number
            }.joined(separator: ",")
        }
        return header + "\n" + body.joined(separator: "\n") + "\n"
    }

    /// The bands are drawn where main is, as the frame shows them over `numbered` rows: on
    /// each of main's lines, the margin's number, the frozen column's cell and main's cells
    /// name one record, and the header band's letters stand over main's columns. Returns
    /// the lines where both bands named a record (so a caller knows the check saw some).
    @discardableResult
    func expectBandsFollowMain(_ subject: Viewer, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let frame = subject.frame()
        let window = subject.window
        let left = window.leftBand, main = window.main, band = window.headerBand
        func text(_ xs: Range<Int>, _ y: Int) -> String { xs.map { frame[$0, y].text }.joined() }
        /// The record numbers of the whole cells in `text` (`bb0042` is 42).
        func records(_ text: String) -> [Int] {
            let characters = Array(text)
            return characters.indices.compactMap { index -> Int? in
                guard index + 6 <= characters.count, index == 0 || !characters[index - 1].isLetter,
                      characters[index].isLowercase, characters[index + 1].isLowercase,
                      characters[(index + 2)..<(index + 6)].allSatisfy(\.isNumber) else { return nil }
                return Int(String(characters[(index + 2)..<(index + 6)]))
            }
        }
        guard !main.isEmpty else { return 0 }
        var seen = 0
        for y in main.minY..<main.maxY {
            let leftText = text(left.minX..<left.maxX, y), mainText = text(main.minX..<main.maxX, y)
            if !records(leftText).isEmpty && !records(mainText).isEmpty { seen += 1 }
            let named = Set(records(leftText) + records(mainText))
            #expect(named.count <= 1, "line \(y): \(leftText)│\(mainText)", sourceLocation: sourceLocation)
            let margin = Int(leftText.prefix { !$0.isLetter }.filter(\.isNumber))
            if let record = named.first {
                #expect(margin == record, "line \(y): margin \(leftText)", sourceLocation: sourceLocation)
            }
        }
        guard !band.isEmpty else { return seen }
        for x in max(band.minX, main.minX)..<min(band.maxX, main.maxX) {
            let header = frame[x, band.minY].text
            for y in main.minY..<main.maxY {
                let data = frame[x, y].text
                if data.first?.isLetter == true || data == "│" {
                    #expect(data.uppercased() == header, "x \(x) line \(y)", sourceLocation: sourceLocation)
                } else if data.first?.isNumber == true {
                    #expect(header.first?.isLetter == true, "x \(x) line \(y)", sourceLocation: sourceLocation)
                }
            }
        }
        return seen
    }

    func options(_ bounce: BounceStyle, frozenColumns: Int = 1) -> ViewerOptions {
        ViewerOptions(frozenColumns: frozenColumns, bounce: bounce, showsIndicators: false)
    }

    /// Every header-band cell sits exactly above data cells of the same column.
    func expectAligned(_ subject: Viewer, sourceLocation: SourceLocation = #_sourceLocation) {
        let frame = subject.frame()
        let band = subject.window.headerBand, main = subject.window.main
        guard !band.isEmpty, !main.isEmpty else { return }
        for x in max(band.minX, main.minX)..<min(band.maxX, main.maxX) {
            let header = frame[x, band.minY].text
            guard header != " " else { continue }
            for y in main.minY..<main.maxY {
                let data = frame[x, y].text
                if data != " " {
                    #expect(data.uppercased() == header, "x \(x) line \(y)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test("behavior 1: regions tile the screen, corner at the origin, main beside and below the bands")
    func behavior1Regions() {
        let subject = viewer(Self.letters(), width: 60, height: 12, options: options(.all))
        let frame = subject.frame()
        let window = subject.window
        #expect(window.corner == Rect(x: 0, y: 0, width: window.leftWidth, height: 1))
        #expect(window.headerBand == Rect(x: window.leftWidth, y: 0, width: 60 - window.leftWidth, height: 1))
        #expect(window.leftBand == Rect(x: 0, y: 1, width: window.leftWidth, height: 12 - 1 - 1))
        #expect(window.main == Rect(x: window.leftWidth, y: 1, width: 60 - window.leftWidth, height: 10))
        #expect(frame.lines[0].hasPrefix("  # AAAAAA│BBBBBB"))
        #expect(frame.lines[1].hasPrefix("  1 aaaaaa│bbbbbb"))
    }

    @Test("behavior 2: the header band's x and the left band's y equal main's after every input and frame",
          arguments: [BounceStyle.all, .main, .none])
    func behavior2Synchronized(bounce: BounceStyle) {
        let subject = viewer(Self.numbered(), width: 50, height: 12, options: options(bounce))
        var generator = SeededGenerator(seed: 7)
        let commands: [Command] = [.moveDown, .moveUp, .moveRight, .moveLeft, .pageDown, .pageUp, .scrollRight, .scrollLeft,
                                   .firstRow, .lastRow, .firstColumn, .lastColumn, .tick, .tick,
                                   .mouse(MouseEvent(.wheelDown, x: 30, y: 5)), .mouse(MouseEvent(.wheelUp, x: 30, y: 0)),
                                   .mouse(MouseEvent(.wheelDown, x: 2, y: 5)), .mouse(MouseEvent(.wheelUp, x: 30, y: 5, isShifted: true))]
        var seen = 0
        for _ in 0..<300 {
            subject.handle(commands[Int(generator.next() % UInt64(commands.count))])
            #expect(subject.invariantViolations == [])
            seen += expectBandsFollowMain(subject)
        }
        #expect(seen > 1000, "lines where both bands named a record: \(seen)")
    }

    @Test("behavior 3: scrolling main moves x and y; the header band follows in x only, the left band in y only")
    func behavior3MainScroll() {
        var window = FreezeWindow(bounds: Size(width: 40, height: 10), leftWidth: 5, headerHeight: 1,
                                  contentSize: Size(width: 200, height: 100))
        window.scrollMain(by: Point(x: 7, y: 4))
        #expect(window.offset == Point(x: 7, y: 4))
        #expect(window.headerBandOffset == Point(x: 7, y: 0))
        #expect(window.leftBandOffset == Point(x: 0, y: 4))
        let subject = viewer(Self.letters(), width: 50, height: 12, options: options(.none))
        subject.handle(.mouse(MouseEvent(.wheelDown, x: 30, y: 5)))
        #expect(subject.window.offset == Point(x: 0, y: 3))
        subject.handle(.mouse(MouseEvent(.wheelDown, x: 30, y: 5, isShifted: true)))
        #expect(subject.window.offset == Point(x: 8, y: 3))
    }

    @Test("behavior 4: the wheel over the header band scrolls columns only, over the left band rows only")
    func behavior4BandScroll() {
        let subject = viewer(Self.letters(), width: 50, height: 12, options: options(.none))
        subject.handle(.mouse(MouseEvent(.wheelDown, x: 30, y: 0)))
        #expect(subject.window.offset == Point(x: 8, y: 0))
        subject.handle(.mouse(MouseEvent(.wheelDown, x: 2, y: 6)))
        #expect(subject.window.offset == Point(x: 8, y: 3))
        subject.handle(.mouse(MouseEvent(.wheelDown, x: 2, y: 6, isShifted: true)))
        #expect(subject.window.offset == Point(x: 8, y: 6))
        expectAligned(subject)
    }

    @Test("behavior 5: one update, no echo: a band's scroll moves main once, by exactly its amount")
    func behavior5NoEcho() {
        var window = FreezeWindow(bounds: Size(width: 40, height: 10), leftWidth: 5, headerHeight: 1,
                                  contentSize: Size(width: 200, height: 100))
        window.scrollHeaderBand(by: 5)
        #expect(window.offset == Point(x: 5, y: 0))
        window.scrollLeftBand(by: 3)
        #expect(window.offset == Point(x: 5, y: 3))
        window.scrollHeaderBand(by: -2)
        #expect(window.offset == Point(x: 3, y: 3))
    }

    @Test("behavior 6: new input first ends a running spring-back")
    func behavior6InputCancelsAnimation() {
        let subject = viewer(Self.letters(), width: 50, height: 12, options: options(.all))
        subject.handle(.moveUp)
        #expect(subject.isAnimating)
        subject.handle(.moveDown)
        #expect(!subject.isAnimating)
        #expect(subject.window.offset == .zero)
        #expect(subject.cursorRow == 1)
    }

    @Test("behavior 7: bounce none clamps, and an axis whose content fits never scrolls")
    func behavior7NoneClamps() {
        let subject = viewer("a,b\n1,2\n3,4\n", width: 50, height: 12, options: options(.none, frozenColumns: 0))
        for command in [Command.moveUp, .pageUp, .moveLeft, .pageDown, .moveRight, .scrollRight,
                        .mouse(MouseEvent(.wheelDown, x: 20, y: 3)), .mouse(MouseEvent(.wheelUp, x: 20, y: 0))] {
            subject.handle(command)
            #expect(subject.window.offset == .zero, "\(command)")
            #expect(!subject.isAnimating)
        }
    }

    @Test("behavior 8: bounce main at the top: blank lines open in main and the left band, the header stays")
    func behavior8BounceMain() {
        let subject = viewer(Self.letters(), width: 50, height: 12, options: options(.main))
        subject.handle(.moveUp)
        let d = -subject.window.offset.y
        #expect(d >= 1)
        let lines = subject.frame().lines
        #expect(lines[0].hasPrefix("  # AAAAAA│BBBBBB"))
        for line in 1...d { #expect(lines[line].trimmingCharacters(in: .whitespaces).isEmpty, "line \(line)") }
        #expect(lines[1 + d].hasPrefix("  1 aaaaaa│bbbbbb"))
    }

    @Test("behavior 9: bounce all at the top and left: the whole sheet moves, corner first")
    func behavior9BounceAll() {
        let subject = viewer(Self.letters(), width: 50, height: 12, options: options(.all))
        subject.handle(.moveUp)
        subject.handle(.moveLeft)
        let e = -subject.window.offset.x, d = -subject.window.offset.y
        #expect(d >= 1 && e >= 1)
        #expect(subject.window.corner.origin == Point(x: e, y: d))
        #expect(subject.window.headerBand.minY == d)
        #expect(subject.window.leftBand.minX == e)
        let lines = subject.frame().lines
        for line in 0..<d { #expect(lines[line].trimmingCharacters(in: .whitespaces).isEmpty) }
        let pad = String(repeating: " ", count: e)
        #expect(lines[d].hasPrefix(pad + "  # AAAAAA│BBBBBB"))
        #expect(lines[d + 1].hasPrefix(pad + "  1 aaaaaa│bbbbbb"))
    }

    @Test("behavior 10: at the bottom and right the gap opens inside main; bands and corner stay", arguments: [BounceStyle.all, .main])
    func behavior10BottomRight(bounce: BounceStyle) {
        let subject = viewer(Self.letters(rows: 30), width: 50, height: 12, options: options(bounce))
        subject.handle(.lastRow)
        subject.handle(.lastColumn)
        subject.handle(.moveDown)
        subject.handle(.moveRight)
        #expect(subject.isAnimating)
        #expect(subject.window.corner.origin == .zero)
        #expect(subject.window.headerBand.minY == 0)
        let lines = subject.frame().lines
        // The last row sits above a blank strip, in the left band too.
        #expect(lines[8].hasPrefix(" 30 "))
        #expect(lines[9].trimmingCharacters(in: .whitespaces).isEmpty)
        #expect(lines[10].trimmingCharacters(in: .whitespaces).isEmpty)
        // And the last column beside one.
        #expect(lines[0].hasSuffix("TTTTTT    "))
        expectAligned(subject)
    }

    @Test("behavior 11: overscroll grows with resistance to a cap, then springs back to rest in a few frames")
    func behavior11Resistance() {
        let subject = viewer(Self.letters(), width: 50, height: 12, options: options(.all))
        var pulls: [Int] = []
        for _ in 0..<5 {
            subject.handle(.moveUp)
            pulls.append(-subject.window.offset.y)
        }
        #expect(pulls == [2, 3, 3, 3, 3])
        #expect(pulls.last == FreezeWindow.overscrollCap.y)
        var frames = 0
        while subject.isAnimating && frames <= 5 {
            subject.handle(.tick)
            frames += 1
            #expect(subject.window.shift.y == max(0, -subject.window.offset.y))
        }
        #expect(!subject.isAnimating && frames <= 5, "the pull settles within 5 frames")
        #expect(frames <= 4, "at 30 ms a frame the spring-back ends within 150 ms")
        #expect(subject.window.offset == .zero)
        #expect(subject.frame().lines[0].hasPrefix("  # AAAAAA"))
    }

    @Test("behavior 12: every frame draws every visible cell, whatever the jump")
    func behavior12FullRedraw() {
        let subject = viewer(sampleCSV(rows: 3000), width: 60, height: 15, options: .plain)
        var generator = SeededGenerator(seed: 12)
        let jumps: [Command] = [.lastRow, .firstRow, .pageDown, .pageDown, .pageUp, .moveDown, .lastColumn, .firstColumn,
                                .mouse(MouseEvent(.press, x: 20, y: 9)), .mouse(MouseEvent(.wheelDown, x: 20, y: 5))]
        for _ in 0..<200 {
            subject.handle(jumps[Int(generator.next() % UInt64(jumps.count))])
            #expect(subject.invariantViolations == [])
            let lines = subject.frame().lines
            for line in lines[1..<14] {
                // The row number and the id (equal in this file) agree on every line.
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "│" })
                #expect(fields.count >= 4 && fields[0] == fields[1], "\(line)")
            }
        }
    }

    @Test("behavior 13: no row outside the data is asked for, even overscrolled; the pool stays bounded")
    func behavior13BoundedRequests() {
        let store = CellStore(bytes: Array(Self.letters(rows: 500, columns: 40).utf8))
        _ = utf8Locale
        let subject = Viewer(store: store, options: options(.all), screenSize: Size(width: 80, height: 24))
        var generator = SeededGenerator(seed: 13)
        let commands: [Command] = [.moveDown, .moveUp, .pageDown, .pageUp, .moveRight, .moveLeft, .lastRow, .firstRow,
                                   .lastColumn, .firstColumn, .scrollLeft, .scrollRight, .tick,
                                   .mouse(MouseEvent(.wheelDown, x: 40, y: 10)), .mouse(MouseEvent(.wheelUp, x: 40, y: 10)),
                                   .mouse(MouseEvent(.wheelUp, x: 40, y: 0))]
        var mostLive = 0
        for _ in 0..<3000 {
            subject.handle(commands[Int(generator.next() % UInt64(commands.count))])
            _ = subject.frame()
            #expect(subject.invariantViolations == [])
            mostLive = max(mostLive, subject.cellStatistics.live)
        }
        #expect(store.statistics.outOfRangeRequests == 0)
        let stats = subject.cellStatistics
        #expect(stats.pooled <= CellCache.slack)
        #expect(stats.created <= mostLive + CellCache.slack)
        #expect(stats.created <= 2 * mostLive)
        #expect(stats.reused > 10 * stats.created)
    }

    @Test("behavior 14: a press selects the cell, column or row under it; blank overscroll selects nothing")
    func behavior14Clicks() {
        let subject = viewer(sampleCSV(rows: 100), width: 40, height: 10, options: .plain)
        subject.handle(.mouse(MouseEvent(.press, x: 16, y: 3)))
        #expect(subject.cursorRow == 2)
        #expect(subject.cursorColumn == 2)
        subject.handle(.mouse(MouseEvent(.press, x: 10, y: 0)))
        #expect(subject.cursorColumn == 1)
        #expect(subject.cursorRow == 2)
        subject.handle(.mouse(MouseEvent(.press, x: 1, y: 6)))
        #expect(subject.cursorRow == 5)
        #expect(subject.cursorColumn == 1)
        let bouncing = viewer(sampleCSV(rows: 100), width: 40, height: 10, options: options(.main, frozenColumns: 0))
        bouncing.handle(.moveDown)
        bouncing.handle(.firstRow)
        bouncing.handle(.moveUp)
        #expect(bouncing.window.offset.y < 0)
        bouncing.handle(.mouse(MouseEvent(.press, x: 10, y: 1)))
        #expect(bouncing.cursorRow == 0)
        #expect(bouncing.cursorColumn == 0)
    }

    @Test("behavior 15: a resize recomputes the regions and clamps; a resize or a style change ends a bounce")
    func behavior15Resize() {
        let subject = viewer(Self.letters(rows: 50), width: 50, height: 12, options: options(.all))
        subject.handle(.lastRow)
        subject.handle(.moveDown)
        #expect(subject.isAnimating)
        subject.handle(.resize(Size(width: 30, height: 40)))
        #expect(!subject.isAnimating)
        #expect(subject.window.offset.y == subject.window.maxOffset.y)
        #expect(subject.window.main.maxY == 39)
        #expect(subject.frame().lines[38].contains("50"))
        for size in [Size(width: 1, height: 1), Size(width: 0, height: 0), Size(width: 11, height: 3), Size(width: 50, height: 12)] {
            subject.handle(.resize(size))
            #expect(subject.frame().size == size)
        }
        var window = FreezeWindow(bounds: Size(width: 40, height: 10), leftWidth: 5, headerHeight: 1,
                                  contentSize: Size(width: 200, height: 100), bounce: .all)
        window.pull(by: Point(x: 0, y: -1))
        #expect(window.isOverscrolled)
        window.setBounce(.main)
        #expect(!window.isOverscrolled)
    }

    @Test("a random walk through every command keeps the invariants after each step", arguments: [1, 2, 3, 4, 5])
    func invariantsHold(seed: UInt64) {
        // Seeds 4 and 5 start with the band on, and walk onto it and off.
        var chosen = options(.all)
        chosen.showsBand = seed > 3
        let subject = viewer(Self.letters(rows: 80, columns: 12), width: 50, height: 12, options: chosen)
        var generator = SeededGenerator(seed: seed)
        var commands: [Command] = [.moveDown, .moveUp, .moveRight, .moveLeft, .pageDown, .pageUp, .scrollRight, .scrollLeft,
                                   .firstRow, .lastRow, .firstColumn, .lastColumn, .toggleFreeze, .unfreeze, .toggleFreeze,
                                   .narrowColumn, .widenColumn, .fitColumn, .toggleFullWidth, .tick, .tick,
                                   .resize(Size(width: 30, height: 8)), .resize(Size(width: 70, height: 20)), .resize(Size(width: 3, height: 3)),
                                   .mouse(MouseEvent(.press, x: 20, y: 6)), .mouse(MouseEvent(.wheelDown, x: 30, y: 5)),
                                   .mouse(MouseEvent(.wheelUp, x: 2, y: 5)), .mouse(MouseEvent(.wheelDown, x: 30, y: 5, isShifted: true))]
        if seed > 3 {
            commands += [.moveUp, .moveUp, .firstRow, .toggleBand, .refresh, .mouse(MouseEvent(.press, x: 20, y: 1)),
                         .mouse(MouseEvent(.press, x: 2, y: 1)), .inspect]
        }
        for step in 0..<500 {
            let command = commands[Int(generator.next() % UInt64(commands.count))]
            subject.handle(command)
            let broken = subject.invariantViolations
            #expect(broken == [], "step \(step), after \(command)")
            if !broken.isEmpty { return }
            _ = subject.frame()
        }
    }
}
