import CellStore
import FreezeLayout
import Testing
@testable import Viewer

@Suite("Fidelity", .timeLimit(.minutes(30)))
struct FidelityTests {
    @Test("another quote character: fields quoted with it, the status line names it")
    func quoteCharacter() {
        _ = utf8Locale
        let store = CellStore(bytes: Array("a;b\n'x;y';'it''s'\n".utf8), quote: UInt8(ascii: "'"))
        #expect(store.row(1)?.strings == ["x;y", "it's"])
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 60, height: 4))
        #expect(subject.frame().lines[3].contains("semicolon, quote '''"))
    }

    @Test("NUL bytes: shown as ␀, with a warning")
    func binary() {
        let subject = viewer("a,b\n1,x\u{0}y\n", width: 70, height: 4)
        let lines = subject.frame().lines
        #expect(lines[1].contains("x␀y"))
        #expect(lines[3].contains("binary data? (NUL bytes, shown as ␀)"))
    }

    @Test("graphemes: combining marks, ZWJ emoji and flags keep their cluster; alignment holds")
    func graphemes() {
        let csv = "k,v\ne\u{301}x,1\n👩‍👩‍👧,2\n🇫🇷,3\n"
        let frame = viewer(csv, width: 30, height: 6).frame()
        // Every data line's "v" column starts at the same screen column.
        let columns = (1...3).map { line -> Int in
            var x = 0
            var cells = 0
            while x < frame.size.width {
                if frame[x, line].text == String(line) { return cells }
                if !frame[x, line].isContinuation { cells += 1 }
                x += 1
            }
            return -1
        }
        #expect(Set((1...3).map { line in (0..<30).first { frame[$0, line].text == String(line) } ?? -1 }).count == 1, "\(columns)")
        #expect(frame.lines[1].contains("é"))
    }

    @Test("bidirectional overrides and isolates never reach the terminal")
    func bidi() {
        let frame = viewer("a\n\u{202E}abc\u{2066}d\u{2069}\n", width: 30, height: 4).frame()
        for cell in frame.cells {
            #expect(!cell.text.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) })
        }
        #expect(frame.lines[1].contains("¶abc¶d¶"))
    }

    /// Any bytes in: exactly `width` cells out, no control characters, no split wide character.
    @Test("the cell renderer, fuzzed with random bytes", arguments: [1, 2, 3, 7, 20])
    func rendererFuzz(width: Int) {
        _ = utf8Locale
        var generator = SeededGenerator(seed: UInt64(width))
        let alphabet: [[UInt8]] = [[0x1B], [0x07], [0x00], [0x7F], [0x0A], [0x0D], [0x09], [0xC2, 0x85], [0xE2, 0x80, 0xAE],
                                   Array("中".utf8), Array("e\u{301}".utf8), Array("👩‍👩‍👧".utf8), Array("🇫🇷".utf8),
                                   [0xFF], [0xC3], [0xE4, 0xB8], Array("a".utf8), Array(" ".utf8), Array("12.5".utf8)]
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(generator.next() % 12) { bytes += alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let cells = CellText.layout(bytes[...], width: width, alignRight: CellText.isNumber(bytes[...]), style: .plain)
            #expect(cells.count == width)
            var index = 0
            while index < cells.count {
                let cell = cells[index]
                #expect(!cell.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
                if !cell.isContinuation, let character = cell.text.first, DisplayWidth.of(character) >= 2 {
                    let width = DisplayWidth.of(character)
                    #expect(index + width <= cells.count && cells[(index + 1)..<(index + width)].allSatisfy(\.isContinuation),
                            "a wide character whole")
                    index += width
                    continue
                }
                #expect(!cell.isContinuation, "no stray half")
                index += 1
            }
        }
    }
}

@Suite("Wide characters at the edges", .timeLimit(.minutes(30)))
struct WideEdgeTests {
    /// Every cell is either a whole character's first cell or covered by one just before it.
    func expectWellFormed(_ frame: Frame, sourceLocation: SourceLocation = #_sourceLocation) {
        for y in 0..<frame.size.height {
            var x = 0
            while x < frame.size.width {
                let cell = frame[x, y]
                #expect(!cell.isContinuation, "an orphan half at \(x),\(y)", sourceLocation: sourceLocation)
                let width = max(1, cell.text.first.map(DisplayWidth.of) ?? 1)
                for extra in 1..<width where x + extra < frame.size.width {
                    #expect(frame[x + extra, y].isContinuation, sourceLocation: sourceLocation)
                }
                x += width
            }
        }
    }

    @Test("clusters of 2 and 6 cells cut at either edge at every sideways offset leave well-formed lines")
    func everyOffset() {
        let csv = "id,a,b,c\n1,👩‍👩‍👧👩‍👩‍👧 fam,北京上海北京上海,🇫🇷🇫🇷🇫🇷\n2,x中x中x中,ab,👩‍👩‍👧\n"
        for (width, frozen) in [(24, 0), (13, 1), (17, 0)] {
            let subject = viewer(csv, width: width, height: 5, options: .plain(frozenColumns: frozen))
            _ = subject.frame()
            for offset in 0...subject.window.maxOffset.x {
                subject.navigation.scroll(to: Point(x: offset, y: 0))
                expectWellFormed(subject.frame())
            }
        }
    }
}
