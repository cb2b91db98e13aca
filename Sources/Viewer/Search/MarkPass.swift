import Query
import Table

/// `M`'s pass: the records of the view where a shown cell matches a pattern, found by a
/// filter's raw-byte scan over the view's rows, then marked all at once. Dropping it
/// cancels the scan.
struct MarkPass {
    let pattern: String
    let filtered: FilteredRecords

    /// Starts the pass over `table`'s view (its rows, its shown columns); throws when the
    /// pattern does not compile. Nil for a source that cannot be scanned.
    static func start(_ pattern: String, over table: TableView) throws(QueryError) -> MarkPass? {
        let filters = [RecordFilter(pattern: pattern, columns: table.columns.shown)]
        let made: FilteredRecords?
        if let file = table.file {
            made = try FilteredRecords.start(store: file, headerRows: table.headerRows, filters: filters, over: table.rows,
                                             wake: table.source.wake)
        } else if let rows = table.source.snapshot() {
            made = try FilteredRecords.start(rows: rows, headerRows: table.headerRows, filters: filters, over: table.rows,
                                             wake: table.source.wake)
        } else {
            made = nil
        }
        return made.map { MarkPass(pattern: pattern, filtered: $0) }
    }

    var isComplete: Bool { filtered.isComplete }

    /// The records found, once the pass is complete (read a batch at a time).
    func records() -> [Int] {
        var records: [Int] = []
        records.reserveCapacity(filtered.count)
        var start = 0
        while start < filtered.count {
            let batch = filtered.records(in: start..<min(filtered.count, start + 65_536))
            records.append(contentsOf: batch.map(\.record))
            start += 65_536
        }
        return records
    }

    /// `marking… 45%  (Esc stops)`.
    var progress: String {
        let (done, total) = filtered.progress
        return "marking… \(Viewer.percent(done, of: total))%  (Esc stops)"
    }
}
