import CellStore
import FreezeLayout

extension Viewer {
    // MARK: Panes

    /// Applies a key of the inspector, the record view or the help screen.
    func applyPager(_ command: PagerCommand) {
        switch mode {
        case .grid:
            return
        case .inspector(let inspector):
            if command == .close { mode = .grid } else { scrollInspector(inspector, command) }
        case .record(let page):
            scrollRecord(page, command)
        case .help(let scroll):
            if command == .close { mode = .grid; return }
            mode = .help(scroll: scrolled(scroll, command, page: helpHeight, count: HelpPage.lines(helpText, width: screenSize.width).count))
        }
    }

    private func scrolled(_ scroll: Int, _ command: PagerCommand, page: Int, count: Int) -> Int {
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

    // MARK: Commands that open modes

    /// Enter on a cell: the inspector, or with `--echo` the choice and the end.
    func inspectOrChoose() {
        sync()
        guard dataRowCount > 0, let row = table.row(cursorRow) else { return }
        if options.isSheet {
            chosen = .record(table.record(ofRow: cursorRow))
            finish()
            return
        }
        if let echo = options.echo {
            if echo == .column && query.isRunning {
                // The column is printed from the view's rows: all of them, once they are known.
                message = "the view's rows are still coming: Enter once they are all here (Esc stops the pass and keeps them)"
                return
            }
            if echo == .cell, let whole = inputCell(row, column: cursorFileColumn) {
                // Longer than the row keeps: printed from the input, a piece at a time.
                chosen = .cell(whole)
                finish()
                return
            }
            if echo != .column && (echo == .cell ? row.isClipped(cursorFileColumn) : isCutWhereShown(row)) {
                // Printing the kept start as if it were the value would lose data silently.
                message = "this \(echo == .cell ? "cell" : "row") is longer than what is kept in memory"
                    + (echo == .cell ? " and cannot be read again" : "") + ": --echo column or --output prints it whole"
                return
            }
            switch echo {
            case .cell: chosen = .bytes(Array(row.field(cursorFileColumn)))
            case .row:
                var bytes: [UInt8] = []
                OutputWriter.appendDelimited(shownCells(of: row), delimiter: UInt8(ascii: ","), lineEnding: [], to: &bytes)
                chosen = .bytes(bytes)
            case .column: chosen = .column(cursorFileColumn)
            }
            finish()
            return
        }
        openInspector(row)
    }

    // MARK: Go to

    /// `:` input: a row number, `#` and a column number, or a column name.
    func goTo(_ text: String) {
        let target = text.trimmingSpaces
        if goToSectionRow(target) { return }
        if let number = Int(target) {
            goToRow(number)
        } else if target.hasPrefix("#"), let number = Int(target.dropFirst()) {
            guard number >= 1, number <= columnCount else {
                message = "no column \(number) (there \(Self.isAre(columnCount)) \(Self.counted(columnCount, "column")))"
                return
            }
            moveCursor(toRow: cursorRow, column: number - 1)
        } else if let column = findColumn(named: target) {
            moveCursor(toRow: cursorRow, column: column)
        } else {
            message = "no column named \(target)"
        }
    }

    /// Goes to data row `number` (1-based), saying so when it is past what is known.
    func goToRow(_ number: Int) {
        sync()
        if goToRowOfSection(number) { return }
        if let file, number > max(0, file.readRowCount - options.headerRows) && !file.isComplete && !options.follows {
            // Past what is read: the end of the file may be in reach already (see `G`).
            file.jumpToEnd(rows: max(200, screenSize.height * 4))
            sync()
            if let estimated = file.estimatedRows, number + options.headerRows - 1 >= estimated.lowerBound,
               number + options.headerRows - 1 < estimated.upperBound {
                message = "≈ row numbers are estimates until the file is read"
                moveCursor(toRow: number - 1, column: cursorColumn)
                return
            }
        }
        let read = max(0, (file?.readRowCount ?? source.rowCount) - options.headerRows)
        if !source.isComplete && number > read {
            message = "row \(Self.grouped(number)) is past the \(Self.counted(read, "row")) read so far"
            moveCursor(toRow: read - 1, column: cursorColumn)
            return
        }
        if number > dataRowCount {
            message = "there \(Self.isAre(dataRowCount)) \(Self.counted(dataRowCount, "row"))"
        }
        moveCursor(toRow: max(1, number) - 1, column: cursorColumn)
    }

    /// A column by name: exact, then ignoring case, then the first that starts with it,
    /// then the first that contains it.
    func findColumn(named name: String) -> Int? {
        guard !name.isEmpty else { return nil }
        let names = (0..<columnCount).map(columnName)
        let lower = name.lowercased()
        return names.firstIndex(of: name)
            ?? names.firstIndex { $0.lowercased() == lower }
            ?? names.firstIndex { $0.lowercased().hasPrefix(lower) }
            ?? names.firstIndex { $0.lowercased().contains(lower) }
    }

    // MARK: Column widths

    func changeWidth(by delta: Int) {
        sync()
        let current = columnWidths.indices.contains(cursorColumn) ? columnWidths[cursorColumn] : 8
        layout.setWidth(max(1, min(current + delta, maximumColumnWidth)), of: cursorFileColumn)
        sync()
        revealCursor()
    }

    func fitColumn() {
        sync()
        layout.setWidth(layout.naturalWidth(cursorFileColumn, maximum: maximumColumnWidth), of: cursorFileColumn)
        sync()
        revealCursor()
        message = "column fitted to its content (\(Self.counted(columnWidths[cursorColumn], "cell")))"
    }

    func toggleFullWidth() {
        sync()
        layout.toggleFullWidth(cursorFileColumn, maximum: maximumColumnWidth)
        sync()
        revealCursor()
    }

    /// No column wider than main can show.
    var maximumColumnWidth: Int { max(1, gridSize.width - leftMetrics.totalWidth - 1) }

    // MARK: Copy

    func copy(row: Bool) {
        guard dataRowCount > 0, let record = table.row(cursorRow) else { return }
        var bytes: [UInt8] = []
        if row {
            OutputWriter.appendDelimited(shownCells(of: record), delimiter: UInt8(ascii: ","), lineEnding: [], to: &bytes)
        } else {
            bytes = Array(record.field(cursorFileColumn))
        }
        clipboard = bytes
        message = "copied \(row ? "the row as CSV" : "the cell") (\(Self.counted(bytes.count, "byte"))) to the clipboard"
    }

    // MARK: Help

    /// Lines of help on screen at once (the last line says where you are).
    var helpHeight: Int { max(1, screenSize.height - 1) }

    /// The help screen's lines, from the key tables that dispatch keys.
    var helpText: [String] {
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

extension StringProtocol {
    var trimmingSpaces: String {
        var text = String(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension Viewer {
    // MARK: What the view shows, for copying and --echo

    /// `row` as the view shows it: its shown columns, in the view's order.
    func shownCells(of row: Row) -> Row {
        table.columns.shown.map { row.projected($0) } ?? row
    }

    /// True when a cell the view shows of `row` was cut short by the parser.
    func isCutWhereShown(_ row: Row) -> Bool {
        guard let shown = table.columns.shown else { return row.isCut }
        return shown.contains { row.isClipped($0) || ($0 >= row.count && row.omittedCells > 0) }
    }

    /// Hands `body` the cell of input column `column` of each row of the view, in its
    /// order (`body` returns false to stop); returns why it stopped early, if it did.
    /// For `--echo column` over a filtered or sorted view: the rows are read a batch at a
    /// time, so memory stays bounded.
    public func forEachShownCell(inColumn column: Int, _ body: (ArraySlice<UInt8>) -> Bool) -> String? {
        var start = 0
        let count = dataRowCount
        while start < count {
            let batch = start..<min(count, start + 512)
            table.fetch(rows: [batch])
            for index in batch {
                guard let row = table.row(index) else { return "row \(index + 1) of the view could not be read again" }
                if row.isClipped(column) {
                    return "record \(table.record(ofRow: index) + 1) has a cell longer than what is kept in memory: "
                        + "--echo column without a filter or a sort prints it whole"
                }
                if !body(row.field(column)) { return nil }
            }
            start = batch.upperBound
        }
        return nil
    }
}
