// The screen's types (Frame, Style, Key, MouseEvent) live in Display, which the terminal
// backend depends on alone; whoever uses the viewer uses them too.
@_exported import Display
import Table

extension Frame {
    /// Writes `text` from (x, y) in one style, clipped to the frame and to `limit` cells
    /// (a wide character that does not fit whole becomes a blank); returns the x after
    /// the last cell written.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style, limit: Int? = nil) -> Int {
        write(CellText.glyphs(text), x: x, y: y, style: style, limit: limit)
    }
}

extension Style {
    /// The style a source's mark gives a cell, or nil for no mark.
    init?(_ mark: RowMark) {
        switch mark {
        case .none: return nil
        case .added: self = .added
        case .removed: self = .removed
        case .changed: self = .changed
        case .changedCell: self = .changedCell
        }
    }
}
