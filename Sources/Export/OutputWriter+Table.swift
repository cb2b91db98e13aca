import CellStore
import Display

// MARK: Aligned table

extension OutputWriter {
    /// The widest a column is padded to.
    private var alignmentLimit: Int { max(maximumWidth ?? 0, OutputWriter.tableAlignmentLimit) }

    /// Measures the rows held (and `piece`, the first piece of a record in pieces, whose
    /// last cell goes on past a mebibyte: as wide as a column is padded), then writes them.
    func flushTableSample(measuring piece: Row? = nil) {
        let limit = maximumWidth ?? alignmentLimit
        var widths: [Int] = []
        for row in tableSample + (piece.map { [$0] } ?? []) {
            if row.count > widths.count { widths.append(contentsOf: repeatElement(0, count: row.count - widths.count)) }
            for index in 0..<row.count {
                let goesOn = row.continuesInNext && index == row.count - 1
                widths[index] = max(widths[index], goesOn ? limit : CellText.width(row.field(index), limit: limit))
            }
        }
        tableWidths = widths.map { min(max(1, $0), limit) }
        // Rows are laid out in bulk from here on (C, cell by cell; Swift where a cell needs it).
        tableLines = TableLines(widths: tableWidths ?? [], limit: maximumWidth ?? OutputWriter.tableAlignmentLimit,
                                maximumWidth: maximumWidth)
        for (index, row) in tableSample.enumerated() { writeTableRow(row, index: index) }
        tableSample = []
        tableSampleHeld = 0
    }

    func writeTableRow(_ row: Row, index: Int) {
        guard let widths = tableWidths else { return }
        let isHeader = index < headerRows
        let limit = maximumWidth
        let lines = tableLines
        withBuffer { buffer in
            if lines?.appendRow(cells: row.bytes, ends: row.ends, isHeader: isHeader, to: &buffer) != true {
                OutputWriter.appendTableRow(row, widths: widths, isHeader: isHeader, maximumWidth: limit, to: &buffer)
            }
            if index == headerRows - 1 { OutputWriter.appendRule(widths: widths, to: &buffer) }
        }
    }

    /// The line under the header rows.
    static func appendRule(widths: [Int], to buffer: inout [UInt8]) {
        let total = widths.reduce(0, +) + max(0, widths.count - 1) * 2
        buffer.append(contentsOf: Array(String(repeating: "─", count: max(1, total)).utf8))
        buffer.append(0x0A)
    }

    static func appendTableRow(_ row: Row, widths: [Int], isHeader: Bool, maximumWidth: Int? = nil, to buffer: inout [UInt8]) {
        let start = buffer.count
        // Where the last cell with content ends: what follows is padding, not data.
        var contentEnd = start
        for column in 0..<max(row.count, 1) {
            if column > 0 { buffer.append(contentsOf: [0x20, 0x20]) }
            let field = row.field(column)
            let width = OutputWriter.width(ofColumn: column, widths: widths, field: field, maximumWidth: maximumWidth)
            let alignRight = !isHeader && CellText.isNumber(field)
            let padding = appendTableCell(field, width: width, alignRight: alignRight, maximumWidth: maximumWidth, to: &buffer)
            if !field.isEmpty { contentEnd = buffer.count - padding }
        }
        buffer.removeSubrange(contentEnd...)
        buffer.append(0x0A)
    }

    /// The width column `column` is padded to: the sampled one, or for a column no
    /// sampled row reached, its own cell's.
    static func width(ofColumn column: Int, widths: [Int], field: ArraySlice<UInt8>, maximumWidth: Int?) -> Int {
        if column < widths.count { return widths[column] }
        let limit = maximumWidth ?? tableAlignmentLimit
        return max(1, min(limit, CellText.width(field, limit: limit)))
    }

    /// Appends one cell of a table padded to `width`: whole, unless it is wider than
    /// `maximumWidth` (then cut to it, ending in `…`). Returns the padding appended after it.
    @discardableResult
    static func appendTableCell(_ field: ArraySlice<UInt8>, width: Int, alignRight: Bool, maximumWidth: Int?,
                                to buffer: inout [UInt8]) -> Int {
        let isPlain = field.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        if let maximumWidth, (isPlain ? field.count : CellText.width(field, limit: maximumWidth + 1)) > maximumWidth {
            for cell in CellText.layout(field, width: maximumWidth, alignRight: false, style: .plain) {
                buffer.append(contentsOf: cell.text.utf8)
            }
            return 0
        }
        if isPlain {
            // Printable ASCII: copied as it is, the common case.
            let padding = max(0, width - field.count)
            if alignRight { buffer.append(contentsOf: repeatElement(0x20, count: padding)) }
            buffer.append(contentsOf: field)
            if alignRight { return 0 }
            buffer.append(contentsOf: repeatElement(0x20, count: padding))
            return padding
        }
        var shown: [UInt8] = []
        let padding = max(0, width - CellText.appendShown(field, to: &shown))
        if alignRight { buffer.append(contentsOf: repeatElement(0x20, count: padding)) }
        buffer.append(contentsOf: shown)
        if alignRight { return 0 }
        buffer.append(contentsOf: repeatElement(0x20, count: padding))
        return padding
    }

    // MARK: A table's record in pieces

    /// Where a record that arrives in pieces has got to: its long cell is written as its
    /// pieces come, so it is never held whole.
    struct TablePiece {
        /// The column of the cell still open (the last of the piece before).
        var column = 0
        /// Display cells of the open cell written so far.
        var width = 0
        /// The open cell was cut at `maximumWidth`: its later pieces are skipped.
        var isCut = false
        /// With `maximumWidth`: the open cell's text, held until it is known to fit or not.
        var held: [UInt8] = []
        /// A character split between two pieces: its first bytes.
        var carry: [UInt8] = []
    }

    func writeTablePiece(_ row: Row, index: Int) {
        guard let widths = tableWidths else { return }
        let isHeader = index < headerRows
        let limit = maximumWidth
        var piece = tablePiece
        // A long cell's text is shown in bulk (in Swift, by cluster, a mebibyte took seconds).
        let lines = tableLines
        withBuffer { buffer in
            OutputWriter.appendTablePiece(row, widths: widths, isHeader: isHeader, maximumWidth: limit, lines: lines, state: &piece,
                                          to: &buffer)
            if !row.continuesInNext && index == headerRows - 1 { OutputWriter.appendRule(widths: widths, to: &buffer) }
        }
        tablePiece = piece
    }

    static func appendTablePiece(_ row: Row, widths: [Int], isHeader: Bool, maximumWidth: Int?, lines: TableLines? = nil,
                                 state: inout TablePiece, to buffer: inout [UInt8]) {
        let first = row.continuesPrevious ? state.column : 0
        var contentEnd = buffer.count
        for index in 0..<row.count {
            let column = first + index
            let continues = index == 0 && row.continuesPrevious
            let goesOn = index == row.count - 1 && row.continuesInNext
            if !continues && column > 0 { buffer.append(contentsOf: [0x20, 0x20]) }
            let field = row.field(index)
            let width = OutputWriter.width(ofColumn: column, widths: widths, field: field, maximumWidth: maximumWidth)
            guard continues || goesOn else {
                let alignRight = !isHeader && CellText.isNumber(field)
                let padding = appendTableCell(field, width: width, alignRight: alignRight, maximumWidth: maximumWidth, to: &buffer)
                if !field.isEmpty { contentEnd = buffer.count - padding }
                continue
            }
            if !continues { state = TablePiece(column: column) }
            // The open cell: its text as it comes, a character split between pieces joined.
            var bytes = state.carry + field
            state.carry = []
            if goesOn {
                let tail = incompleteTail(bytes) + lastCharacterLength(bytes[..<(bytes.count - incompleteTail(bytes))])
                state.carry = Array(bytes[(bytes.count - tail)...])
                bytes.removeLast(tail)
            }
            if !state.isCut {
                if let maximumWidth {
                    state.held += bytes
                    if CellText.width(state.held[...], limit: maximumWidth + 1) > maximumWidth {
                        for cell in CellText.layout(state.held[...], width: maximumWidth, alignRight: false, style: .plain) {
                            buffer.append(contentsOf: cell.text.utf8)
                        }
                        state.isCut = true
                        state.width = maximumWidth
                        state.held = []
                    } else if !goesOn {
                        state.width = CellText.appendShown(state.held[...], to: &buffer)
                        state.held = []
                    }
                } else if let shown = lines?.appendShown(bytes[...], to: &buffer) {
                    state.width += shown
                } else {
                    state.width += CellText.appendShown(bytes[...], to: &buffer)
                }
            }
            contentEnd = buffer.count
            if !goesOn {
                buffer.append(contentsOf: repeatElement(0x20, count: max(0, width - state.width)))
                state = TablePiece()
            }
        }
        state.column = first + max(0, row.count - 1)
        if !row.continuesInNext {
            buffer.removeSubrange(contentEnd...)
            buffer.append(0x0A)
        }
    }

    /// The length of the last character (grapheme cluster) of `bytes`, which end on a whole
    /// UTF-8 sequence: the next piece may start with marks that belong to it, so it is
    /// carried over and shown with them, as when the cell is written whole. Zero when the
    /// end is not valid UTF-8 (nothing is carried but the incomplete tail).
    static func lastCharacterLength(_ bytes: ArraySlice<UInt8>) -> Int {
        let text = String(decoding: bytes.suffix(256), as: UTF8.self)
        guard let last = text.last, !last.unicodeScalars.contains("\u{FFFD}") else { return 0 }
        return min(last.utf8.count, bytes.count)
    }

    /// The bytes at the end of `bytes` that start a UTF-8 character without finishing it.
    static func incompleteTail(_ bytes: [UInt8]) -> Int {
        var back = 0
        while back < min(3, bytes.count) {
            let byte = bytes[bytes.count - 1 - back]
            if byte & 0xC0 != 0x80 {
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return length > back + 1 ? back + 1 : 0
            }
            back += 1
        }
        return 0
    }
}
