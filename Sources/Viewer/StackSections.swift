import FreezeLayout
import Table

/// Stacked tables (`StackRows`) as the view shows them: which table a data row belongs
/// to, the numbers shown (each table's own), where `}` `{` and `:table:row` go, the
/// status line's name and position, and what a stack does not do.
///
/// Everything else is the viewer's own: the stack is one row source, so scrolling, `g`
/// and `G`, search (`/`, `n`, `N` run through the tables in order and wrap), widths and
/// frozen columns need nothing of their own. A value made for each use: it reads the
/// stack and the view as they are now.
struct StackSections {
    let rows: StackRows
    let table: TableView
    /// The header records above the data (the viewer's option).
    let headerRows: Int

    /// Where a jump goes: a data row (with a note to say, perhaps), or only a note.
    enum Jump: Equatable {
        case row(Int, note: String?)
        case note(String)
    }

    var dataRowCount: Int { table.dataRowCount }

    /// The table of data row `row`.
    func section(ofDataRow row: Int) -> Int? {
        guard dataRowCount > 0 else { return nil }
        return rows.section(ofRecord: table.record(ofRow: max(0, min(row, dataRowCount - 1))))
    }

    /// True when data row `row` is a later table's header record.
    func isSectionHeader(dataRow row: Int) -> Bool {
        guard row >= 0, row < dataRowCount else { return false }
        return rows.isHeader(record: table.record(ofRow: row))
    }

    /// The number shown for data row `row`: its place among its own table's data rows
    /// (nil for a table's header record).
    func displayNumber(ofDataRow row: Int) -> Int? {
        let local = rows.localRecord(table.record(ofRow: row))
        return local < rows.sectionHeaderRows ? nil : local - rows.sectionHeaderRows + 1
    }

    /// The data rows table `section` has so far.
    func dataRows(ofSection section: Int) -> Int {
        max(0, rows.recordCount(ofSection: section) - rows.sectionHeaderRows)
    }

    /// The data row of table `section`'s data row `number` (from 1), clamped to the rows
    /// it has so far.
    func dataRow(ofSection section: Int, number: Int) -> Int {
        let count = dataRows(ofSection: section)
        let local = rows.sectionHeaderRows + max(0, min(number, count) - 1)
        return rows.start(ofSection: section) + (count == 0 ? 0 : local) - headerRows
    }

    /// The first of the header records pinned on top, for a main region whose line just
    /// above its first is data row `topLine` (from 1; 0 or less: none above): those of
    /// the table that line belongs to, so that a table's header, scrolled up to the top,
    /// takes the pinned place from the one before (sticky section headers).
    func pinnedHeaderStart(lineAbove topLine: Int) -> Int {
        guard topLine > 0, dataRowCount > 0 else { return 0 }
        let above = table.record(ofRow: min(topLine, dataRowCount) - 1)
        return rows.start(ofSection: rows.section(ofRecord: above))
    }

    /// The status line's name and position: the table under the cursor, its place among
    /// the tables, the cursor's row among that table's rows; and the least of the name
    /// kept on a narrow line (its file's own name and place).
    func status(cursorRow: Int) -> (name: String, position: String, kept: String)? {
        guard let section = section(ofDataRow: cursorRow) else { return nil }
        let place = " \(section + 1)/\(rows.sectionCount) stacked"
        let name = rows.name(ofSection: section) + place
        let kept = Viewer.lastPathPart(rows.name(ofSection: section)) + place
        let growing = section >= rows.settledSections
        let total = Viewer.grouped(dataRows(ofSection: section)) + (growing ? "+" : "")
        guard let number = displayNumber(ofDataRow: cursorRow) else { return (name, "header/\(total)", kept) }
        return (name, "row \(Viewer.grouped(number))/\(total)", kept)
    }

    /// `}` and `{`: the first data row of the next table, or of the previous one (of this
    /// one when the cursor is below its first row); nil when there is nothing under the cursor.
    func nextSection(from cursorRow: Int, forward: Bool) -> Jump? {
        guard let here = section(ofDataRow: cursorRow) else { return nil }
        let first = dataRow(ofSection: here, number: 1)
        var target = forward ? here + 1 : (cursorRow > first ? here : here - 1)
        // Empty tables have no row to go to; those that cannot be read are said.
        var skipped: [String] = []
        while rows.contains(section: target) && dataRows(ofSection: target) == 0 && target != here {
            if let why = rows.sections.failure(target) { skipped.append(why) }
            target += forward ? 1 : -1
        }
        let said = skipped.isEmpty ? nil : "skipped " + skipped.joined(separator: "; ")
        guard rows.contains(section: target) else {
            if forward && target < rows.sectionCount { return .note((said.map { $0 + "; " } ?? "") + notYet(target)) }
            return .note(said ?? (forward ? "the last table" : "the first table"))
        }
        return .row(dataRow(ofSection: target, number: 1), note: said)
    }

    /// `:table:row` (a table's number from 1, or its name, or part of it; the row from 1,
    /// none for the first); nil when `text` is not one.
    func jump(to text: String) -> Jump? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let name = String(text[..<colon]).trimmingSpaces
        let rowText = String(text[text.index(after: colon)...]).trimmingSpaces
        guard !name.isEmpty, rowText.isEmpty || Int(rowText) != nil else { return nil }
        let names = (0..<rows.sectionCount).map { rows.name(ofSection: $0) }
        let lower = name.lowercased()
        let base: (String) -> String = { $0.split(separator: "/").last.map(String.init) ?? $0 }
        let found = Int(name).flatMap { (1...max(1, names.count)).contains($0) ? $0 - 1 : nil }
            ?? names.firstIndex(of: name) ?? names.firstIndex { base($0) == name }
            ?? names.firstIndex { base($0).lowercased().hasPrefix(lower) }
            ?? names.firstIndex { $0.lowercased().contains(lower) }
        guard let section = found else { return .note("no table \(name)") }
        guard rows.contains(section: section) else { return .note(notYet(section)) }
        let count = dataRows(ofSection: section)
        let number = Int(rowText) ?? 1
        let note = number > count ? "\(names[section]) has \(Viewer.counted(count, "row"))" : nil
        return .row(dataRow(ofSection: section, number: number), note: note)
    }

    /// Row `number` of the table under the cursor (`:250`, `250G`).
    func jump(toRow number: Int, from cursorRow: Int) -> Jump? {
        guard let section = section(ofDataRow: cursorRow) else { return nil }
        let count = dataRows(ofSection: section)
        let note = number > count ? "there \(Viewer.isAre(count)) \(Viewer.counted(count, "row")) in this table" : nil
        return .row(dataRow(ofSection: section, number: number), note: note)
    }

    /// What a stack does not do, said instead: its tables are shown as they are. Short
    /// enough to fit beside the status line's position on 80 columns, and saying what to
    /// do. `atKey`: only the keys that open a prompt (their refusal takes the whole line).
    static func refusal(of command: Command, atKey: Bool = false) -> String? {
        switch command {
        case .filterPrompt, .filterColumnPrompt:
            return "filters work in one table: S leaves the stack, then filter there"
        case .sqlPrompt:
            return "Q asks SQL of one table: S leaves the stack, then Q there"
        case .saveView:
            return "Ctrl-S writes one table: S leaves the stack, then Ctrl-S there"
        case .runSQL, .filter, .filterToValue, .keepValue, .keepRange, .sort, .fileOrder, .frequency, .summary, .reload,
             .toggleBand:
            return atKey ? nil : "works in one table: S leaves the stack"
        default:
            return nil
        }
    }

    /// The name of input column `fileColumn` in the header of the table under the cursor.
    func columnName(_ fileColumn: Int, cursorRow: Int) -> String? {
        guard rows.sectionHeaderRows > 0, let section = section(ofDataRow: cursorRow) else { return nil }
        let header = rows.row(rows.start(ofSection: section))
        return ColumnNames(header: header, longest: 256)[fileColumn]
    }

    private func notYet(_ section: Int) -> String {
        "\(rows.name(ofSection: section)) is not in the stack yet: the tables before it are still being read"
    }
}
