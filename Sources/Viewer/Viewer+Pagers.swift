#if canImport(Glibc)
import Glibc
#endif
import CellStore
import FreezeLayout

/// The record view's two columns: one width for the names, used both to wrap the values
/// and to draw them, so a long name can never push a value past the edge.
struct RecordLayout: Equatable {
    /// Cells for the names (a longer name is cut with `…`).
    let nameWidth: Int
    /// Where values start, and how wide they wrap.
    let valueX: Int
    let valueWidth: Int

    /// As wide as the widest name, at most a third of the screen (8 cells on a narrow
    /// one): `␣name␣│␣value`.
    init(widestName: Int, screenWidth: Int) {
        nameWidth = max(1, min(widestName, max(8, screenWidth / 3)))
        valueX = nameWidth + 4
        valueWidth = max(1, screenWidth - valueX)
    }
}

extension Viewer {
    // MARK: The inspector

    /// The inspector's pane: the screen less a margin.
    var inspectorArea: Rect {
        let margin = screenSize.width >= 40 ? 2 : 0
        return Rect(x: margin, y: 1, width: max(4, screenSize.width - 2 * margin), height: max(3, screenSize.height - 2))
    }

    /// Lines of text the inspector shows at once, and how wide.
    var inspectorPage: Int { max(1, inspectorArea.height - 2) }
    var inspectorTextWidth: Int { max(1, inspectorArea.width - 4) }

    /// Opens the cursor's cell. Nothing is wrapped yet: the pane lays out what it shows.
    ///
    /// - Complexity: O(1) in the cell's size, but for counting its line breaks (memchr)
    ///   and, up to 64 KiB, its characters.
    func openInspector(_ row: Row) {
        let cell = row.field(cursorFileColumn)
        let name = columnName(cursorColumn)
        let head = "row \(Self.grouped(table.displayNumber(ofRow: cursorRow))) · \(name.isEmpty ? "column \(cursorColumn + 1)" : name) · "
        if let whole = inputCell(row, column: cursorFileColumn) {
            // Longer than the row keeps: read from the input a window at a time as it pages.
            let text = WrappedText(TextBytes(whole), width: inspectorTextWidth)
            mode = .inspector(Inspector(row: cursorRow, column: cursorColumn, title: head + Self.counted(whole.length, "byte")
                                        + ", read from the input as it scrolls", text: text,
                                        top: PagedText.Position(section: 0, offset: text.start), isClipped: false))
            return
        }
        let text = WrappedText(cell, width: inspectorTextWidth)
        let characters = text.isSmall ? ", " + Self.counted(String(decoding: cell, as: UTF8.self).count, "character") : ""
        let isClipped = row.isClipped(cursorFileColumn)
        // A record whose end is not read yet (the input is still loading) has no length to say.
        let stillReading = isClipped && row.fullLength(ofCell: cursorFileColumn) == nil && !source.isComplete
        let title = head
            + (isClipped ? "only the first " : "") + Self.counted(cell.count, "byte")
            + (stillReading ? " read so far" : isClipped ? " kept" : "")
            + characters + ", " + Self.counted(Self.logicalLines(cell), "line")
        mode = .inspector(Inspector(row: cursorRow, column: cursorColumn, title: title, text: text,
                                    top: PagedText.Position(section: 0, offset: text.start), isClipped: isClipped))
    }

    /// Cell `column` of `row` read whole from the input, when the row keeps only its start
    /// and the input can be read again there (nil otherwise: the kept start is all there is).
    func inputCell(_ row: Row, column: Int) -> InputCell? {
        guard row.isClipped(column), let reader = file?.recordReader() else { return nil }
        return InputCell(row: row, column: column, reader: reader)
    }

    /// The inspector with its text wrapped to the current width (the top line found
    /// again after a resize).
    func fitted(_ inspector: Inspector) -> Inspector {
        guard inspector.text.width != inspectorTextWidth else { return inspector }
        var inspector = inspector
        inspector.text = WrappedText(inspector.text.bytes, width: inspectorTextWidth)
        inspector.top = PagedText(sections: [inspector.text]).snapped(inspector.top)
        return inspector
    }

    func scrollInspector(_ inspector: Inspector, _ command: PagerCommand) {
        var inspector = fitted(inspector)
        inspector.top = PagedText(sections: [inspector.text]).scrolled(inspector.top, command, page: inspectorPage)
        mode = .inspector(inspector)
    }

    /// Logical lines in a cell: its line breaks (CRLF counted once) plus one.
    static func logicalLines(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 1 }
            var lines = 1
            // memchr keeps this fast for a cell of any size, in any build.
            for target in [UInt8(0x0A), UInt8(0x0D)] {
                var position = 0
                while position < buffer.count,
                      let found = memchr(base + position, Int32(target), buffer.count - position) {
                    let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    // An LF right after a CR is the second half of one CRLF.
                    if !(target == 0x0A && index > 0 && buffer[index - 1] == 0x0D) { lines += 1 }
                    position = index + 1
                }
            }
            return lines
        }
    }

    // MARK: The record view

    func openRecordView() {
        guard dataRowCount > 0, let record = table.row(cursorRow) else { return }
        mode = .record(recordPage(cursorRow, record))
    }

    private func recordPage(_ row: Int, _ record: Row) -> RecordPage {
        let widest = recordColumns(record).map { DisplayWidth.of(displayName(ofFileColumn: $0)) }.max() ?? 8
        let layout = RecordLayout(widestName: widest, screenWidth: screenSize.width)
        return RecordPage(row: row, record: record, widestName: widest,
                          top: PagedText.Position(section: 0, offset: record.field(recordColumns(record).first ?? 0).startIndex),
                          valueWidth: layout.valueWidth)
    }

    /// The record view's layout and its values as one paged text, for the current width.
    func recordPager(_ page: RecordPage) -> (RecordLayout, PagedText) {
        let layout = RecordLayout(widestName: page.widestName, screenWidth: screenSize.width)
        // Values wrap at spaces, as prose: `3 w014` never splits as `3 w01` / `4`.
        let sections = recordColumns(page.record).map {
            WrappedText(page.record.field($0), width: layout.valueWidth, breaksAtSpaces: true)
        }
        return (layout, PagedText(sections: sections))
    }

    /// Lines of values the record view shows at once (under its title line).
    var recordPageHeight: Int { max(1, screenSize.height - 2) }

    func scrollRecord(_ page: RecordPage, _ command: PagerCommand) {
        var page = page
        let count = max(1, dataRowCount)
        switch command {
        case .close:
            mode = .grid
            navigation.place(row: page.row)
            navigation.revealCursor()
            return
        case .next, .previous:
            let row = command == .next ? (page.row + 1) % count : (page.row - 1 + count) % count
            if command == .next && row == 0 { message = "back to the first record" }
            if command == .previous && row == count - 1 { message = "round to the last record" }
            guard let record = table.row(row) else { return }
            page = recordPage(row, record)
        default:
            let (layout, pager) = recordPager(page)
            var top = page.top
            if layout.valueWidth != page.valueWidth { top = pager.snapped(top) }
            page.top = pager.scrolled(top, command, page: recordPageHeight)
            page.valueWidth = layout.valueWidth
        }
        mode = .record(page)
    }

    /// The input columns the record view lists, in the view's order: every cell of the
    /// record when no column is hidden or moved.
    func recordColumns(_ record: Row) -> [Int] {
        table.columns.isIdentity ? Array(0..<max(columnCount, record.count)) : (0..<columnCount).map(table.fileColumn)
    }

    /// View column `column`'s name (see `name(ofFileColumn:)`).
    func columnName(_ column: Int) -> String { name(ofFileColumn: table.fileColumn(column)) }

    /// An input column's name: its unique name (`ColumnNames`: a repeated or empty header
    /// cell gets one of its own, as in JSON and summaries), cut to 256 bytes (with `…`), so
    /// that a header cell of megabytes costs no more per frame than a name (empty without
    /// a header row).
    func name(ofFileColumn column: Int) -> String {
        guard options.headerRows > 0 && source.rowCount > 0 else { return "" }
        return table.columnNames[column]
    }

    /// An input column's name as the record view shows it: its unique name, else its number.
    func displayName(ofFileColumn column: Int) -> String { table.columnNames[column] }

    /// "is" for one, "are" for any other count.
    static func isAre(_ count: Int) -> String { count == 1 ? "is" : "are" }

    /// `1 row`, `2 rows`, `1,024 bytes`: a count with its noun, singular for one.
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(grouped(count)) \(noun)\(count == 1 ? "" : "s")"
    }
}
