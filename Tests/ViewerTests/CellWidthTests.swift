import CellStore
import Testing
@testable import Viewer

/// A cell's width without its glyphs (column sizing measures a thousand rows before the
/// first frame) is the width its glyphs are drawn in, and ASCII's quick glyphs are the
/// long way's.
@Suite("A cell's width", .timeLimit(.minutes(30)))
struct CellWidthTests {
    static let pieces: [[UInt8]] = [
        "a", "7", " ", "é", "e\u{301}", "中", "北京", "œ", "👩‍👩‍👧", "🇫🇷", "\u{1F44D}\u{1F3FD}", "\u{200B}", "\u{200D}", "x\u{200D}y",
        "\u{FE0F}", "\u{1FAE8}", "\u{0378}", "\u{1100}\u{1161}\u{11A8}", "\u{093E}", "क\u{093E}", "\t", "\n", "\u{1B}", "\u{85}",
        "\u{202E}", "\u{FFFD}", "\u{00A0}", "\u{00AD}", "Ａ", "id", "name,", "\"q\"", "~",
    ].map { Array($0.utf8) } + [[0xFF], [0xC3], [0xE4, 0xB8], [0xF0, 0x9F, 0x98]]

    @Test("as the glyphs' widths add up, over random cells of ASCII, letters, marks, joiners, controls and broken bytes")
    func matchesGlyphs() {
        _ = utf8Locale
        var generator = SeededGenerator(seed: 11)
        var quick = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(generator.next() % 12) { bytes += Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))] }
            let glyphs = CellText.glyphs(bytes[...])
            #expect(glyphs == CellText.glyphs(String(decoding: bytes, as: UTF8.self)), "\(bytes)")
            let drawn = glyphs.reduce(0) { $0 + $1.width }
            #expect(CellText.width(bytes[...]) == drawn, "\(bytes)")
            if let width = CellText.scalarWidth(bytes[...]) {
                quick += 1
                #expect(width == drawn, "\(bytes)")
            }
        }
        // Most cells of letters take the quick way.
        #expect(quick > 2_000)
    }

    @Test("letters of any script, wide ones and emoji on their own take the quick way", arguments: ["Zürich", "北京 point", "œuvre, etc.", "🙂 ok"])
    func quickWay(text: String) {
        _ = utf8Locale
        #expect(CellText.scalarWidth(ArraySlice(text.utf8)) == DisplayWidth.of(text))
    }
}
