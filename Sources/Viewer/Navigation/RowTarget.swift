import CellStore
import Table

/// Where `250G` and `:250` go: the row the margin numbers 250, in any view, and what to
/// say when that row is not there (past what is read, past the end, left out by a filter).
///
/// It only reads the table view and the input's counts; the viewer moves the cursor there
/// and says the message, which may name the row the cursor ended on.
struct RowTarget {
    /// The view row to go to; nil to stay.
    var row: Int?
    /// What to say, given the view row the cursor ended on.
    var message: ((Int) -> String)?

    /// The target of data row `number` (1-based). `mayBeEstimated`: the number was past
    /// what was read, and the end of the file was looked for (`G`'s jump): it may fall
    /// among the rows whose numbers are estimates.
    init(number: Int, table: TableView, mayBeEstimated: Bool) {
        let headerRows = table.headerRows, source = table.source, file = table.file
        if table.isMapped {
            self.init(record: max(1, number), table: table)
            return
        }
        if mayBeEstimated, let estimated = file?.estimatedRows, number + headerRows - 1 >= estimated.lowerBound,
           number + headerRows - 1 < estimated.upperBound {
            self.init(row: number - 1, "≈ row numbers are estimates until the file is read")
            return
        }
        let read = max(0, (file?.readRowCount ?? source.rowCount) - headerRows)
        if !source.isComplete && number > read {
            self.init(row: read - 1, "row \(Viewer.grouped(number)) is past the \(Viewer.counted(read, "row")) read so far")
            return
        }
        let count = table.dataRowCount
        self.init(row: max(1, number) - 1,
                  number > count ? "there \(Viewer.isAre(count)) \(Viewer.counted(count, "row"))" : nil)
    }

    private init(row: Int?, _ text: String?) {
        self.row = row
        self.message = text.map { text in { _ in text } }
    }

    /// In a filtered or sorted view, the row of data record `number` (the margin shows
    /// records' numbers there too); when the view leaves it out, the first row shown after
    /// its place, or the last row at the end, saying so.
    private init(record number: Int, table: TableView) {
        let count = table.dataRowCount
        guard count > 0 else {
            self.init(row: nil, nil)
            return
        }
        let known = table.fileDataRowCount
        if number > known {
            self.init(row: count - 1, table.source.isComplete ? "there \(Viewer.isAre(known)) \(Viewer.counted(known, "row"))"
                      : "row \(Viewer.grouped(number)) is past the \(Viewer.counted(known, "row")) read so far")
            return
        }
        let record = number - 1 + table.headerRows
        if let row = table.row(ofRecord: record) {
            self.init(row: row, nil)
            return
        }
        guard let next = table.row(following: record) else {
            self.init(row: nil, "row \(Viewer.grouped(number)) is not in this view")
            return
        }
        let isLast = next >= count
        let soFar = table.rows?.isComplete == false ? " so far" : ""
        self.init(row: min(next, count - 1), nil)
        message = { row in
            "row \(Viewer.grouped(number)) is not in this view: row \(Viewer.grouped(table.displayNumber(ofRow: row))) is the "
                + (isLast ? "last shown" + soFar : "next shown")
        }
    }
}
