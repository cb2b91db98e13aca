#if canImport(Glibc)
import Glibc
#endif
import CellStore
import FreezeLayout
import Table

/// The panes over the grid: the cell inspector, the record view and the help screen.
///
/// Each owns its keys (a `PagerCommand`), its scrolling and its drawing; the viewer opens
/// them and hears what a key meant for the grid (the record view closes on a row). They
/// read rows through the table view and lay out only what is on screen.
struct Panes {
    /// The grid, or the pane over it.
    private(set) var mode: Mode = .grid

    /// What a key in a pane means for the viewer.
    enum Outcome: Equatable {
        case none
        /// The record view closed on this row: the cursor goes there.
        case closed(row: Int)
        /// A one-shot message for the status line.
        case said(String)
    }

    // MARK: Opening

    /// Opens the help screen at its top.
    mutating func openHelp() { mode = .help(scroll: 0) }

    /// Opens the inspector on a cell: `row` (a view row) of the view, view column
    /// `column`, input column `fileColumn` called `name`. Nothing is wrapped yet: the pane
    /// lays out what it shows.
    ///
    /// - Complexity: O(1) in the cell's size, but for counting its line breaks (memchr)
    ///   and, up to 64 KiB, its characters.
    mutating func openInspector(_ record: Row, row: Int, column: Int, fileColumn: Int, name: String,
                                table: TableView, screen: Size) {
        let cell = record.field(fileColumn)
        let width = Self.inspectorTextWidth(screen)
        let head = "row \(Viewer.grouped(table.displayNumber(ofRow: row))) · \(name.isEmpty ? "column \(column + 1)" : name) · "
        if let whole = Self.inputCell(record, column: fileColumn, table: table) {
            // Longer than the row keeps: read from the input a window at a time as it pages.
            let text = WrappedText(TextBytes(whole), width: width)
            mode = .inspector(Inspector(row: row, column: column, title: head + Viewer.counted(whole.length, "byte")
                                        + ", read from the input as it scrolls", text: text,
                                        top: PagedText.Position(section: 0, offset: text.start), isClipped: false))
            return
        }
        let text = WrappedText(cell, width: width)
        let characters = text.isSmall ? ", " + Viewer.counted(String(decoding: cell, as: UTF8.self).count, "character") : ""
        let isClipped = record.isClipped(fileColumn)
        // A record whose end is not read yet (the input is still loading) has no length to say.
        let stillReading = isClipped && record.fullLength(ofCell: fileColumn) == nil && !table.source.isComplete
        let title = head
            + (isClipped ? "only the first " : "") + Viewer.counted(cell.count, "byte")
            + (stillReading ? " read so far" : isClipped ? " kept" : "")
            + characters + ", " + Viewer.counted(Self.logicalLines(cell), "line")
        mode = .inspector(Inspector(row: row, column: column, title: title, text: text,
                                    top: PagedText.Position(section: 0, offset: text.start), isClipped: isClipped))
    }

    /// Opens the record view on view row `row`.
    mutating func openRecord(_ record: Row, row: Int, table: TableView, screen: Size) {
        mode = .record(Self.recordPage(row, record, table: table, screen: screen))
    }

    /// Cell `column` of `row` read whole from the input, when the row keeps only its start
    /// and the input can be read again there (nil otherwise: the kept start is all there is).
    static func inputCell(_ row: Row, column: Int, table: TableView) -> InputCell? {
        guard row.isClipped(column), let reader = table.file?.recordReader() else { return nil }
        return InputCell(row: row, column: column, reader: reader)
    }

    // MARK: Keys

    /// Applies a key of the inspector, the record view or the help screen.
    mutating func apply(_ command: PagerCommand, table: TableView, screen: Size) -> Outcome {
        switch mode {
        case .grid:
            return .none
        case .inspector(let inspector):
            if command == .close {
                mode = .grid
            } else {
                var inspector = Self.fitted(inspector, screen: screen)
                inspector.top = PagedText(sections: [inspector.text]).scrolled(inspector.top, command,
                                                                               page: Self.inspectorPage(screen))
                mode = .inspector(inspector)
            }
            return .none
        case .record(let page):
            return scrollRecord(page, command, table: table, screen: screen)
        case .help(let scroll):
            if command == .close {
                mode = .grid
                return .none
            }
            mode = .help(scroll: Self.scrolled(scroll, command, page: Self.helpHeight(screen),
                                               count: HelpPage.lines(Self.helpText, width: screen.width).count))
            return .none
        }
    }

    private static func scrolled(_ scroll: Int, _ command: PagerCommand, page: Int, count: Int) -> Int {
        let limit = max(0, count - page)
        switch command {
        case .lineDown: return min(limit, scroll + 1)
        case .lineUp: return max(0, scroll - 1)
        case .pageDown: return min(limit, scroll + page)
        case .pageUp: return max(0, scroll - page)
        case .top: return 0
        case .bottom: return limit
        default: return scroll
        }
    }

    private mutating func scrollRecord(_ page: RecordPage, _ command: PagerCommand, table: TableView, screen: Size) -> Outcome {
        var page = page
        var outcome = Outcome.none
        let count = max(1, table.dataRowCount)
        switch command {
        case .close:
            mode = .grid
            return .closed(row: page.row)
        case .next, .previous:
            let row = command == .next ? (page.row + 1) % count : (page.row - 1 + count) % count
            if command == .next && row == 0 { outcome = .said("back to the first record") }
            if command == .previous && row == count - 1 { outcome = .said("round to the last record") }
            guard let record = table.row(row) else { return outcome }
            page = Self.recordPage(row, record, table: table, screen: screen)
        default:
            let (layout, pager) = Self.recordPager(page, table: table, screen: screen)
            var top = page.top
            if layout.valueWidth != page.valueWidth { top = pager.snapped(top) }
            page.top = pager.scrolled(top, command, page: Self.recordPageHeight(screen))
            page.valueWidth = layout.valueWidth
        }
        mode = .record(page)
        return outcome
    }

    // MARK: Geometry

    /// The inspector's pane: the screen less a margin.
    static func inspectorArea(_ screen: Size) -> Rect {
        let margin = screen.width >= 40 ? 2 : 0
        return Rect(x: margin, y: 1, width: max(4, screen.width - 2 * margin), height: max(3, screen.height - 2))
    }

    /// Lines of text the inspector shows at once, and how wide.
    static func inspectorPage(_ screen: Size) -> Int { max(1, inspectorArea(screen).height - 2) }
    static func inspectorTextWidth(_ screen: Size) -> Int { max(1, inspectorArea(screen).width - 4) }

    /// Lines of values the record view shows at once (under its title line).
    static func recordPageHeight(_ screen: Size) -> Int { max(1, screen.height - 2) }

    /// Lines of help on screen at once (the last line says where you are).
    static func helpHeight(_ screen: Size) -> Int { max(1, screen.height - 1) }

    /// The inspector with its text wrapped to the current width (the top line found
    /// again after a resize).
    static func fitted(_ inspector: Inspector, screen: Size) -> Inspector {
        let width = inspectorTextWidth(screen)
        guard inspector.text.width != width else { return inspector }
        var inspector = inspector
        inspector.text = WrappedText(inspector.text.bytes, width: width)
        inspector.top = PagedText(sections: [inspector.text]).snapped(inspector.top)
        return inspector
    }

    private static func recordPage(_ row: Int, _ record: Row, table: TableView, screen: Size) -> RecordPage {
        let widest = recordColumns(record, table: table).map { DisplayWidth.of(table.columnNames[$0]) }.max() ?? 8
        let layout = RecordLayout(widestName: widest, screenWidth: screen.width)
        return RecordPage(row: row, record: record, widestName: widest,
                          top: PagedText.Position(section: 0,
                                                  offset: record.field(recordColumns(record, table: table).first ?? 0).startIndex),
                          valueWidth: layout.valueWidth)
    }

    /// The record view's layout and its values as one paged text, for the current width.
    static func recordPager(_ page: RecordPage, table: TableView, screen: Size) -> (RecordLayout, PagedText) {
        let layout = RecordLayout(widestName: page.widestName, screenWidth: screen.width)
        // Values wrap at spaces, as prose: `3 w014` never splits as `3 w01` / `4`.
        let sections = recordColumns(page.record, table: table).map {
            WrappedText(page.record.field($0), width: layout.valueWidth, breaksAtSpaces: true)
        }
        return (layout, PagedText(sections: sections))
    }

    /// The input columns the record view lists, in the view's order: every cell of the
    /// record when no column is hidden or moved.
    static func recordColumns(_ record: Row, table: TableView) -> [Int] {
        table.columns.isIdentity ? Array(0..<max(table.columnCount, record.count)) : (0..<table.columnCount).map(table.fileColumn)
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

    // MARK: Help

    /// The help screen's lines, from the key tables that dispatch keys.
    static var helpText: [String] {
        ["csvfreeze keys     q: Quit this help (q in the grid quits csvfreeze)", ""]
            + KeyMap.helpLines.map { "  " + $0 }
            + ["", "In the cell inspector, the record view and this help:", ""]
            + KeyMap.pagerHelpLines.map { "  " + $0 }
            + ["", "Stopping, and sheets:", ""] + Self.aligned(Self.sheetKeys)
            + ["", "At a prompt:", ""] + Self.aligned(Self.promptKeys)
    }

    static let sheetKeys = [
        ("Esc", "stop a search, filter, sort or save (in a sheet: go back)"),
        ("&!, |!", "keep the rows where nothing matches"),
        ("Enter in a sheet", "filter the table to the value (summary: the column's counts)"),
    ]

    static let promptKeys = [
        ("Enter, Esc", "go, cancel"),
        ("Left, Right, Home, End", "move (also Ctrl-A, Ctrl-E)"),
        ("Backspace, Delete", "erase (also Ctrl-U, Ctrl-W, Ctrl-K)"),
        ("Up, Down", "earlier entries"),
        ("/ and Enter", "repeat the last search"),
        ("a paste", "typed at a prompt; in the grid it does nothing"),
    ]

    /// Key lines laid out as the key tables are, under their column.
    static func aligned(_ entries: [(String, String)]) -> [String] {
        let width = max(KeyMap.labelWidth, entries.map(\.0.count).max() ?? 0)
        return entries.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
    }
}

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
