import CellStore
import Table

/// A comparison written out (`--diff`): daff's highlighter rows, made as the exporter asks
/// for them from the rows the comparison hands over, or with `summary` the table of
/// columns once the comparison has ended. Only the rows shown are made and none is kept:
/// with `--context` the rows between are counted as `...` and dropped as they come.
package final class DiffLines: RowStream {
    private let diff: TableDiff
    private let old: DiffInput
    private let new: DiffInput
    private let context: Int
    /// JSON lines: the header row first (it names the keys), the schema row a record after it.
    private let headerFirst: Bool
    private let summary: Bool
    private var started = false
    private var ended = false
    /// Rows left out since the last one shown, and whether one has been shown.
    private var hasSkipped = false
    private var hasShown = false
    package private(set) var failure: String?

    package init(_ diff: TableDiff, old: DiffInput, new: DiffInput, context: Int, headerFirst: Bool, summary: Bool) {
        self.diff = diff
        self.old = old
        self.new = new
        self.context = context
        self.headerFirst = headerFirst
        self.summary = summary
    }

    package func next(batch: Int) -> StreamedRows? {
        guard !ended else { return nil }
        if summary { return summaryRows() }
        let columns = diff.columns
        guard started else {
            started = true
            let header = Row(cells: ["@@"] + columns.columns.map(\.name))
            let schema = DiffText.schemaRow(columns, order: Array(columns.columns.indices))
            return StreamedRows(rows: headerFirst ? [header] + (schema.map { [$0] } ?? []) : (schema.map { [$0] } ?? []) + [header])
        }
        let skipped = Row(cells: Array(repeating: "...", count: columns.columns.count + 1))
        let order = Array(columns.columns.indices)
        guard let rows = diff.next(batch: batch) else {
            ended = true
            // As daff: no rows at all when nothing differs.
            return hasSkipped && hasShown && context > 0 ? StreamedRows(rows: [skipped]) : nil
        }
        var lines: [Row] = []
        for row in rows {
            guard row.oldRow != nil || row.newRow != nil else {
                hasSkipped = true
                continue
            }
            if hasSkipped && context > 0 { lines.append(skipped) }
            hasSkipped = false
            hasShown = true
            if let why = unwritable(row) {
                failure = why
                ended = true
                diff.cancel()
                return lines.isEmpty ? nil : StreamedRows(rows: lines)
            }
            lines.append(DiffText.row(kind: row.kind, fillsAddedColumns: row.hasNewColumnValues, old: row.oldRow, new: row.newRow,
                                      changed: Set(row.changedColumns), columns: columns, order: order))
        }
        return StreamedRows(rows: lines)
    }

    package func stop() { diff.cancel() }

    /// Why a row cannot be written: a record not read again, or read cut.
    private func unwritable(_ row: DiffRow) -> String? {
        for (input, record, cells) in [(old, row.old, row.oldRow), (new, row.new, row.newRow)] {
            guard let ref = record else { continue }
            let place = RecordPlace.name(ref.record, headerRows: input.headerRows)
            guard let cells else { return "\(input.name): \(place) could not be read again" }
            if cells.isCut {
                return "\(input.name): \(place) has a cell longer than 1 MiB or more than \(RecordParser.Limits.fieldLimit) fields, more than --diff writes"
            }
        }
        return nil
    }

    /// `--summary`: once every row is counted, one row per shown column with its status and
    /// how many cells changed (none when the comparison failed).
    private func summaryRows() -> StreamedRows? {
        ended = true
        while diff.next(batch: 4096) != nil {}
        diff.wait()
        if case .failed = diff.phase { return nil }
        let statistics = diff.statistics
        let keys = diff.keyColumns
        var rows = [Row(cells: ["column", "status", "changed"])]
        for (place, column) in diff.columns.columns.enumerated() {
            let status: String
            switch column.status {
            case .common: status = keys.contains(place) ? "key" : ""
            case .added: status = "added"
            case .removed: status = "removed"
            case .moved: status = keys.contains(place) ? "key, moved" : "moved"
            }
            let count = place < statistics.changedCells.count ? statistics.changedCells[place] : 0
            rows.append(Row(cells: [column.name, status, column.old != nil && column.new != nil ? "\(count)" : ""]))
        }
        return StreamedRows(rows: rows)
    }
}
