#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("Wrapping lazily", .timeLimit(.minutes(30)))
struct WrappedTextTests {
    /// Random text with the kinds of bytes that make wrapping hard.
    static func randomText(_ generator: inout SeededGenerator, length: Int) -> [UInt8] {
        let pieces: [[UInt8]] = ["a", "b", " ", "\n", "\r", "\r\n", "\t", "北", "é", "e\u{301}", "👨‍👩‍👧", "🇫🇷", "\u{1B}"]
            .map { Array($0.utf8) } + [[0xFF], [0xC3]]
        var bytes: [UInt8] = []
        while bytes.count < length {
            // Long runs of plain letters, now and then something else.
            bytes += Int.random(in: 0..<4, using: &generator) == 0 ? pieces.randomElement(using: &generator)!
                : Array(repeating: UInt8(ascii: "x"), count: Int.random(in: 1..<30, using: &generator))
        }
        return bytes
    }

    @Test("going back finds exactly the line starts that going forward gives, whatever the width and segment, at spaces or not",
          arguments: [1, 2, 5, 13, 40], [false, true])
    func backAgreesWithForward(width: Int, breaksAtSpaces: Bool) {
        _ = utf8Locale
        var generator = SeededGenerator(seed: UInt64(width))
        for round in 0..<30 {
            let bytes = Self.randomText(&generator, length: 50 + round * 23)
            for segment in [16, 37, 1 << 16] {
                let text = WrappedText(ArraySlice(bytes), width: width, segment: segment, breaksAtSpaces: breaksAtSpaces)
                let chain = text.starts(from: text.start, count: .max)
                #expect(text.lastLineStart == chain.last, "width \(width) segment \(segment)")
                for (index, start) in chain.enumerated() {
                    #expect(text.starts(before: start, count: 3) == Array(chain[max(0, index - 3)..<index]))
                }
                for offset in stride(from: 0, through: bytes.count, by: 7) {
                    #expect(text.lineStart(atOrBefore: offset) == chain.last { $0 <= offset })
                }
                // No line is wider than the width unless it is one cluster.
                var position: Int? = text.start
                while let here = position {
                    let (glyphs, next) = text.line(at: here)
                    let used = glyphs.reduce(0) { $0 + $1.width }
                    #expect(used <= width || glyphs.count <= 2)
                    position = next
                }
            }
        }
    }

    @Test("lines are the text between line breaks, wrapped greedily by display width")
    func greedy() {
        _ = utf8Locale
        let text = WrappedText(ArraySlice(Array("abcdef\r\n北京北京x\n\n→é".utf8)), width: 4)
        var lines: [String] = []
        var position: Int? = text.start
        while let here = position {
            let (glyphs, next) = text.line(at: here)
            lines.append(glyphs.map(\.text).joined())
            position = next
        }
        #expect(lines == ["abcd", "ef", "北京", "北京", "x", "", "→é"])
        #expect(Panes.logicalLines(ArraySlice(Array("a\r\nb\rc\nd".utf8))) == 4)
    }
}

@Suite("Huge cells in the panes", .timeLimit(.minutes(30)))
struct HugeCellTests {
    /// A file whose second column holds one cell of `megabytes` MB, in lines of 100 bytes
    /// or in one line.
    static func hugeCSV(megabytes: Int, lineBreaks: Bool) -> String {
        let piece = lineBreaks ? String(repeating: "0123456789", count: 10) + "\n" : String(repeating: "0123456789", count: 10)
        return "id,text,after\n1,\"" + String(repeating: piece, count: megabytes * 10_000) + "end\",x\n2,short,y\n"
    }

    @Test("Enter and v on a multi-megabyte cell open at once, and every key costs what the screen shows",
          arguments: [false, true])
    func opensAtOnce(lineBreaks: Bool) {
        let subject = viewer(Self.hugeCSV(megabytes: 8, lineBreaks: lineBreaks), width: 80, height: 24, commands: [.moveRight])
        _ = subject.frame()
        for open in [Key.enter, .character("v")] {
            subject.handle(key: open)
            var lines = subject.frame().lines
            #expect(lines[2].contains("0123456789"))
            // The inspector reads the cell from the input a 64 KiB window at a time: opening
            // and each key read the windows near what is shown, never the 8 MB (128 windows)
            // that wrapping from the top would. (Before: ~10 s a key in a debug build.)
            var windows = inspectorWindows(subject)
            if open == .enter { #expect((1...2).contains(windows), "opening read \(windows) windows") }
            for key in [Key.character("G"), .up, .pageUp, .pageUp, .down, .pageDown, .character("g"), .pageDown] {
                subject.handle(key: key)
                lines = subject.frame().lines
                let read = inspectorWindows(subject) - windows
                windows += read
                #expect(read <= 3, "\(key) read \(read) windows")
                if key == .character("G") {
                    // The row keeps a cell's first MiB: the inspector reads the rest from the
                    // input, the record view marks it cut.
                    #expect(lines.contains { $0.contains(open == .enter ? "end" : "after") }, "\(lines)")
                    if open == .character("v") { #expect(lines.contains { $0.contains("…") }) }
                }
            }
            if open == .enter, case .inspector(let inspector) = subject.mode {
                let size = lineBreaks ? "8,080,003" : "8,000,003"
                #expect(inspector.title.contains("\(size) bytes, read from the input"), "\(inspector.title)")
                #expect(inspector.text.bytes.isFromInput)
            }
            #expect(!lines.joined().contains("end"))
            subject.handle(key: .escape)
        }
    }

    /// Windows the inspector's cell has read from the input (0 in another mode).
    func inspectorWindows(_ subject: Viewer) -> Int {
        guard case .inspector(let inspector) = subject.mode else { return 0 }
        return inspector.text.bytes.windowsRead
    }

    @Test("a pane over a 50 MB cell lays out only what it shows, with or without line breaks",
          arguments: [false, true])
    func anySize(lineBreaks: Bool) {
        _ = utf8Locale
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 50_000_000)
        if lineBreaks { for index in stride(from: 99, to: bytes.count, by: 100) { bytes[index] = 0x0A } }
        bytes += Array("北京end".utf8)
        let row = Row(bytes: bytes, ends: [bytes.count])
        // The same cell as a row's slice and as a quoted field read from the input by
        // window, where the windows read count the bytes laid out (763 in all).
        let quoted = [UInt8(ascii: "\"")] + bytes + Array("\"\n".utf8)
        let fromInput = TextBytes(InputCell(source: MemorySource(quoted), dialect: Dialect(), origin: RecordOrigin(offset: 0),
                                            column: 0, length: bytes.count))
        for text in [TextBytes(row.field(0)), fromInput] {
            let pager = PagedText(sections: [WrappedText(text, width: 76)])
            var top = PagedText.Position(section: 0, offset: 0)
            var last = ""
            for command in [PagerCommand.pageDown, .bottom, .lineUp, .pageUp, .pageUp, .lineDown, .pageDown, .bottom] {
                top = pager.scrolled(top, command, page: 40)
            }
            var position: PagedText.Position? = top
            while let here = position {
                let (glyphs, next) = pager.line(at: here)
                last = glyphs.map(\.text).joined()
                position = next
            }
            #expect(last.hasSuffix("北京end"))
            #expect(text.windowsRead <= 12, "read \(text.windowsRead) windows of 64 KiB")
        }
        #expect(fromInput.windowsRead > 0)
    }

    @Test("the inspector says where it is in a huge cell by bytes, in a small one by lines")
    func position() {
        let subject = viewer(Self.hugeCSV(megabytes: 1, lineBreaks: false), width: 60, height: 10, commands: [.moveRight])
        subject.handle(key: .enter)
        guard case .inspector(let inspector) = subject.mode else { Issue.record("no inspector"); return }
        #expect(inspector.title == "row 1 · text · 1,000,003 bytes, 1 line")
        var lines = subject.frame().lines
        #expect(lines[8].contains("bytes 1–312 of 1,000,003 (0%)"), "\(lines[8])")
        subject.handle(key: .character("G"))
        lines = subject.frame().lines
        #expect(lines[8].contains("of 1,000,003 (100%)"), "\(lines[8])")
        #expect(lines[7].contains("end"))
    }
}

@Suite("Record view layout", .timeLimit(.minutes(30)))
struct RecordLayoutTests {
    @Test("a long column name is cut, and values wrap for the name column drawn: no character is lost",
          arguments: [40, 100, 160])
    func longName(width: Int) {
        let name = String(repeating: "long_name_", count: 7) + "1234567"   // 77 characters
        let value = (0..<40).map { String(format: "%03d:", $0) }.joined()   // 160, every part distinct
        let subject = viewer("id,\(name)\n1,\(value)\n", width: width, height: 20, commands: [.moveRight])
        subject.handle(key: .character("v"))
        let lines = subject.frame().lines.dropFirst().prefix(18)
        let layout = RecordLayout(widestName: 77, screenWidth: width)
        let shown = lines.filter { $0.contains("│") }.map { line -> String in
            let characters = Array(line)
            #expect(characters[layout.nameWidth + 2] == "│", "\(line)")
            return String(characters[layout.valueX...]).trimmingCharacters(in: .whitespaces)
        }.joined()
        #expect(shown.hasSuffix(value), "\(lines)")
        #expect(lines.contains { $0.hasPrefix(" long_name_") && $0.contains("…") } || width >= 240)
    }
}

extension WrappedTextTests {
    /// The lines of `text` wrapped at spaces to `width`.
    func words(_ text: String, width: Int) -> [String] {
        let wrapped = WrappedText(ArraySlice(Array(text.utf8)), width: width, breaksAtSpaces: true)
        var lines: [String] = []
        var position: Int? = wrapped.start
        while let here = position {
            let (glyphs, next) = wrapped.line(at: here)
            lines.append(glyphs.map(\.text).joined())
            position = next
        }
        return lines
    }

    @Test("at spaces: a word moves whole to the next line; one longer than the line is cut; a space at the edge ends the line")
    func atSpaces() {
        _ = utf8Locale
        #expect(words("3 w014 w015 x", width: 5) == ["3 ", "w014 ", "w015 ", "x"])
        #expect(words("3 w014", width: 5) == ["3 ", "w014"])
        #expect(words("abcdefghij kl", width: 4) == ["abcd", "efgh", "ij ", "kl"])
        #expect(words("ab cd", width: 2) == ["ab", "cd"], "the space at the edge is the break")
        #expect(words("ab  cd", width: 3) == ["ab ", "cd"])
        #expect(words("北京 北京", width: 4) == ["北京", "北京"])
        #expect(words("é é é", width: 3) == ["é é", "é"])
        #expect(words("ab \nc", width: 2) == ["ab", "c"])
        #expect(words("ab ", width: 2) == ["ab"])
    }
}
