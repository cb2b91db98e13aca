import FreezeLayout

/// How a screen cell is drawn; the terminal backend maps each to colors and attributes.
public enum Style: UInt8, Sendable, CaseIterable {
    case plain
    case header
    case headerOfCursorColumn
    case rowNumber
    case rowNumberOfCursorRow
    case cursor
    /// A control character, newline or invalid byte shown as a visible symbol.
    case symbol
    /// The line between the frozen columns and the rest.
    case border
    case status
    case statusMessage
    /// The part of the status line that shows which columns are in view.
    case statusIndicator
    /// The scroll position at main's right edge.
    case indicator
    /// Lines before the header (the preamble).
    case preamble
    /// A cell that matches the search.
    case match
    /// A diff's record only the new table has (its cells, number and marker).
    case added
    /// A diff's record only the old table has.
    case removed
    /// A diff's changed record: its number and marker (its changed cells are `changedCell`).
    case changed
    /// A diff's cell whose value changed (`old→new`).
    case changedCell
    /// A header name the file does not hold (`ColumnNames` made it unique: a repeated or
    /// empty header cell), told apart from the file's own text; also the label drawn in an
    /// empty cell (a frequency sheet's `(empty)`).
    case madeName
    /// A made name in the cursor's column (a label in the cursor's cell).
    case madeNameOfCursorColumn
    /// The sign of a marked record in the row-number margin (`m`, `M`).
    case mark
    /// The distribution band's pictures, once exact.
    case band
    /// The band's pictures while their pass runs (dim).
    case bandPending
}

/// One screen cell: a grapheme cluster (or "" for the right half of a wide character)
/// and its style.
public struct FrameCell: Sendable, Equatable {
    public var text: String
    public var style: Style

    public init(_ text: String, _ style: Style = .plain) {
        self.text = text
        self.style = style
    }

    public static let blank = FrameCell(" ")
    /// A cell covered by the character before it (the right part of a wide character).
    public var isContinuation: Bool { text.isEmpty }
}

/// A whole screen as values: what the viewer wants shown, before any terminal sees it.
///
/// Tests read `lines` and `style(at:)`; the ncurses backend copies it to the screen.
public struct Frame: Sendable, Equatable {
    public let size: Size
    public private(set) var cells: [FrameCell]
    /// Where the terminal's own cursor shows (a prompt's insertion point); nil hides it.
    public var cursor: Point?

    public init(size: Size) {
        self.size = size
        cells = Array(repeating: .blank, count: size.width * size.height)
    }

    public subscript(x: Int, y: Int) -> FrameCell {
        get { cells[y * size.width + x] }
        set {
            guard x >= 0, y >= 0, x < size.width, y < size.height else { return }
            cells[y * size.width + x] = newValue
        }
    }

    /// Each line's text, continuation cells left out, trailing spaces kept.
    public var lines: [String] {
        (0..<size.height).map(line)
    }

    /// Line `y` as text.
    public func line(_ y: Int) -> String {
        var text = ""
        for x in 0..<size.width { text += self[x, y].text }
        return text
    }

    /// The style of the cell at (x, y).
    public func style(x: Int, y: Int) -> Style { self[x, y].style }

    /// Writes glyphs already laid out (symbols in their own style), as `write(_:x:y:style:limit:)`.
    @discardableResult
    public mutating func write(_ glyphs: [Glyph], x: Int, y: Int, style: Style, limit: Int? = nil) -> Int {
        guard y >= 0, y < size.height else { return x }
        let end = min(size.width, x + (limit ?? size.width))
        var column = x
        for glyph in glyphs {
            let shown: Style = glyph.isSymbol ? .symbol : style
            if column + glyph.width > end {
                if column < end { self[column, y] = FrameCell(" ", style); column += 1 }
                break
            }
            self[column, y] = FrameCell(glyph.text, shown)
            for extra in 1..<max(1, glyph.width) { self[column + extra, y] = FrameCell("", shown) }
            column += glyph.width
        }
        return column
    }

    /// Copies laid-out cells to line `y` from `x`.
    public mutating func put(_ cells: ArraySlice<FrameCell>, x: Int, y: Int) {
        var column = x
        for cell in cells {
            self[column, y] = cell
            column += 1
        }
    }

    /// Fills a rectangle with blanks of one style.
    public mutating func fill(_ rect: Rect, style: Style = .plain) {
        let area = rect.intersection(Rect(x: 0, y: 0, width: size.width, height: size.height))
        for y in area.minY..<area.maxY {
            for x in area.minX..<area.maxX { self[x, y] = FrameCell(" ", style) }
        }
    }
}

/// A screen cell's worth of text as laid out: a grapheme cluster, its width in columns
/// (0 to 2), and whether it is a visible symbol for a byte that must not reach the
/// terminal as it is (drawn in `Style.symbol`).
public struct Glyph: Sendable, Equatable {
    public var text: String
    public var width: Int
    public var isSymbol: Bool

    public init(text: String, width: Int, isSymbol: Bool) {
        self.text = text
        self.width = width
        self.isSymbol = isSymbol
    }
}
