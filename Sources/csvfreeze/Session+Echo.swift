#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Table
import Viewer

// MARK: --echo: what the session chose, printed once the terminal is restored

extension Session {
    /// Prints, for `--echo column`, the column's cell of each row of the view, in its
    /// order, each followed by `terminator`; a cell of any size is printed whole.
    static func echo(column: Int, of viewer: Viewer, asOfNow: Bool, headerRows: Int, terminator: UInt8) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        guard var plan = ExportPlan(view: viewer.table, asOfNow: asOfNow) else { return 0 }
        plan.columns = nil
        let outcome = Exporter.run(plan, to: ExportSink(descriptor: 1)) { _, hand in
            ColumnValues(column: column, terminator: terminator, headerRows: headerRows, sink: hand)
        }
        if outcome.readerLeft { return 0 }
        if let failure = outcome.failure { fail(failure, status: 1) }
        return 0
    }

    /// Prints, for `--echo rows`, `records` of the view as CSV in its shown columns, each
    /// record ended by `terminator`, through the export pipeline (cells of any size whole).
    static func echo(records: [Int], of viewer: Viewer, terminator: UInt8) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        guard var plan = ExportPlan(view: viewer.table) else { return 0 }
        plan.headerRows = 0
        plan.rows = RecordList(records)
        let outcome = Exporter.run(plan, to: ExportSink(descriptor: 1)) { _, hand in
            OutputWriter(format: .csv, lineEnding: [terminator], headerRows: 0, sink: hand)
        }
        if outcome.readerLeft { return 0 }
        if let failure = outcome.failure { fail(failure, status: 1) }
        return 0
    }

    /// Prints what `--echo` chose, on stdout, once the terminal is restored: a cell or a
    /// row as it is, followed by `terminator` (a line feed, or NUL with `-0`).
    static func echo(_ choice: Choice, terminator: UInt8) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        switch choice {
        case .bytes(let bytes):
            _ = Output.writeToStandardOutput(bytes + [terminator])
        case .cell(let cell):
            var open = true
            cell.read { piece in
                open = Output.writeToStandardOutput(Array(piece))
                return open
            }
            if open { _ = Output.writeToStandardOutput([terminator]) }
        case .cells(let cells):
            if Echo.writeCSV(cells, Output.writeToStandardOutput) { _ = Output.writeToStandardOutput([terminator]) }
        case .column, .rows:
            // Chosen in a sheet, for the sheet below: nothing to print.
            break
        }
        Output.checkStandardOutput()
        return 0
    }
}
