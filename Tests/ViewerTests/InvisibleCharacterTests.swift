import CellStore
import Export
import FreezeLayout
import Testing
@testable import Viewer

/// Characters that draw nothing (too new for the C library's width table, unassigned,
/// zero-width or format characters, a combining mark with nothing to combine with) are
/// shown visibly, so two different cells never look the same.
@Suite("Characters that draw nothing", .timeLimit(.minutes(30)))
struct InvisibleCharacterTests {
    /// The text of a cell laid out in `width` cells (continuations left out).
    func shown(_ text: String, width: Int = 40) -> String {
        _ = utf8Locale
        return CellText.layout(ArraySlice(text.utf8), width: width, alignRight: false, style: .plain).map(\.text).joined()
    }

    @Test("an emoji the width table does not know, unassigned code points, format characters", arguments: [
        ("shaking \u{1FAE8} face", "shaking <U+1FAE8> face"),
        ("\u{1FA77}", "<U+1FA77>"),
        ("a\u{0378}b", "a<U+0378>b"),
        ("zero\u{200B}width", "zero<U+200B>width"),
        ("word\u{2060}joiner", "word<U+2060>joiner"),
        ("\u{FEFF}id", "<U+FEFF>id"),
        ("line\u{2028}sep", "line<U+2028>sep"),
        ("x\u{200D}y", "x<U+200D>y"),
        ("end\u{200D}", "end<U+200D>"),
        ("\u{200D}start", "<U+200D>start"),
    ])
    func placeholders(text: String, expected: String) {
        #expect(shown(text).hasPrefix(expected))
    }

    @Test("a combining mark at a cell's start shows on a dotted circle")
    func leadingMark() {
        #expect(shown("\u{0301}x").hasPrefix("◌\u{0301}x"))
        #expect(CellText.width(ArraySlice("\u{0301}x".utf8)) == 2)
    }

    @Test("what draws stays as it was: marks on their letter, joined emoji, flags, selectors")
    func unchanged() {
        for text in ["e\u{301}t\u{e9}", "👩‍👩‍👧", "👩🏽‍💻", "🏳️‍🌈", "🇫🇷", "❤️", "👍🏽", "ab"] {
            #expect(shown(text).hasPrefix(text), "\(text)")
            #expect(!shown(text).contains("<U+"), "\(text)")
        }
    }

    @Test("two cells that differ by an invisible character look different")
    func distinct() {
        #expect(shown("shaking \u{1FAE8} face") != shown("shaking  face"))
        #expect(shown("a\u{200B}b") != shown("ab"))
    }

    @Test("placeholders are symbols, and keep the columns after them aligned")
    func aligned() throws {
        let csv = "k,v\nshaking \u{1FAE8} face,1\nshaking  face,2\na\u{200B}b,3\n\u{301}x,4\n"
        let frame = viewer(csv, width: 50, height: 7).frame()
        let starts = (1...4).map { line in (0..<50).first { frame[$0, line].text == String(line) } ?? -1 }
        #expect(Set(starts).count == 1, "\(starts)")
        #expect(frame.lines[1].contains("shaking <U+1FAE8> face"))
        // Row 1 holds the cursor; row 3 is drawn plain, its placeholder as a symbol.
        let line = frame.lines[3]
        #expect(line.contains("a<U+200B>b"))
        let x = line.distance(from: line.startIndex, to: try #require(line.firstIndex(of: "<")))
        #expect(frame.style(x: x, y: 3) == .symbol)
        #expect(frame.style(x: x - 1, y: 3) == .plain)
        for cell in frame.cells {
            #expect(!cell.text.unicodeScalars.contains { [0x1FAE8, 0x200B, 0x2060, 0xFEFF].contains($0.value) })
        }
    }

    @Test("--output table shows them the same way")
    func tableOutput() {
        _ = utf8Locale
        var output: [UInt8] = []
        let writer = OutputWriter(format: .table) { output += $0; return true }
        for row in [["k"], ["shaking \u{1FAE8} face"], ["shaking  face"]] { writer.write(Row(cells: row)) }
        writer.finish(endsWithTerminator: true)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(lines[2] == "shaking <U+1FAE8> face")
        #expect(lines[3] == "shaking  face")
    }

    @Test("the inspector's forced breaks in a long line never cut a cluster into pieces that draw nothing")
    func forcedBreaks() {
        _ = utf8Locale
        let text = Array(String(repeating: "ab👨‍👩‍👧e\u{301}\u{302}", count: 40).utf8)
        for segment in [16, 17, 19, 23] {
            let wrapped = WrappedText(ArraySlice(text), width: 30, segment: segment)
            var position: Int? = wrapped.start
            var shown = ""
            while let here = position {
                let (glyphs, next) = wrapped.line(at: here)
                shown += glyphs.map(\.text).joined()
                position = next
            }
            #expect(!shown.contains("<U+") && !shown.contains("\u{25CC}"), "segment \(segment)")
            #expect(shown == String(decoding: text, as: UTF8.self))
        }
    }
}
