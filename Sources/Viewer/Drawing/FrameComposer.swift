import CellStore
import FreezeLayout
import Scan
import Table

/// Composes a `Frame` from a snapshot of the viewer's state after a command: the view
/// over the rows, the navigation (cursor, freeze, window), the columns' layout, the last
/// search, the message and the prompt being typed.
///
/// It changes nothing of the viewer; it reads rows through the table view (in one batch
/// per frame) and owns, for the frame, the caches it fills: the cells on screen and which
/// of them match the search. The viewer takes them back after the frame.
struct FrameComposer {
    /// What the status line says besides what the composer can see itself: the view in
    /// force (`sorted by …  2 filters`), hidden columns, the cursor's column's name, and
    /// whether the view's rows are still growing; and the rows and completeness the
    /// layout was made for (rows arriving since wait for the next frame, so a frame never
    /// shows a count its rows are not laid out for).
    struct Notes {
        var view: String?
        var hiddenColumns: String?
        var columnName: String
        var isGrowing: Bool
        var rows: Int
        var isComplete: Bool
        /// The loader's progress read with `rows` (nil but for a file).
        var progress: LoadProgress?
        /// The band: what the picture under the cursor shows (the cursor on it), and how
        /// far its pass has come while its pictures are not exact.
        var bandCursor: String? = nil
        var bandProgress: String? = nil
    }

    /// Stacked tables (`--stack`), as the viewer worked them out for this frame: the
    /// stack, the first of the header records pinned on top, and the status line's name
    /// and position.
    struct Stacked {
        var sections: StackSections
        var rows: StackRows { sections.rows }
        var pinnedHeaderStart: Int
        var status: (name: String, position: String, kept: String)?
    }

    let table: TableView
    let options: ViewerOptions
    let screenSize: Size
    let navigation: Navigation
    let layout: ColumnLayout
    let pattern: SearchPattern?
    let matcher: PatternMatcher?
    let message: String?
    let prompt: (kind: PromptKind, line: PromptLine)?
    let panes: Panes
    let notes: Notes
    var stacked: Stacked? = nil
    /// A diff side by side: the regions are drawn twice, old values then new.
    var sides: Sides? = nil
    /// The distribution band, while it shows (a line under the header records).
    var band: Band? = nil
    /// The cells on screen and the pool they are recycled through (taken back after).
    var cells: CellCache
    /// Whether a cell on screen matches the search, by record and column (taken back after).
    var matchCache: [Int: Bool]

    var source: any RowSource { table.source }
    var file: CellStore? { table.file }
    var window: FreezeWindow { navigation.window }
    var cursorRow: Int { navigation.cursorRow }
    var cursorColumn: Int { navigation.cursorColumn }
    var frozenDataRows: Range<Int> { navigation.frozenDataRows }
    var mainFirstRow: Int { navigation.mainFirstRow }
    var scrollingHeaderRows: Int { navigation.scrollingHeaderRows }
    var frozenColumns: Int { layout.frozenColumns }
    var leftMetrics: ColumnMetrics { layout.left }
    var mainMetrics: ColumnMetrics { layout.main }
    var layoutGeneration: Int { layout.generation }
    var dataRowCount: Int { notes.rows }
    /// The columns the layout was made for (more may have arrived since, for the next frame).
    var columnCount: Int { navigation.extent.columns }

    /// True when data row `row` is a later stacked table's header record.
    func isSectionHeader(dataRow row: Int) -> Bool {
        stacked?.sections.isSectionHeader(dataRow: row) ?? false
    }

    /// The number shown for data row `row`: its place among its own table's data rows
    /// in a stack (nil for a table's header record), else in the file.
    func displayNumber(ofDataRow row: Int) -> Int? {
        guard let stacked else { return table.displayNumber(ofRow: row) }
        return stacked.sections.displayNumber(ofDataRow: row)
    }

    /// True when the screen is too small to draw anything but a word saying so.
    static func isTooSmall(_ size: Size) -> Bool { size.width < 10 || size.height < 3 }

    /// What a region shows on each of its lines.
    enum LineContent {
        case headerRecord(Int)
        /// A data row, by its number among data rows.
        case dataRow(Int)
        /// The distribution band (see `FrameComposer+Band`).
        case band
        case blank
    }

    /// Which column set a region draws from.
    enum ColumnSet {
        /// Row numbers (if shown) and the frozen columns.
        case left
        /// The scrolling columns.
        case main
    }

    /// One column of one line of one region, as planned before any cell is configured.
    struct Placement {
        var key: CellKey
        var content: LineContent
        var column: Int
        var textWidth: Int
        var isBorder: Bool
        var slice: ColumnSlice
        var x: Int
        var y: Int
        /// Side by side, which side's values the cell shows.
        var side: PairedSide? = nil
    }

    /// Composes the grid, the status line, the prompt and a pane over them.
    ///
    /// - Complexity: proportional to the cells on screen (plus a binary search for the
    ///   first visible column), whatever the size of the input. Cells that were on screen
    ///   in the last frame are not laid out again.
    mutating func compose() -> Frame {
        var frame = Frame(size: screenSize)
        guard !Self.isTooSmall(screenSize) else {
            frame.write("terminal too small", x: 0, y: 0, style: .statusMessage)
            return frame
        }
        let bandLine = band == nil ? nil : navigation.bandLine
        let topLines: [LineContent] = (0..<window.headerHeight).map { line in
            let headerRecords = window.headerHeight - frozenDataRows.count - (bandLine == nil ? 0 : 1)
            // Stacked tables: the header of the table under the top of the screen.
            let pinned = stacked?.pinnedHeaderStart ?? 0
            if line < headerRecords { return pinned + line < source.rowCount ? .headerRecord(pinned + line) : .blank }
            if line == bandLine { return .band }
            return .dataRow(frozenDataRows.lowerBound + line - headerRecords - (bandLine == nil ? 0 : 1))
        }
        let dataLines: [LineContent] = (0..<window.main.height).map { line in
            let row = window.drawingOffset.y + line
            guard window.visibleRows.contains(row) else { return .blank }
            // Header rows that did not fit on top come first, then the data.
            return row < scrollingHeaderRows ? .headerRecord(window.headerHeight - frozenDataRows.count + row)
                : .dataRow(row - scrollingHeaderRows + mainFirstRow)
        }
        // The rows on screen are read in one batch, in the order they lie in the input.
        table.fetch(rows: [frozenDataRows, (mainFirstRow + max(0, window.drawingOffset.y - scrollingHeaderRows))
                           ..< (mainFirstRow + max(0, window.drawingOffset.y + window.main.height - scrollingHeaderRows))])
        // One planning path for all four regions: main, then the bands, then the corner.
        var placements: [Placement] = []
        // Side by side, the same regions again on the right, with the new side's values.
        for (side, shift) in sides.map({ [(PairedSide.old, 0), (.new, $0.rightX)] }) ?? [(nil, 0)] {
            plan(&placements, &frame, rect: window.main, lines: dataLines, columns: .main, offsetX: window.drawingOffset.x,
                 shift: shift, side: side)
            plan(&placements, &frame, rect: window.headerBand, lines: topLines, columns: .main, offsetX: window.headerBandOffset.x,
                 shift: shift, side: side)
            plan(&placements, &frame, rect: window.leftBand, lines: dataLines, columns: .left, offsetX: 0, shift: shift, side: side)
            plan(&placements, &frame, rect: window.corner, lines: topLines, columns: .left, offsetX: 0, shift: shift, side: side)
        }
        // The cache is taken out while it lays cells out from this composer (held once, so
        // it changes in place).
        var cache = cells
        cells = CellCache()
        let composer = self
        let views = cache.update(placements.map(\.key)) { index, view in
            let placement = placements[index]
            view.cells = composer.cellCells(placement)
        }
        cells = cache
        for (placement, view) in zip(placements, views) {
            copy(view.cells, placement: placement, into: &frame)
        }
        drawPreamble(&frame)
        if let sides { drawDivider(&frame, at: sides.rightX - SideBySide.divider) }
        if options.showsIndicators { drawVerticalIndicator(&frame) }
        drawStatusLine(&frame)
        drawPrompt(&frame)
        panes.draw(into: &frame, table: table, screen: screenSize)
        return frame
    }

    /// Plans one region: the visible columns of `columns` on each of `lines`.
    private mutating func plan(_ placements: inout [Placement], _ frame: inout Frame, rect: Rect, lines: [LineContent],
                      columns: ColumnSet, offsetX: Int, shift: Int, side: PairedSide?) {
        guard !rect.isEmpty else { return }
        let metrics = columns == .left ? leftMetrics : mainMetrics
        let slices = metrics.visible(offset: offsetX, width: rect.width)
        let firstColumn = columns == .left ? (options.showsRowNumbers ? -1 : 0) : frozenColumns
        for (line, content) in lines.enumerated() where line < rect.height {
            let y = rect.minY + line
            if case .blank = content { continue }
            let record: Int
            switch content {
            case .headerRecord(let index): record = index
            case .dataRow(let row): record = table.record(ofRow: row)
            case .band:
                if let band { drawBand(&frame, band: band, rect: rect, y: y, columns: columns, slices: slices, firstColumn: firstColumn, shift: shift) }
                continue
            case .blank: continue
            }
            for slice in slices {
                let column = firstColumn + slice.column
                var highlight = CellHighlight(cursor: cursor(content, column: column), side: side)
                highlight.isMatch = matcher != nil && cellMatches(record: record, column: column)
                if column < 0, case .dataRow = content, !table.marks.isEmpty { highlight.isMarked = table.marks.contains(record) }
                let key = CellKey(record: record, column: column, highlight: highlight, generation: layoutGeneration)
                placements.append(Placement(key: key, content: content, column: column,
                                            textWidth: metrics.widths[slice.column],
                                            isBorder: columns == .left && slice.column == metrics.count - 1,
                                            slice: slice, x: shift + rect.minX + slice.screenX, y: y, side: side))
            }
            // Past the last column: blank, in the line's style for header lines.
            let used = slices.last.map { $0.screenX + $0.width } ?? 0
            if used < rect.width, case .headerRecord = content {
                frame.fill(Rect(x: shift + rect.minX + used, y: y, width: rect.width - used, height: 1), style: .header)
            }
        }
    }

    /// Where a cell stands to the cursor: the cursor cell, the cursor's column in a
    /// header, the cursor's row number.
    private func cursor(_ content: LineContent, column: Int) -> CellHighlight.Cursor {
        switch content {
        case .headerRecord: return column == cursorColumn && column >= 0 ? .columnHeader : .none
        case .dataRow(let row):
            guard row == cursorRow, band?.isCursorOnBand != true else { return .none }
            return column < 0 ? .rowNumber : (column == cursorColumn ? .cell : .none)
        case .band, .blank: return .none
        }
    }

    /// Copies the visible part of a laid-out column; a wide character cut by an edge
    /// shows as a blank.
    private func copy(_ cells: [FrameCell], placement: Placement, into frame: inout Frame) {
        let slice = placement.slice
        let end = slice.clipLeft + slice.width
        var visible = cells[slice.clipLeft..<end]
        // The rest of a wide character cut by the left edge: blanks.
        var index = visible.startIndex
        while index < visible.endIndex, visible[index].isContinuation {
            visible[index] = FrameCell(" ", visible[index].style)
            index += 1
        }
        // A wide character cut by the right edge: blanks, from its first cell.
        if end < cells.count, cells[end].isContinuation {
            var start = end - 1
            while start > visible.startIndex, cells[start].isContinuation { start -= 1 }
            for blank in max(start, visible.startIndex)..<end { visible[blank] = FrameCell(" ", visible[blank].style) }
        }
        frame.put(visible, x: placement.x, y: placement.y)
    }

    /// One column's cells on one line: its text laid out in its width and its separator.
    /// Column -1 is the row-number column.
    private func cellCells(_ placement: Placement) -> [FrameCell] {
        let column = placement.column, textWidth = placement.textWidth
        var cells: [FrameCell]
        var separatorStyle = Style.plain
        switch placement.content {
        case .blank, .band:
            return Array(repeating: FrameCell.blank, count: textWidth + 1)
        case .headerRecord(let record):
            separatorStyle = .header
            if column < 0 {
                let first = stacked.map { $0.rows.localRecord(record) == 0 } ?? (record == 0)
                let title = first ? (file?.isApproximate == true ? "≈" : "#") : ""
                cells = CellText.layout(ArraySlice(title.utf8), width: textWidth, alignRight: true, style: .header)
            } else {
                let isCursorColumn = placement.key.highlight.cursor == .columnHeader, isMatch = placement.key.highlight.isMatch
                let fileColumn = table.fileColumn(column)
                let names = record == 0 ? table.columnNames : nil
                if let names, names.isMade(fileColumn) {
                    // The name every other place uses (JSON keys, summaries, `:`), not the
                    // file's empty or repeated cell, drawn so it does not pass for the file's text.
                    let style: Style = isCursorColumn ? .madeNameOfCursorColumn : (isMatch ? .match : .madeName)
                    cells = CellText.layout(ArraySlice(names[fileColumn].utf8), width: textWidth, alignRight: false, style: style)
                } else {
                    let marked = Style(mark(record: record, column: fileColumn)) ?? .header
                    let style: Style = isCursorColumn ? .headerOfCursorColumn : (isMatch ? .match : marked)
                    cells = CellText.layout(table.headerCell(record, column: column), width: textWidth, alignRight: false, style: style)
                }
            }
        case .dataRow(let dataRow) where isSectionHeader(dataRow: dataRow):
            // A later table's header, in the scroll until it reaches the pinned place.
            separatorStyle = .header
            if column < 0 {
                let style: Style = placement.key.highlight.cursor == .rowNumber ? .rowNumberOfCursorRow : .header
                let first = stacked?.rows.localRecord(table.record(ofRow: dataRow)) == 0
                cells = CellText.layout(ArraySlice((first ? "#" : "").utf8), width: textWidth, alignRight: true, style: style)
            } else {
                let style: Style = placement.key.highlight.cursor == .cell ? .cursor : (placement.key.highlight.isMatch ? .match : .header)
                cells = CellText.layout(table.cell(row: dataRow, column: column), width: textWidth, alignRight: false, style: style)
            }
        case .dataRow(let dataRow) where placement.side != nil:
            cells = sideCells(placement, dataRow: dataRow)
        case .dataRow(let dataRow):
            // A diff's marks: added, removed and changed records and cells in their own styles.
            let record = placement.key.record
            if column < 0 {
                let style: Style = placement.key.highlight.cursor == .rowNumber ? .rowNumberOfCursorRow
                    : Style(mark(record: record, column: -1)) ?? .rowNumber
                let number = displayNumber(ofDataRow: dataRow).map(String.init) ?? ""
                if placement.key.highlight.isMarked && textWidth > 0 {
                    // A marked record: its sign at the margin's left, the number after it.
                    cells = [FrameCell("•", .mark)]
                        + CellText.layout(ArraySlice(number.utf8), width: textWidth - 1, alignRight: true, style: style)
                } else if textWidth > 0 && table.isWholeJSONRecord(record) {
                    // A JSON line that is not an object, shown whole in the first column.
                    cells = [FrameCell("!", .symbol)]
                        + CellText.layout(ArraySlice(number.utf8), width: textWidth - 1, alignRight: true, style: style)
                } else {
                    cells = CellText.layout(ArraySlice(number.utf8), width: textWidth, alignRight: true, style: style)
                }
            } else {
                // The first cell of a JSON line that is not an object: the line whole, marked.
                let whole = table.fileColumn(column) == 0 && table.isWholeJSONRecord(record)
                let marked = Style(mark(record: record, column: table.fileColumn(column))) ?? (whole ? .symbol : .plain)
                let style: Style = placement.key.highlight.cursor == .cell ? .cursor : (placement.key.highlight.isMatch ? .match : marked)
                let field = table.cell(row: dataRow, column: column)
                if field.isEmpty, let label = options.emptyCellLabels[table.fileColumn(column)] {
                    // A label for the empty cell (a frequency sheet's empty value), drawn as
                    // made names are so it never reads as the data's own text.
                    let highlight = placement.key.highlight
                    let labelStyle: Style = highlight.cursor == .cell ? .madeNameOfCursorColumn : (highlight.isMatch ? .match : .madeName)
                    cells = CellText.layout(ArraySlice(label.utf8), width: textWidth, alignRight: false, style: labelStyle)
                } else {
                    cells = CellText.layout(field, width: textWidth, alignRight: CellText.isNumber(field), style: style)
                }
            }
        }
        cells.append(placement.isBorder ? FrameCell("│", .border) : FrameCell(" ", separatorStyle))
        return cells
    }

    /// The lines before the header, as plain text, while they are in view.
    private func drawPreamble(_ frame: inout Frame) {
        let area = window.preamble
        guard !area.isEmpty else { return }
        let lines = file?.preamble ?? []
        for line in 0..<min(area.height, lines.count) {
            frame.write(lines[line], x: area.minX, y: area.minY + line, style: .preamble, limit: area.width)
        }
    }

    /// The part of the rows in view, as a thumb on main's right edge (shortened while the
    /// sheet is pulled past an end, as on iOS).
    private func drawVerticalIndicator(_ frame: inout Frame) {
        let main = window.main
        let x = screenSize.width - 1
        // The gutter continues the header band's look on header lines.
        for y in window.headerBand.minY..<window.headerBand.maxY { frame[x, y] = FrameCell(" ", .header) }
        let total = window.contentSize.height
        guard main.height >= 2, total > main.height else { return }
        let (start, end) = Viewer.thumb(offset: window.offset.y, view: main.height, total: total, track: main.height)
        for y in start..<end {
            frame[x, main.minY + y] = FrameCell("▐", .indicator)
        }
    }

    /// The last line: where you are, how much there is, and any message.
    private func drawStatusLine(_ frame: inout Frame) {
        let y = screenSize.height - 1
        frame.fill(Rect(x: 0, y: y, width: screenSize.width, height: 1), style: .status)
        // Only a file loads (a sheet fills, and says so itself).
        let progress = notes.progress
        let isComplete = notes.isComplete
        var status = StatusLine()
        // A view's count grows while its passes run; the source's while it loads or fills.
        let growing = table.isMapped ? notes.isGrowing : !isComplete
        var total = Viewer.grouped(dataRowCount) + (growing ? "+" : "")
        if table.isMapped && (dataRowCount != table.fileDataRowCount || growing || !isComplete) {
            total += " of " + Viewer.grouped(table.fileDataRowCount) + (isComplete ? "" : "+")
        }
        status.view = notes.view
        if source.rowCount == 0 && isComplete {
            status.position = "empty input"
        } else {
            let approximate = file?.isApproximate == true ? "≈" : ""
            status.position = dataRowCount == 0 ? "no rows" + (isComplete ? "" : " yet")
                : "row \(approximate)\(Viewer.grouped(cursorRow + 1))/\(approximate)\(total)"
        }
        let header = notes.columnName
        status.column = "col \(Viewer.grouped(cursorColumn + 1))/\(Viewer.grouped(columnCount))"
            + (notes.hiddenColumns.map { " (\($0))" } ?? "")
        if !header.isEmpty { status.columnName = Viewer.fitting(header, width: 24, keepingEnd: false) }
        // JSON and a workbook's sheet are read as CSV made from them: their format is
        // said, not that CSV's dialect; a database's table says which it is.
        let format = (source as? any DatabaseTableRows)?.formatLabel
            ?? file?.formatLabel.map { label in ([label] + [file?.encodingName].compactMap { $0 }).joined(separator: ", ") }
        let input = [format ?? file?.dialect?.summary, file?.compressionName].compactMap { $0 }
        status.dialect = input.isEmpty ? nil : input.joined(separator: "  ")
        if options.showsDebugStats {
            let stats = cells.statistics
            status.debug = "created \(stats.created) live \(stats.live) pooled \(stats.pooled) configured \(stats.configured)"
        }
        status.name = source.name + (options.place.map { " " + $0 } ?? "")
        // One of several tables: which one it is matters as much as where the cursor is.
        status.keptName = options.place.map { Viewer.lastPathPart(source.name) + " " + $0 }
        if let (name, position, kept) = stacked?.status {
            status.name = name
            status.position = position
            status.keptName = kept
        }
        if let message {
            status.right = message
            status.isMessage = true
        } else if let note = notes.bandCursor {
            status.right = note
        } else if let progress, let failure = progress.failure {
            status.right = failure
        } else if let progress, let wide = progress.tooWideRecord {
            // Never cut silently: the fields past the limit are not on screen.
            let place = wide < options.headerRows ? "the header" : "row \(Viewer.grouped(wide - options.headerRows + 1))"
            status.right = "\(place) has more than \(Viewer.grouped(RecordParser.Limits.fieldLimit)) fields: "
                + "only those are shown (--output writes every field)"
        } else if let progress, let notice = progress.notice {
            status.right = notice
        } else if source is EditedRows, let note = table.changes?.statusNote {
            // Edits not saved yet: said before anything else about the input.
            status.right = note + (progress.map { $0.isComplete ? "" : "  " + Viewer.progressText($0) } ?? "")
        } else if let progress, progress.isCaughtUp {
            status.right = "following"
        } else if let progress, !progress.isComplete {
            status.right = Viewer.progressText(progress)
        } else if let note = notes.bandProgress {
            status.right = note
        } else if let named = file?.dialect?.overruledEncoding, let marked = file?.dialect?.encoding {
            status.right = "read as \(marked), as its byte-order mark says, not --encoding \(named)"
        } else if let encoding = file?.dialect?.likelyUTF16 {
            status.right = "looks like UTF-16: --encoding \(encoding)"
        } else if file?.dialect?.looksBinary == true {
            status.right = "binary data? (NUL bytes, shown as ␀)"
        } else if let note = file?.formatNote {
            // JSON: records that were not objects, keys repeated, columns found late.
            status.right = note
        } else if let note = (source as? any DatabaseTableRows)?.note {
            // A database's write-ahead log that cannot be read without writing.
            status.right = note
        } else if let progress, let problem = progress.quotingProblem {
            // Shown, read leniently, and said once where it starts.
            let more = progress.quotingProblemCount > 1 ? " (+\(Viewer.grouped(progress.quotingProblemCount - 1)) more)" : ""
            status.right = "line \(problem.line.map(Viewer.grouped) ?? "?"): \(problem.summary)\(more)"
        } else if let note = table.changes?.statusNote {
            // A diff's counts, with + while it compares.
            status.right = note
        }
        status = status.fitted(to: screenSize.width)
        frame.write(status.left, x: 0, y: y, style: .status)
        if let right = status.right {
            frame.write(right, x: screenSize.width - DisplayWidth.of(right) - 1, y: y,
                        style: message != nil ? .statusMessage : .status)
        }
        // Which columns are in view: a stretch of the status line in its own style.
        let totalWidth = window.contentSize.width, view = window.main.width
        if options.showsIndicators && totalWidth > view && view > 0 {
            let (start, end) = Viewer.thumb(offset: window.offset.x, view: view, total: totalWidth, track: screenSize.width)
            for x in start..<end where frame[x, y].style == .status {
                frame[x, y] = FrameCell(frame[x, y].text, .statusIndicator)
            }
        }
    }

    /// The prompt being typed, on the status line.
    private func drawPrompt(_ frame: inout Frame) {
        guard let prompt else { return }
        let kind = prompt.kind, line = prompt.line
        let y = screenSize.height - 1
        frame.fill(Rect(x: 0, y: y, width: screenSize.width, height: 1), style: .status)
        // The text up to the cursor stays in view (its start gives way on a long line).
        let room = max(1, screenSize.width - 2)
        // A value's line breaks (and other controls) show as symbols, as in cells.
        func shown(_ characters: ArraySlice<Character>) -> String {
            String(characters.map { character -> Character in
                switch character {
                case "\n", "\r\n": return "↵"
                case "\r": return "␍"
                case "\t": return "→"
                default: return character.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? "�" : character
                }
            })
        }
        let before = Viewer.fitting(shown(line.characters[..<line.cursor]), width: room, keepingEnd: true)
        let after = shown(line.characters[line.cursor...])
        let x = frame.write(kind.sigil + before, x: 0, y: y, style: .status)
        if x < screenSize.width {
            // The terminal's own cursor shows where typing goes, on the character it
            // goes before: a drawn blank there read as a typed space.
            frame.cursor = Point(x: x, y: y)
            if !after.isEmpty { frame.write(after, x: x, y: y, style: .status, limit: screenSize.width - x) }
        }
    }

    /// Whether a cell on screen (a view column) matches the last search (cached per cell).
    mutating func cellMatches(record: Int, column viewColumn: Int) -> Bool {
        guard let matcher, let pattern, viewColumn >= 0 else { return false }
        let column = table.fileColumn(viewColumn)
        if pattern.column != nil && pattern.column != column { return false }
        let key = record &* 100_003 &+ column
        if let cached = matchCache[key] { return cached }
        let result = table.row(ofInputRecord: record).map { matcher.matches($0.field(column)) } ?? false
        if matchCache.count > 4096 { matchCache.removeAll() }
        matchCache[key] = result
        return result
    }
}
