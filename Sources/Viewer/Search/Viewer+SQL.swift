import CellStore
import Table

extension Viewer {
    /// `Q`: the prompt for an SQL query over the file; in a sheet, where to go for it; on
    /// a diff, which has no file to go back to, how to query its two files.
    func openSQLPrompt() {
        guard !options.isSheet else {
            message = "SQL asks the file: Esc goes back to it, then Q (Up brings back the last query)"
            return
        }
        guard !(source is PairedRows) else {
            message = Self.diffSQLRefusal
            return
        }
        input.open(.sql)
    }

    /// What `Q` says on a diff: short enough for 80 columns beside the name and row.
    static let diffSQLRefusal = "SQL reads files, not the diff: csvfreeze --sql QUERY OLD NEW"

    /// Asks for `text` to run over the file, the answer a sheet over this table that the
    /// loop makes (`takeQuery()`; every row has its say, as with `--sql`).
    func runSQL(_ text: String) {
        guard !text.trimmingSpaces.isEmpty else { return }
        guard !options.isSheet, let file else {
            message = "SQL asks the file: Esc goes back to it, then Q"
            return
        }
        guard file.readRowCount > 0 || file.isComplete else {
            message = "nothing to query yet: the input has no rows so far"
            return
        }
        requests.query = (text, file)
    }

    /// The query asked for (`Q`), once: the loop answers it in a sheet over this viewer.
    public func takeQuery() -> (text: String, file: CellStore)? {
        defer { requests.query = nil }
        return requests.query
    }

    /// True while this viewer shows an answer whose statement still runs and has rows to
    /// keep: Esc stops it (with none yet, Esc goes back, which stops it too).
    var isAnswerRunning: Bool {
        guard let answer = source as? any StoppableRows else { return false }
        return answer.isRunning && answer.answerRowCount > 0
    }

    /// Esc on an answer whose statement runs: stops it, the rows so far stay.
    func stopSQL() {
        guard let answer = source as? any StoppableRows, answer.isRunning else { return }
        answer.cancel()
        message = "stopping the query: the rows so far stay"
    }

    /// Enter on an answer's row with the rowid of `t`: the cursor goes to that record
    /// (`record` counts the header records), where this view shows it.
    func goToRecord(_ record: Int) {
        // A record of the input: the rows read since the last frame count.
        reconcile()
        let number = Self.grouped(record - options.headerRows + 1)
        guard let row = table.row(ofRecord: record), row < dataRowCount else {
            message = "row \(number) is not in this view" + (table.isMapped ? " (a filter leaves it out)" : "")
            return
        }
        markJump()
        moveCursor(toRow: row, column: cursorColumn)
        message = "row \(number): the answer's rowid  ('' comes back; Q and Up: the query again)"
    }
}
