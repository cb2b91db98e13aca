import CellStore
import FreezeLayout
import Table

extension Viewer {
    /// What a region shows on each of its lines.
    enum LineContent {
        case headerRecord(Int)
        /// A data row, by its number among data rows.
        case dataRow(Int)
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
    }

    /// Composes the whole screen from the state the last command left; it changes
    /// nothing but its caches (the cells on screen, the rows fetched).
    ///
    /// - Complexity: proportional to the cells on screen (plus a binary search for the
    ///   first visible column), whatever the size of the input. Cells that were on screen
    ///   in the last frame are not laid out again.
    public func frame() -> Frame {
        var frame = Frame(size: screenSize)
        guard screenSize.width >= 10, screenSize.height >= 3 else {
            frame.write("terminal too small", x: 0, y: 0, style: .statusMessage)
            return frame
        }
        // Stacked tables: the header of the table under the top of the screen.
        let pinned = pinnedHeaderStart
        let topLines: [LineContent] = (0..<window.headerHeight).map { line in
            let headerRecords = window.headerHeight - frozenDataRows.count
            if line < headerRecords { return pinned + line < source.rowCount ? .headerRecord(pinned + line) : .blank }
            return .dataRow(frozenDataRows.lowerBound + line - headerRecords)
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
        plan(&placements, &frame, rect: window.main, lines: dataLines, columns: .main, offsetX: window.drawingOffset.x)
        plan(&placements, &frame, rect: window.headerBand, lines: topLines, columns: .main, offsetX: window.headerBandOffset.x)
        plan(&placements, &frame, rect: window.leftBand, lines: dataLines, columns: .left, offsetX: 0)
        plan(&placements, &frame, rect: window.corner, lines: topLines, columns: .left, offsetX: 0)
        let views = cells.update(placements.map(\.key)) { index, view in
            let placement = placements[index]
            view.cells = cellCells(placement)
        }
        for (placement, view) in zip(placements, views) {
            copy(view.cells, placement: placement, into: &frame)
        }
        drawPreamble(&frame)
        if options.showsIndicators { drawVerticalIndicator(&frame) }
        drawStatusLine(&frame)
        drawMode(&frame)
        return frame
    }

    /// Plans one region: the visible columns of `columns` on each of `lines`.
    private func plan(_ placements: inout [Placement], _ frame: inout Frame, rect: Rect, lines: [LineContent],
                      columns: ColumnSet, offsetX: Int) {
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
            case .dataRow(let row): record = self.record(ofDataRow: row)
            case .blank: continue
            }
            for slice in slices {
                let column = firstColumn + slice.column
                var highlight = highlight(content, column: column)
                if search.matcher != nil && cellMatches(record: record, column: column) { highlight |= 4 }
                let key = CellKey(record: record, column: column, highlight: highlight, generation: layoutGeneration)
                placements.append(Placement(key: key, content: content, column: column,
                                            textWidth: metrics.widths[slice.column],
                                            isBorder: columns == .left && slice.column == metrics.count - 1,
                                            slice: slice, x: rect.minX + slice.screenX, y: y))
            }
            // Past the last column: blank, in the line's style for header lines.
            let used = slices.last.map { $0.screenX + $0.width } ?? 0
            if used < rect.width, case .headerRecord = content {
                frame.fill(Rect(x: rect.minX + used, y: y, width: rect.width - used, height: 1), style: .header)
            }
        }
    }

    /// How a cell is highlighted: the cursor cell, the cursor's column in a header, the
    /// cursor's row number.
    private func highlight(_ content: LineContent, column: Int) -> UInt8 {
        switch content {
        case .headerRecord: return column == cursorColumn && column >= 0 ? 1 : 0
        case .dataRow(let row):
            guard row == cursorRow else { return 0 }
            return column < 0 ? 2 : (column == cursorColumn ? 3 : 0)
        case .blank: return 0
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
        case .blank:
            return Array(repeating: FrameCell.blank, count: textWidth + 1)
        case .headerRecord(let record):
            separatorStyle = .header
            if column < 0 {
                let first = stack.map { $0.localRecord(record) == 0 } ?? (record == 0)
                let title = first ? (file?.isApproximate == true ? "≈" : "#") : ""
                cells = CellText.layout(ArraySlice(title.utf8), width: textWidth, alignRight: true, style: .header)
            } else {
                let style: Style = placement.key.highlight & 3 == 1 ? .headerOfCursorColumn : (placement.key.highlight & 4 != 0 ? .match : .header)
                cells = CellText.layout(table.headerCell(record, column: column), width: textWidth, alignRight: false, style: style)
            }
        case .dataRow(let dataRow) where isSectionHeader(dataRow: dataRow):
            // A later table's header, in the scroll until it reaches the pinned place.
            separatorStyle = .header
            if column < 0 {
                let style: Style = placement.key.highlight & 3 == 2 ? .rowNumberOfCursorRow : .header
                let first = stack?.localRecord(record(ofDataRow: dataRow)) == 0
                cells = CellText.layout(ArraySlice((first ? "#" : "").utf8), width: textWidth, alignRight: true, style: style)
            } else {
                let style: Style = placement.key.highlight & 3 == 3 ? .cursor : (placement.key.highlight & 4 != 0 ? .match : .header)
                cells = CellText.layout(table.cell(row: dataRow, column: column), width: textWidth, alignRight: false, style: style)
            }
        case .dataRow(let dataRow):
            if column < 0 {
                let style: Style = placement.key.highlight & 3 == 2 ? .rowNumberOfCursorRow : .rowNumber
                let number = displayNumber(ofDataRow: dataRow).map(String.init) ?? ""
                cells = CellText.layout(ArraySlice(number.utf8), width: textWidth, alignRight: true, style: style)
            } else {
                let style: Style = placement.key.highlight & 3 == 3 ? .cursor : (placement.key.highlight & 4 != 0 ? .match : .plain)
                let field = table.cell(row: dataRow, column: column)
                cells = CellText.layout(field, width: textWidth, alignRight: CellText.isNumber(field), style: style)
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
        let (start, end) = Self.thumb(offset: window.offset.y, view: main.height, total: total, track: main.height)
        for y in start..<end {
            frame[x, main.minY + y] = FrameCell("▐", .indicator)
        }
    }

    /// A scroll thumb's cells on a track, for a view of `view` units at `offset` in `total`.
    static func thumb(offset: Int, view: Int, total: Int, track: Int) -> (Int, Int) {
        let first = max(0, offset), last = min(total, offset + view)
        var start = first * track / total
        var end = (last * track + total - 1) / total
        start = min(max(0, start), track - 1)
        end = max(start + 1, min(end, track))
        return (start, end)
    }

    /// The last line: where you are, how much there is, and any message.
    private func drawStatusLine(_ frame: inout Frame) {
        let y = screenSize.height - 1
        frame.fill(Rect(x: 0, y: y, width: screenSize.width, height: 1), style: .status)
        // Only a file loads (a sheet fills, and says so itself).
        let progress = file?.progress
        let isComplete = source.isComplete
        var status = StatusLine()
        // A view's count grows while its passes run; the source's while it loads or fills.
        let growing = table.isMapped ? query.isRunning || query.isPending : !isComplete
        var total = Self.grouped(dataRowCount) + (growing ? "+" : "")
        if table.isMapped && (dataRowCount != table.fileDataRowCount || growing || !isComplete) {
            total += " of " + Self.grouped(table.fileDataRowCount) + (isComplete ? "" : "+")
        }
        status.view = queryNote
        if source.rowCount == 0 && isComplete {
            status.position = "empty input"
        } else {
            let approximate = file?.isApproximate == true ? "≈" : ""
            status.position = dataRowCount == 0 ? "no rows" + (isComplete ? "" : " yet")
                : "row \(approximate)\(Self.grouped(cursorRow + 1))/\(approximate)\(total)"
        }
        let header = stackColumnName(cursorColumn) ?? columnName(cursorColumn)
        status.column = "col \(Self.grouped(cursorColumn + 1))/\(Self.grouped(columnCount))"
            + (hiddenColumnsNote.map { " (\($0))" } ?? "")
        if !header.isEmpty { status.columnName = Self.fitting(header, width: 24, keepingEnd: false) }
        let input = [file?.dialect?.summary, file?.compressionName].compactMap { $0 }
        status.dialect = input.isEmpty ? nil : input.joined(separator: "  ")
        if options.showsDebugStats {
            let stats = cells.statistics
            status.debug = "created \(stats.created) live \(stats.live) pooled \(stats.pooled) configured \(stats.configured)"
        }
        status.name = source.name + (options.place.map { " " + $0 } ?? "")
        if let (name, position) = stackStatus() {
            status.name = name
            status.position = position
        }
        if let message {
            status.right = message
        } else if let progress, let failure = progress.failure {
            status.right = failure
        } else if let progress, let wide = progress.tooWideRecord {
            // Never cut silently: the fields past the limit are not on screen.
            let place = wide < options.headerRows ? "the header" : "row \(Self.grouped(wide - options.headerRows + 1))"
            status.right = "\(place) has more than \(Self.grouped(RecordParser.Limits.fieldLimit)) fields: "
                + "only those are shown (--output writes every field)"
        } else if let progress, let notice = progress.notice {
            status.right = notice
        } else if let progress, progress.isCaughtUp {
            status.right = "following"
        } else if let progress, !progress.isComplete {
            status.right = Self.progressText(progress)
        } else if file?.dialect?.looksBinary == true {
            status.right = "binary data? (NUL bytes, shown as ␀)"
        } else if let progress, let problem = progress.quotingProblem {
            // Shown, read leniently, and said once where it starts.
            let more = progress.quotingProblemCount > 1 ? " (+\(Self.grouped(progress.quotingProblemCount - 1)) more)" : ""
            status.right = "line \(problem.line.map(Self.grouped) ?? "?"): \(problem.summary)\(more)"
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
            let (start, end) = Self.thumb(offset: window.offset.x, view: view, total: totalWidth, track: screenSize.width)
            for x in start..<end where frame[x, y].style == .status {
                frame[x, y] = FrameCell(frame[x, y].text, .statusIndicator)
            }
        }
    }

    /// Loading progress: a bar, the percentage, the rate and the time left for a file; the
    /// bytes and the rate for a stream.
    static func progressText(_ progress: LoadProgress) -> String {
        let rate = progress.bytesPerSecond > 0 ? "  " + bytes(progress.bytesPerSecond) + "/s" : ""
        guard let fraction = progress.fractionRead else {
            return "reading… " + bytes(Double(progress.bytesRead)) + rate
        }
        let left = progress.secondsLeft.map { "  " + duration($0) + " left" } ?? ""
        return bar(fraction, width: 10) + " \(Int(fraction * 100))%" + rate + left
    }

    /// A bar of `width` cells filled to `fraction`, in eighths of a cell.
    static func bar(_ fraction: Double, width: Int) -> String {
        let eighths = Int((max(0, min(1, fraction)) * Double(width * 8)).rounded(.down))
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        let used = eighths / 8 + (eighths % 8 > 0 ? 1 : 0)
        let text = String(repeating: "█", count: eighths / 8) + partials[eighths % 8]
            + String(repeating: " ", count: width - used)
        return "▕" + text + "▏"
    }

    /// `1536` as `1.5 KB`, `3.2e9` as `3.2 GB`.
    static func bytes(_ value: Double) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var amount = value, unit = 0
        while amount >= 1000 && unit < units.count - 1 { amount /= 1000; unit += 1 }
        let digits = amount >= 100 || unit == 0 ? String(Int(amount.rounded())) : String((amount * 10).rounded() / 10)
        return digits + " " + units[unit]
    }

    /// Seconds as `3 s`, `2 min`, `1 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(max(1, whole)) s" }
        if whole < 3600 { return "\((whole + 59) / 60) min" }
        return "\(whole / 3600) h \((whole % 3600) / 60) min"
    }

    /// `text` shortened to `width` cells with `…`, keeping its end (a path's file name)
    /// or its start.
    static func fitting(_ text: String, width: Int, keepingEnd: Bool) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        guard width >= 2 else { return "" }
        var kept: [Character] = []
        var used = 1
        let characters = keepingEnd ? Array(text.reversed()) : Array(text)
        for character in characters {
            let characterWidth = DisplayWidth.of(character)
            if used + characterWidth > width { break }
            kept.append(character)
            used += characterWidth
        }
        return keepingEnd ? "…" + String(kept.reversed()) : String(kept) + "…"
    }
}
