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
    /// exact, `~shape` in ASCII), or where that does not fit, a small picture that says the same.
    static func bandLabel(width: Int, isExact: Bool, glyphs: PictureGlyphs) -> String {
        let word = (isExact ? "" : glyphs.approximately) + "shape"
        if word.count <= width { return word }
        let icon = glyphs == .blocks ? "▁▃▅█" : ".:=#"
        return String(icon.suffix(max(0, width)))
    }

    /// Draws one region's part of the band line: each visible column's picture, clipped as
    /// its cells are, the row-number column's label in the corner. Reads each column's
    /// fine bins (or a laid-out copy), never rows; a line that would show what the region's
    /// last one showed is copied from it.
    func drawBand(_ frame: inout Frame, band: Band, rect: Rect, y: Int, columns: ColumnSet, slices: [ColumnSlice],
                  firstColumn: Int, shift: Int) {
        let metrics = columns == .left ? leftMetrics : mainMetrics
        let isExact = band.session.isExact
        let onBand = band.isCursorOnBand ? cursorColumn : Int.min
        func slot(_ index: Int) -> BandCache.Slot {
            let slice = slices[index], column = firstColumn + slice.column
            return BandCache.Slot(column: column, fileColumn: column < 0 ? -1 : table.fileColumn(column),
                                  width: metrics.widths[slice.column], slice: slice, isCursor: column == onBand,
                                  isBorder: columns == .left && slice.column == metrics.count - 1)
        }
        let region = columns == .left ? 0 : 1, x = shift + rect.minX
        let cache = band.session.cache
        let line = cache.line(region: region, x: x, y: y, isExact: isExact, glyphs: band.glyphs, count: slices.count, slot: slot)
            ?? makeBandLine(band: band, region: region, x: x, y: y, isExact: isExact, slots: (0..<slices.count).map(slot))
        for (slot, cells) in zip(line.slots, line.cells) {
            frame.put(cells[...], x: x + slot.slice.screenX, y: y)
        }
    }

    /// Lays out a region's band line from its slots (the visible part of each column) and
    /// keeps it for the frames after.
    private func makeBandLine(band: Band, region: Int, x: Int, y: Int, isExact: Bool, slots: [BandCache.Slot]) -> BandCache.Line {
        let style: Style = isExact ? .band : .bandPending
        let lines = slots.map { slot -> [FrameCell] in
            let width = slot.width
            var cells: [FrameCell]
            if slot.column < 0 {
                let label = Self.bandLabel(width: width, isExact: isExact, glyphs: band.glyphs)
                cells = CellText.layout(ArraySlice(label.utf8), width: width, alignRight: true, style: .header)
            } else {
                let shape: [String]
                if let picture = band.session.picture(ofFileColumn: slot.fileColumn) {
                    shape = band.session.cache.cells(column: slot.fileColumn, width: width, glyphs: band.glyphs) {
                        picture.sparkline(width: width, glyphs: band.glyphs)
                    }
                } else {
                    shape = Array(repeating: " ", count: width)
                }
                cells = shape.map { FrameCell($0, slot.isCursor ? .cursor : style) }
            }
            cells.append(slot.isBorder ? FrameCell("│", .border) : FrameCell(" ", .plain))
            let end = slot.slice.clipLeft + slot.slice.width
            return Array(cells[min(slot.slice.clipLeft, cells.count)..<min(end, cells.count)])
        }
        let line = BandCache.Line(region: region, x: x, y: y, isExact: isExact, isASCII: band.glyphs == .ascii, slots: slots,
                                  cells: lines)
        band.session.cache.keep(line)
        return line
    }
}
