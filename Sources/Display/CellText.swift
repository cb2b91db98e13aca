import CellStore

/// A cell's content as it may reach a terminal: grapheme clusters with widths, every
/// control character replaced by a visible symbol.
public enum CellText {
    /// One cluster of display text.
    /// A laid-out screen cell's worth of text (`Display.Glyph`).
    public typealias Glyph = Display.Glyph

    /// The visible symbol for a scalar that must not reach the terminal as it is, if any.
    public static func symbol(for scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x0A: return "↵"
        case 0x0D: return "␍"
        case 0x09: return "→"
        case 0x00...0x1F: return String(Unicode.Scalar(0x2400 + scalar.value)!)
        case 0x7F: return "␡"
        case 0x80...0x9F: return "¿"
        case 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: return "¶"
        case 0xFFFD: return "\u{FFFD}"
        default: return nil
        }
    }

    /// `text` as the screen draws it, as one string: controls as their symbols, what would
    /// draw nothing as placeholders. Its display width is the width drawn.
    public static func shown(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        return glyphs(text).map(\.text).joined()
    }

    /// Decodes `bytes` (invalid UTF-8 as U+FFFD) into glyphs.
    public static func glyphs(_ bytes: ArraySlice<UInt8>) -> [Glyph] {
        // Printable ASCII is a glyph a byte: no cluster to find (the first frame lays out
        // hundreds of cells, each a string per character the long way).
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return bytes.map { Glyph(text: String(Unicode.Scalar($0)), width: 1, isSymbol: false) }
        }
        return glyphs(String(decoding: bytes, as: UTF8.self))
    }

    /// Splits `string` into glyphs, replacing controls with symbols.
    public static func glyphs(_ string: String) -> [Glyph] {
        var result: [Glyph] = []
        result.reserveCapacity(string.utf8.count)
        for character in string {
            if character.isASCII, let value = character.asciiValue, value >= 0x20, value < 0x7F {
                result.append(Glyph(text: String(character), width: 1, isSymbol: false))
                continue
            }
            if character.unicodeScalars.contains(where: { symbol(for: $0) != nil })
                || (character.unicodeScalars.contains("\u{200D}") && !isEmojiSequence(character)) {
                // A cluster holding a control, or a joiner outside an emoji sequence (which
                // a terminal may join with the next cell's character): each scalar on its own.
                appendScalars(of: character, to: &result)
                continue
            }
            var width = 0
            var drawsWhole = true
            for scalar in character.unicodeScalars {
                let scalarWidth = DisplayWidth.of(scalar)
                if scalarWidth < 0 { drawsWhole = false }
                width += max(0, scalarWidth)
            }
            if drawsWhole && width > 0 {
                result.append(Glyph(text: String(character), width: width, isSymbol: false))
            } else {
                // Something in it would draw nothing (or what the terminal pleases): each
                // scalar on its own, and those that draw nothing as placeholders.
                appendScalars(of: character, to: &result)
            }
        }
        return result
    }

    /// Appends the cell as text for a file or a pipe (an aligned table), exactly as the
    /// screen shows it: control characters as their symbols (`↵`, `→`, `␛`…), characters
    /// that would draw nothing as placeholders (`<U+200B>`), everything else as it is, so no
    /// text is lost or looks like other text. Returns its display width.
    /// - Complexity: one pass over the cell, decoded once.
    @discardableResult
    public static func appendShown(_ bytes: ArraySlice<UInt8>, to buffer: inout [UInt8]) -> Int {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            buffer.append(contentsOf: bytes)
            return bytes.count
        }
        var width = 0
        for glyph in glyphs(bytes) {
            buffer.append(contentsOf: glyph.text.utf8)
            width += glyph.width
        }
        return width
    }

    /// Shows a cluster scalar by scalar: controls as their symbols, what draws as itself
    /// (a zero-width mark stays on the scalar before it), and what would draw nothing as a
    /// placeholder: a combining mark with no letter before it on a dotted circle (`◌́`),
    /// anything else as its code point (`<U+200B>`), so no character is lost from view.
    private static func appendScalars(of character: Character, to result: inout [Glyph]) {
        var hasBase = false
        for scalar in character.unicodeScalars {
            if let shown = symbol(for: scalar) {
                result.append(Glyph(text: shown, width: 1, isSymbol: true))
                hasBase = false
                continue
            }
            let width = DisplayWidth.of(scalar)
            if width > 0 {
                result.append(Glyph(text: String(Character(scalar)), width: width, isSymbol: false))
                hasBase = true
            } else if width == 0 && hasBase && scalar.value != 0x200D {
                result[result.count - 1].text.unicodeScalars.append(scalar)
            } else if width == 0 && isCombiningMark(scalar) {
                result.append(Glyph(text: "\u{25CC}" + String(Character(scalar)), width: 1, isSymbol: true))
                hasBase = true
            } else {
                for letter in placeholder(for: scalar) { result.append(Glyph(text: String(letter), width: 1, isSymbol: true)) }
                hasBase = false
            }
        }
    }

    /// True when every zero-width joiner in `character` joins two emoji (👩🏽‍💻), as a
    /// terminal draws them; a joiner anywhere else is shown as its code point.
    static func isEmojiSequence(_ character: Character) -> Bool {
        let scalars = Array(character.unicodeScalars)
        func isPictographic(_ scalar: Unicode.Scalar) -> Bool { scalar.value > 0x7F && scalar.properties.isEmoji }
        for (index, scalar) in scalars.enumerated() where scalar.value == 0x200D {
            var before = index - 1
            while before >= 0 && (scalars[before].properties.isEmojiModifier || scalars[before].value == 0xFE0F) { before -= 1 }
            guard before >= 0, isPictographic(scalars[before]), index + 1 < scalars.count, isPictographic(scalars[index + 1]) else {
                return false
            }
        }
        return true
    }

    /// `<U+XXXX>`: a code point that draws nothing, written out.
    static func placeholder(for scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
    }

    /// True for a mark drawn on the letter before it (variation selectors are marks too,
    /// but draw nothing of their own).
    static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        if (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value) { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// The display width of a cell's text, counted no further than `limit` (a huge cell
    /// is not decoded whole just to learn that it is wider than any column).
    public static func width(_ bytes: ArraySlice<UInt8>, limit: Int = 1 << 12) -> Int {
        // Pure printable ASCII is one cell per byte: the common case, done without decoding.
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return min(bytes.count, limit) }
        let (head, isCut) = prefix(bytes, cells: limit)
        let width = scalarWidth(head) ?? glyphs(head).reduce(0) { $0 + $1.width }
        return isCut ? limit : min(width, limit)
    }

    /// The width of `bytes` when every code point in it is valid, no control and at least
    /// one cell wide: then no cluster is drawn in pieces (a joiner, a mark or a selector is
    /// zero wide), and the width is the sum of theirs, as `glyphs` would find it without
    /// making a string per character (column sizing measures a thousand rows before the
    /// first frame). Nil otherwise.
    package static func scalarWidth(_ bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        var total = 0
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte < 0x80 {
                // Most letters of a cell that is not all ASCII are ASCII still.
                guard byte >= 0x20 && byte < 0x7F else { return nil }
                total += 1
                index += 1
                continue
            }
            var iterator = bytes[index...].makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
            let width = DisplayWidth.of(scalar)
            guard width > 0, symbol(for: scalar) == nil else { return nil }
            total += width
            index += UTF8.width(scalar)
        }
        return total
    }

    /// The start of `bytes` that can fill `cells` cells, cut on a UTF-8 boundary, and
    /// whether anything was cut off. Drawing a column never decodes more than this.
    static func prefix(_ bytes: ArraySlice<UInt8>, cells: Int) -> (ArraySlice<UInt8>, Bool) {
        // A cell is at most a few bytes, plus room for combining marks.
        let limit = max(64, cells * 16)
        guard bytes.count > limit else { return (bytes, false) }
        var end = bytes.startIndex + limit
        // Step back over continuation bytes to the start of a character.
        while end > bytes.startIndex && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return (bytes[bytes.startIndex..<end], true)
    }

    /// True when the text reads as a number, so it is right-aligned: `CellValue`'s reading,
    /// the one the sort and the summary share (a currency or percent sign included).
    public static func isNumber(_ bytes: ArraySlice<UInt8>) -> Bool { CellValue.isNumber(bytes) }

    /// Lays out a cell in exactly `width` cells: clipped by display width (a `…` marks the
    /// cut), padded, and right-aligned when `alignRight`. A wide character that would be
    /// split is replaced by padding.
    public static func layout(_ bytes: ArraySlice<UInt8>, width: Int, alignRight: Bool, style: Style) -> [FrameCell] {
        guard width > 0 else { return [] }
        let (head, isCut) = prefix(bytes, cells: width + 1)
        let glyphs = glyphs(head)
        // A cell cut for drawing is wider than the column by construction.
        let total = isCut ? width + 1 : glyphs.reduce(0) { $0 + $1.width }
        var cells: [FrameCell] = []
        cells.reserveCapacity(width)
        if total <= width {
            if alignRight { cells.append(contentsOf: repeatElement(FrameCell(" ", style), count: width - total)) }
            for glyph in glyphs { append(glyph, to: &cells, style: style) }
        } else {
            let room = width - 1
            var used = 0
            for glyph in glyphs {
                if used + glyph.width > room { break }
                append(glyph, to: &cells, style: style)
                used += glyph.width
            }
            cells.append(contentsOf: repeatElement(FrameCell(" ", style), count: room - used))
            cells.append(FrameCell("…", style == .plain ? .symbol : style))
        }
        if cells.count < width { cells.append(contentsOf: repeatElement(FrameCell(" ", style), count: width - cells.count)) }
        return cells
    }

    private static func append(_ glyph: Glyph, to cells: inout [FrameCell], style: Style) {
        let shown: Style = glyph.isSymbol && (style == .plain) ? .symbol : style
        cells.append(FrameCell(glyph.text, shown))
        for _ in 1..<max(1, glyph.width) { cells.append(FrameCell("", shown)) }
    }
}
