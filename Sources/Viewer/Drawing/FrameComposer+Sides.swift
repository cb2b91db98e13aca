import FreezeLayout
import Table

extension FrameComposer {
    /// A diff side by side, as the viewer worked it out for this frame: the source's two
    /// sides, and where the right half starts.
    struct Sides {
        var rows: any PairedRows
        var rightX: Int
    }

    /// How the source marks record `record` in column `column` (-1: the row as a whole):
    /// a diff's marks; nothing for any other source.
    func mark(record: Int, column: Int) -> RowMark {
        table.changes?.mark(record: record, column: column) ?? .none
    }

    /// One column of a data row as one side shows it (without its separator): that side's
    /// value in the diff's styles; blank, and plain, where that side has no record (the
    /// old side of an added record, the new side of a removed one).
    func sideCells(_ placement: Placement, dataRow: Int) -> [FrameCell] {
        let record = placement.key.record, column = placement.column, width = placement.textWidth
        let highlight = placement.key.highlight
        let row = placement.side.flatMap { side in sides?.rows.row(record, side: side) }
        if column < 0 {
            // The number on both sides, so a row reads across; the absent side's unmarked.
            let mark = row == nil ? nil : Style(mark(record: record, column: -1))
            let style: Style = highlight.cursor == .rowNumber ? .rowNumberOfCursorRow : mark ?? .rowNumber
            let number = displayNumber(ofDataRow: dataRow).map(String.init) ?? ""
            return CellText.layout(ArraySlice(number.utf8), width: width, alignRight: true, style: style)
        }
        let fileColumn = table.fileColumn(column)
        let mark = row == nil ? nil : Style(mark(record: record, column: fileColumn))
        let style: Style = highlight.cursor == .cell ? .cursor : (highlight.isMatch ? .match : mark ?? .plain)
        let field = row?.field(fileColumn) ?? []
        return CellText.layout(field, width: width, alignRight: CellText.isNumber(field), style: style)
    }

    /// The line between the halves, down the grid.
    func drawDivider(_ frame: inout Frame, at x: Int) {
        guard x >= 0 && x < screenSize.width else { return }
        for y in 0..<max(0, screenSize.height - 1) { frame[x, y] = FrameCell("║", .border) }
    }
}
