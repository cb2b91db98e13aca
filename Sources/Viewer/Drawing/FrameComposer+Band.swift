import FreezeLayout
import Insight

extension FrameComposer {
    /// What the band line draws from: the pictures the last refresh took, whether they are
    /// exact (dim until then), the glyphs the terminal can draw, and the cursor on it.
    struct Band {
        var session: BandSession
        var glyphs: PictureGlyphs
        var isCursorOnBand: Bool
    }

    /// The corner's name for the band, above the row numbers: `shape` (`≈shape` until
    /// exact), or where that does not fit, a small picture that says the same.
    static func bandLabel(width: Int, isExact: Bool, glyphs: PictureGlyphs) -> String {
        let word = (isExact ? "" : "≈") + "shape"
        if word.count <= width { return word }
        let icon = glyphs == .blocks ? "▁▃▅█" : ".:=#"
        return String(icon.suffix(max(0, width)))
    }

    /// Draws one region's part of the band line: each visible column's picture, clipped as
    /// its cells are, the row-number column's label in the corner. Reads each column's
    /// fine bins (or a laid-out copy), never rows.
    func drawBand(_ frame: inout Frame, band: Band, rect: Rect, y: Int, columns: ColumnSet, slices: [ColumnSlice],
                  firstColumn: Int, shift: Int) {
        let metrics = columns == .left ? leftMetrics : mainMetrics
        let style: Style = band.session.isExact ? .band : .bandPending
        for slice in slices {
            let column = firstColumn + slice.column
            let width = metrics.widths[slice.column]
            var cells: [FrameCell]
            if column < 0 {
                let label = Self.bandLabel(width: width, isExact: band.session.isExact, glyphs: band.glyphs)
                cells = CellText.layout(ArraySlice(label.utf8), width: width, alignRight: true, style: .header)
            } else {
                let fileColumn = table.fileColumn(column)
                let isCursor = band.isCursorOnBand && column == cursorColumn
                let shape: [String]
                if let picture = band.session.picture(ofFileColumn: fileColumn) {
                    shape = band.session.cache.cells(column: fileColumn, width: width, glyphs: band.glyphs) {
                        picture.sparkline(width: width, glyphs: band.glyphs)
                    }
                } else {
                    shape = Array(repeating: " ", count: width)
                }
                cells = shape.map { FrameCell($0, isCursor ? .cursor : style) }
            }
            let isBorder = columns == .left && slice.column == metrics.count - 1
            cells.append(isBorder ? FrameCell("│", .border) : FrameCell(" ", .plain))
            let end = slice.clipLeft + slice.width
            frame.put(cells[slice.clipLeft..<min(end, cells.count)], x: shift + rect.minX + slice.screenX, y: y)
        }
    }
}
