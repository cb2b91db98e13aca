import CellStore
import FreezeLayout
import Table

extension Panes {
    /// The pane over the grid, if one is open (drawn over the composed grid).
    func draw(into frame: inout Frame, table: TableView, screen: Size) {
        switch mode {
        case .grid:
            return
        case .inspector(let inspector):
            drawInspector(inspector, into: &frame, table: table, screen: screen)
        case .record(let page):
            drawRecord(page, into: &frame, table: table, screen: screen)
        case .help(let scroll):
            frame.fill(Rect(x: 0, y: 0, width: screen.width, height: screen.height - 1))
            let lines = HelpPage.lines(Self.helpText, width: screen.width)
            let scroll = min(scroll, max(0, lines.count - Self.helpHeight(screen)))
            for (line, text) in lines.dropFirst(scroll).prefix(Self.helpHeight(screen)).enumerated() {
                frame.write(text, x: 0, y: line, style: line == 0 && scroll == 0 ? .header : .plain)
            }
            // Where you are in the help, and whether there is more below.
            let y = screen.height - 1
            if y > 0 {
                let last = min(lines.count, scroll + Self.helpHeight(screen))
                let more = last < lines.count ? ", more below (Space)" : ", the end (q closes)"
                frame.fill(Rect(x: 0, y: y, width: screen.width, height: 1), style: .status)
                frame.write(" help \(scroll + 1)–\(last) of \(lines.count)" + more, x: 0, y: y, style: .status,
                            limit: screen.width)
            }
        }
    }

    /// A bordered pane: the title on the top border, the lines in view inside, the
    /// position below. Only the lines on screen are laid out.
    private func drawInspector(_ inspector: Inspector, into frame: inout Frame, table: TableView, screen: Size) {
        let area = Self.inspectorArea(screen).intersection(Rect(x: 0, y: 0, width: screen.width, height: screen.height - 1))
        guard area.width >= 4, area.height >= 3 else { return }
        let inspector = Self.fitted(inspector, screen: screen)
        frame.fill(area)
        let inner = area.width - 2
        frame.write("┌" + String(repeating: "─", count: inner) + "┐", x: area.minX, y: area.minY, style: .border)
        frame.write(" " + inspector.title + " ", x: area.minX + 2, y: area.minY, style: .header, limit: max(0, inner - 2))
        let body = area.height - 2
        let pager = PagedText(sections: [inspector.text])
        var position: PagedText.Position? = inspector.top
        var shown = 0
        for line in 0..<body {
            let y = area.minY + 1 + line
            frame[area.minX, y] = FrameCell("│", .border)
            frame[area.maxX - 1, y] = FrameCell("│", .border)
            guard let here = position else { continue }
            let (glyphs, next) = pager.line(at: here)
            let end = frame.write(glyphs, x: area.minX + 2, y: y, style: .plain, limit: inner - 2)
            if next == nil && inspector.isClipped { Self.markCut(&frame, after: end, y: y, limit: area.maxX - 2) }
            shown += 1
            position = next
        }
        let text = inspector.text
        var place: String
        if text.isSmall {
            let (index, total) = text.lineNumber(of: inspector.top.offset)
            place = shown == 1 ? "line \(Viewer.grouped(index + 1)) of \(Viewer.grouped(total))"
                : "lines \(Viewer.grouped(index + 1))–\(Viewer.grouped(index + shown)) of \(Viewer.grouped(total))"
        } else {
            // Counting a huge cell's lines would mean wrapping all of it: say where in its bytes.
            let first = inspector.top.offset - text.start
            let last = (position?.offset ?? text.end) - text.start
            let percent = text.bytes.isEmpty ? 100 : last * 100 / text.bytes.count
            place = "bytes \(Viewer.grouped(first + 1))–\(Viewer.grouped(last)) of \(Viewer.grouped(text.bytes.count)) (\(percent)%)"
        }
        frame.write("└" + String(repeating: "─", count: inner) + "┘", x: area.minX, y: area.maxY - 1, style: .border)
        frame.write(" \(place)  q closes ", x: area.minX + 2, y: area.maxY - 1, style: .border, limit: max(0, inner - 2))
    }

    /// One record as `name │ value` lines, with its row number in the title; only the
    /// lines on screen are laid out.
    private func drawRecord(_ page: RecordPage, into frame: inout Frame, table: TableView, screen: Size) {
        let height = screen.height - 1
        guard height >= 1 else { return }
        frame.fill(Rect(x: 0, y: 0, width: screen.width, height: height))
        let omitted = page.record.omittedCells > 0 ? "  (" + Viewer.counted(page.record.omittedCells, "more cell") + " not kept)" : ""
        let record = table.record(ofRow: page.row)
        let repeated = table.repeatedKeysNote(record).map { "  (\($0))" } ?? ""
        let title = " record \(Viewer.grouped(table.displayNumber(ofRow: page.row))) of \(Viewer.grouped(table.dataRowCount))\(table.source.isComplete ? "" : "+")"
            + omitted + repeated + "   ←/→ previous/next   v back "
        // Read from JSON, an empty cell without quotes is null: said, as no value of the file.
        let showsNull = table.jsonRecord(record) != nil
        frame.fill(Rect(x: 0, y: 0, width: screen.width, height: 1), style: .header)
        frame.write(title, x: 0, y: 0, style: .header)
        let (layout, pager) = Self.recordPager(page, table: table, screen: screen)
        let columns = Self.recordColumns(page.record, table: table)
        var position: PagedText.Position? = layout.valueWidth == page.valueWidth ? page.top : pager.snapped(page.top)
        for y in 1..<max(1, height) {
            guard let here = position else { break }
            let (glyphs, next) = pager.line(at: here)
            if here.offset == pager.sections[here.section].start {
                let name = Viewer.fitting(table.columnNames[columns[here.section]], width: layout.nameWidth, keepingEnd: false)
                frame.write(name, x: 1, y: y, style: .header, limit: layout.nameWidth)
            }
            frame.write("│", x: layout.nameWidth + 2, y: y, style: .border)
            var end = frame.write(glyphs, x: layout.valueX, y: y, style: .plain, limit: layout.valueWidth)
            if showsNull && page.record.isNull(columns[here.section]) {
                end = frame.write("null", x: layout.valueX, y: y, style: .madeName, limit: layout.valueWidth)
            }
            if next?.section != here.section && page.record.isClipped(columns[here.section]) {
                Self.markCut(&frame, after: end, y: y, limit: screen.width)
            }
            position = next
        }
    }

    /// A `…` after the last line of a cell the parser cut short (on the last cell of the
    /// line when the line is full).
    static func markCut(_ frame: inout Frame, after end: Int, y: Int, limit: Int) {
        frame[min(end, limit - 1), y] = FrameCell("…", .symbol)
    }
}
