import CellStore
import FreezeLayout

extension Viewer {
    /// What a region shows on each of its lines.
    enum LineContent {
        case headerRecord(Int)
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

    /// Composes the whole screen.
    ///
    /// - Complexity: proportional to the cells on screen (plus a binary search for the
    ///   first visible column), whatever the size of the input.
    public func frame() -> Frame {
        sync()
        var frame = Frame(size: screenSize)
        guard screenSize.width >= 10, screenSize.height >= 3 else {
            frame.write("terminal too small", x: 0, y: 0, style: .statusMessage)
            return frame
        }
        let headerLines: [LineContent] = (0..<window.headerHeight).map { $0 < store.rowCount ? .headerRecord($0) : .blank }
        let visible = window.visibleRows
        let dataLines: [LineContent] = (0..<window.main.height).map { line in
            let row = window.offset.y + line
            return visible.contains(row) ? .dataRow(row) : .blank
        }
        // One drawing path for all four regions: main first, then the bands, then the corner.
        paint(&frame, rect: window.main, lines: dataLines, columns: .main, offsetX: window.offset.x)
        paint(&frame, rect: window.headerBand, lines: headerLines, columns: .main, offsetX: window.headerBandOffset.x)
        paint(&frame, rect: window.leftBand, lines: dataLines, columns: .left, offsetX: 0)
        paint(&frame, rect: window.corner, lines: headerLines, columns: .left, offsetX: 0)
        drawStatusLine(&frame)
        return frame
    }

    /// Paints one region: the cells of `lines` × the visible columns of `columns`.
    private func paint(_ frame: inout Frame, rect: Rect, lines: [LineContent], columns: ColumnSet, offsetX: Int) {
        guard !rect.isEmpty else { return }
        let metrics = columns == .left ? leftMetrics : mainMetrics
        let slices = metrics.visible(offset: offsetX, width: rect.width)
        let firstDataColumn = columns == .left ? (options.showsRowNumbers ? -1 : 0) : frozenColumns
        let isLeft = columns == .left
        for (line, content) in lines.enumerated() where line < rect.height {
            let y = rect.minY + line
            var row: Row?
            switch content {
            case .headerRecord(let record): row = store.row(record)
            case .dataRow(let dataRow): row = store.row(record(ofDataRow: dataRow))
            case .blank: row = nil
            }
            for slice in slices {
                let column = firstDataColumn + slice.column
                let isLastLeftColumn = isLeft && slice.column == metrics.count - 1
                let cells = cellCells(content: content, row: row, column: column, textWidth: metrics.widths[slice.column],
                                      separator: isLastLeftColumn ? "│" : " ")
                var visible = cells[slice.clipLeft..<(slice.clipLeft + slice.width)]
                // A wide character cut by the window's edge shows as a blank.
                if let first = visible.first, first.isContinuation {
                    visible[visible.startIndex] = FrameCell(" ", first.style)
                }
                if slice.clipLeft + slice.width < cells.count, cells[slice.clipLeft + slice.width].isContinuation,
                   let last = visible.last {
                    visible[visible.endIndex - 1] = FrameCell(" ", last.style)
                }
                frame.put(visible, x: rect.minX + slice.screenX, y: y)
            }
            // Past the last column: blank, in the line's style for header lines.
            let used = slices.last.map { $0.screenX + $0.width } ?? 0
            if used < rect.width {
                let style: Style = { if case .headerRecord = content { return .header } else { return .plain } }()
                frame.fill(Rect(x: rect.minX + used, y: y, width: rect.width - used, height: 1), style: style)
            }
        }
    }

    /// One column's cells on one line: its text laid out in `textWidth` cells and its
    /// separator. Column -1 is the row-number column.
    private func cellCells(content: LineContent, row: Row?, column: Int, textWidth: Int, separator: String) -> [FrameCell] {
        var style: Style
        var cells: [FrameCell]
        let isCursorColumn = column == cursorColumn
        switch content {
        case .blank:
            return Array(repeating: FrameCell.blank, count: textWidth + 1)
        case .headerRecord(let record):
            style = isCursorColumn && column >= 0 ? .headerOfCursorColumn : .header
            if column < 0 {
                let title = record == 0 ? "#" : ""
                cells = CellText.layout(ArraySlice(title.utf8), width: textWidth, alignRight: true, style: .header)
                style = .header
            } else {
                cells = CellText.layout(row?.field(column) ?? [], width: textWidth, alignRight: false, style: style)
            }
        case .dataRow(let dataRow):
            let isCursorRow = dataRow == cursorRow
            if column < 0 {
                style = isCursorRow ? .rowNumberOfCursorRow : .rowNumber
                cells = CellText.layout(ArraySlice(String(dataRow + 1).utf8), width: textWidth, alignRight: true, style: style)
            } else {
                style = isCursorRow && isCursorColumn ? .cursor : .plain
                let field = row?.field(column) ?? []
                cells = CellText.layout(field, width: textWidth, alignRight: CellText.isNumber(field), style: style)
            }
        }
        if separator == "│" {
            cells.append(FrameCell("│", .border))
        } else {
            let separatorStyle: Style = { if case .headerRecord = content { return .header } else { return .plain } }()
            cells.append(FrameCell(separator, separatorStyle))
        }
        return cells
    }

    /// The last line: where you are, how much there is, and any message.
    private func drawStatusLine(_ frame: inout Frame) {
        let y = screenSize.height - 1
        frame.fill(Rect(x: 0, y: y, width: screenSize.width, height: 1), style: .status)
        let progress = store.progress
        var parts: [String] = []
        let total = Self.grouped(dataRowCount) + (progress.isComplete ? "" : "+")
        if store.rowCount == 0 && progress.isComplete {
            parts.append("empty input")
        } else {
            parts.append(dataRowCount == 0 ? "no rows" + (progress.isComplete ? "" : " yet") : "row \(Self.grouped(cursorRow + 1))/\(total)")
        }
        let header = options.headerRows > 0 ? store.row(0)?.string(cursorColumn) ?? "" : ""
        var column = "col \(cursorColumn + 1)/\(columnCount)"
        if !header.isEmpty { column += " " + Self.fitting(header, width: 24, keepingEnd: false) }
        parts.append(column)
        if let dialect = store.dialect { parts.append(dialect.delimiterName) }
        var right = ""
        if let message {
            right = message
        } else if let failure = progress.failure {
            right = "read error: \(failure)"
        } else if !progress.isComplete {
            if let fraction = progress.fractionRead {
                right = "loading \(Int(fraction * 100))%"
            } else {
                right = "reading…"
            }
        }
        let rightWidth = right.isEmpty ? 0 : min(DisplayWidth.of(right) + 1, screenSize.width / 2)
        let room = screenSize.width - rightWidth - (rightWidth > 0 ? 1 : 0)
        // Where you are matters more than what the file is called: a long name gives way
        // first (keeping its end), then the delimiter.
        let rest = parts.joined(separator: "  ")
        let nameRoom = room - 1 - DisplayWidth.of(rest) - 2
        var left = " " + rest
        if nameRoom >= 4 {
            left = " " + Self.fitting(store.name, width: nameRoom, keepingEnd: true) + "  " + rest
        }
        frame.write(left, x: 0, y: y, style: .status, limit: room)
        if !right.isEmpty {
            frame.write(right, x: screenSize.width - rightWidth, y: y, style: message != nil ? .statusMessage : .status,
                        limit: rightWidth)
        }
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
