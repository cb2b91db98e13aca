import Table

/// A viewer over stacked tables (`StackRows`): each table's header pinned while the
/// table is under the top of the screen, row numbers each table's own, the status line
/// naming the table under the cursor, `}` `{` from table to table and `:` taking
/// `table:row`.
///
/// Everything else is the viewer's own: the stack is one row source, so scrolling, `g`
/// and `G`, search (`/`, `n`, `N` run through the tables in order and wrap), widths and
/// frozen columns need nothing of their own.
extension Viewer {
    /// The first of the header records pinned on top: those of the table the line just
    /// above main's first line belongs to, so that a table's header, scrolled up to the
    /// top of main, takes the pinned place from the one before (sticky section headers).
    var pinnedHeaderStart: Int {
        guard let stack else { return 0 }
        let top = mainFirstRow + window.drawingOffset.y - scrollingHeaderRows
        guard top > 0, dataRowCount > 0 else { return 0 }
        let above = record(ofDataRow: min(top, dataRowCount) - 1)
        return stack.start(ofSection: stack.section(ofRecord: above))
    }

    /// The table of data row `row`.
    func section(ofDataRow row: Int) -> Int? {
        guard let stack, dataRowCount > 0 else { return nil }
        return stack.section(ofRecord: record(ofDataRow: max(0, min(row, dataRowCount - 1))))
    }

    /// True when data row `row` is a later table's header record.
    func isSectionHeader(dataRow row: Int) -> Bool {
        guard let stack, row >= 0, row < dataRowCount else { return false }
        return stack.isHeader(record: record(ofDataRow: row))
    }

    /// The number shown for data row `row`: its place among its own table's data rows
    /// in a stack (nil for a table's header record), else in the file.
    func displayNumber(ofDataRow row: Int) -> Int? {
        guard let stack else { return table.displayNumber(ofRow: row) }
        let local = stack.localRecord(record(ofDataRow: row))
        return local < stack.sectionHeaderRows ? nil : local - stack.sectionHeaderRows + 1
    }

    /// The data row of table `section`'s data row `number` (from 1), clamped to the rows
    /// it has so far.
    func dataRow(ofSection section: Int, number: Int) -> Int {
        guard let stack else { return number - 1 }
        let rows = max(0, stack.recordCount(ofSection: section) - stack.sectionHeaderRows)
        let local = stack.sectionHeaderRows + max(0, min(number, rows) - 1)
        return stack.start(ofSection: section) + (rows == 0 ? 0 : local) - options.headerRows
    }

    /// The status line's name and position in a stack: the table under the cursor, its
    /// place among the tables, the cursor's row among that table's rows.
    func stackStatus() -> (name: String, position: String)? {
        guard let stack, let section = section(ofDataRow: cursorRow) else { return nil }
        let name = stack.name(ofSection: section) + " \(section + 1)/\(stack.sectionCount) stacked"
        let rows = max(0, stack.recordCount(ofSection: section) - stack.sectionHeaderRows)
        let growing = section >= stack.settledSections
        let total = Self.grouped(rows) + (growing ? "+" : "")
        guard let number = displayNumber(ofDataRow: cursorRow) else { return (name, "header/\(total)") }
        return (name, "row \(Self.grouped(number))/\(total)")
    }

    /// `}` and `{` in a stack: the first data row of the next table, or of the previous
    /// one (of this one when the cursor is below its first row); false when not stacked.
    func moveToSection(forward: Bool) -> Bool {
        guard let stack else { return false }
        guard let here = section(ofDataRow: cursorRow) else { return true }
        let first = dataRow(ofSection: here, number: 1)
        var target = forward ? here + 1 : (cursorRow > first ? here : here - 1)
        // Empty tables have no row to go to.
        while stack.contains(section: target) && stack.recordCount(ofSection: target) <= stack.sectionHeaderRows
            && target != here {
            target += forward ? 1 : -1
        }
        guard stack.contains(section: target) else {
            if forward && target < stack.sectionCount {
                message = "\(stack.name(ofSection: target)) is not in the stack yet: the tables before it are still being read"
            } else {
                message = forward ? "the last table" : "the first table"
            }
            return true
        }
        markJump()
        moveCursor(toRow: dataRow(ofSection: target, number: 1), column: cursorColumn)
        return true
    }

    /// `:table:row` in a stack (a table's number from 1, or its name, or part of it; the
    /// row from 1, none for the first); false when `text` is not one.
    func goToSectionRow(_ text: String) -> Bool {
        guard let stack, let colon = text.lastIndex(of: ":") else { return false }
        let name = String(text[..<colon]).trimmingSpaces
        let rowText = String(text[text.index(after: colon)...]).trimmingSpaces
        guard !name.isEmpty, rowText.isEmpty || Int(rowText) != nil else { return false }
        let names = (0..<stack.sectionCount).map { stack.name(ofSection: $0) }
        let lower = name.lowercased()
        let base: (String) -> String = { $0.split(separator: "/").last.map(String.init) ?? $0 }
        let found = Int(name).flatMap { (1...max(1, names.count)).contains($0) ? $0 - 1 : nil }
            ?? names.firstIndex(of: name) ?? names.firstIndex { base($0) == name }
            ?? names.firstIndex { base($0).lowercased().hasPrefix(lower) }
            ?? names.firstIndex { $0.lowercased().contains(lower) }
        guard let section = found else {
            message = "no table \(name)"
            return true
        }
        guard stack.contains(section: section) else {
            message = "\(names[section]) is not in the stack yet: the tables before it are still being read"
            return true
        }
        let rows = max(0, stack.recordCount(ofSection: section) - stack.sectionHeaderRows)
        let number = Int(rowText) ?? 1
        if number > rows { message = "\(names[section]) has \(Self.counted(rows, "row"))" }
        moveCursor(toRow: dataRow(ofSection: section, number: number), column: cursorColumn)
        return true
    }

    /// Row `number` of the table under the cursor (`:250`, `250G` in a stack).
    func goToRowOfSection(_ number: Int) -> Bool {
        guard stack != nil, let section = section(ofDataRow: cursorRow) else { return false }
        let rows = max(0, (stack?.recordCount(ofSection: section) ?? 0) - (stack?.sectionHeaderRows ?? 0))
        if number > rows { message = "there \(Self.isAre(rows)) \(Self.counted(rows, "row")) in this table" }
        moveCursor(toRow: dataRow(ofSection: section, number: number), column: cursorColumn)
        return true
    }

    /// What a stack does not do, said instead: its tables are shown as they are.
    func refusedInStack(_ command: Command) -> Bool {
        guard stack != nil else { return false }
        switch command {
        case .filterPrompt, .filterColumnPrompt, .filter, .filterToValue, .keepValue, .sort, .fileOrder, .frequency, .summary:
            message = "the stacked view shows each table as it is: S leaves it, to filter, sort or count in a table"
        case .saveView:
            message = "the stacked view is not written as it shows: csvfreeze --output writes the tables as one"
        case .reload:
            message = "the stacked view reads each table as it is: S leaves it, and R there reads its file again"
        default:
            return false
        }
        return true
    }

    /// The cursor's column's name in a stack: from the header of the table under it.
    func stackColumnName(_ column: Int) -> String? {
        guard let stack, stack.sectionHeaderRows > 0, let section = section(ofDataRow: cursorRow) else { return nil }
        let header = source.row(stack.start(ofSection: section))
        return ColumnNames(header: header, longest: 256)[table.fileColumn(column)]
    }
}
