import CellStore
import Query
import Table

extension Viewer {
    /// `#` (and Enter on the band): a number or date column with more distinct values than
    /// fit on a screen opens in bins (`HistogramSheet`), any other in its exact values
    /// (`FrequencySheet`); `%` switches a number or date column's sheet between the two.
    func openColumnSheet(of column: Int) {
        guard !(source.isComplete && source.rowCount == 0), let (isTime, distinct) = sampledKind(of: column),
              let input = SheetInput(source) else {
            return openFrequency(of: column)
        }
        let name = displayName(ofFileColumn: column), records = query.rows ?? table.rows
        if distinct > max(4, screenSize.height - 4) {
            requests.sheet = HistogramSheet(input: input, column: column, name: name, isTime: isTime, headerRows: options.headerRows,
                                            records: records, table: self)
        } else {
            requests.sheet = HistogramSheet.values(input: input, column: column, name: name, isTime: isTime,
                                                   headerRows: options.headerRows, records: records, table: self)
        }
    }

    /// How a sort would judge input column `column` (from its first 1,000 filled cells in
    /// the first 100,000 data records): for numbers or dates, whether they are dates and
    /// how many distinct values those cells hold (up to 4,097); nil for text.
    func sampledKind(of column: Int) -> (isTime: Bool, distinct: Int)? {
        var tally = ColumnKind.Tally()
        var seen = Set<[UInt8]>()
        func take(_ cell: UnsafeRawBufferPointer) {
            guard !cell.isEmpty else { return }
            tally.add(cell)
            if seen.count <= 4096 { seen.insert(Array(cell)) }
        }
        let first = options.headerRows
        if let file {
            var index = first
            while !tally.isSettled && index < min(file.rowCount, first + ColumnKind.reach) {
                file.row(index)?.field(column).withUnsafeBytes(take)
                index += 1
            }
        } else if let rows = source.snapshot() {
            _ = rows.forEachRow(in: first..<min(rows.count, first + ColumnKind.reach)) { _, row in
                row.field(column).withUnsafeBytes(take)
                return !tally.isSettled
            }
        }
        switch tally.kind {
        case .number: return (false, seen.count)
        case .date: return (true, seen.count)
        case .text: return nil
        }
    }

    /// Enter on a bin: keeps the rows whose cell in input column `column` reads as a value
    /// in `range` (a typed filter, with the others).
    func keep(range: ValueRange, column: Int) {
        query.add(filter: RecordFilter(range: range, column: column))
        applyQuery(saying: "kept the rows where \(displayName(ofFileColumn: column)) is in \(range.label)")
    }
}
