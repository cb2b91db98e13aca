import CellStore
import Export
import Table

/// What the view shows of its rows, for copying, Ctrl-S and `--echo`.
extension TableView {
    /// `row` as the view shows it: its shown columns, in the view's order.
    func shownCells(of row: Row) -> Row {
        columns.shown.map { row.projected($0) } ?? row
    }

    /// `row` as one line of CSV (no line end): its shown columns, in the view's order.
    func csvLine(of row: Row) -> [UInt8] {
        var bytes: [UInt8] = []
        OutputWriter.appendDelimited(shownCells(of: row), delimiter: UInt8(ascii: ","), lineEnding: [], to: &bytes)
        return bytes
    }

    /// True when a cell the view shows of `row` was cut short by the parser.
    func isCutWhereShown(_ row: Row) -> Bool {
        guard let shown = columns.shown else { return row.isCut }
        return shown.contains { row.isClipped($0) || ($0 >= row.count && row.omittedCells > 0) }
    }

    /// Hands `body` the cell of input column `column` of each row of the view, in its
    /// order (`body` returns false to stop); returns why it stopped early, if it did.
    /// For `--echo column` over a filtered or sorted view: the rows are read a batch at a
    /// time, so memory stays bounded.
    func forEachShownCell(inColumn column: Int, _ body: (ArraySlice<UInt8>) -> Bool) -> String? {
        var start = 0
        let count = dataRowCount
        while start < count {
            let batch = start..<min(count, start + 512)
            fetch(rows: [batch])
            for index in batch {
                guard let row = row(index) else { return "row \(index + 1) of the view could not be read again" }
                if row.isClipped(column) {
                    return "\(RecordPlace.name(record(ofRow: index), headerRows: headerRows)) has a cell longer than what is kept in memory: "
                        + "--echo column without a filter or a sort prints it whole"
                }
                if !body(row.field(column)) { return nil }
            }
            start = batch.upperBound
        }
        return nil
    }
}

/// What Enter chooses with `--echo`, from the view's row under the cursor.
package enum Echo {
    enum Outcome {
        /// Printed once the terminal is restored; the viewer ends.
        case chosen(Choice)
        /// Nothing can be printed faithfully: why (the viewer stays).
        case refused(String)
    }

    /// The choice for `echo` of `row`, input column `column` under the cursor.
    /// `isViewGrowing`: a filter or sort is still making the view's rows.
    static func choose(_ echo: EchoMode, row: Row, column: Int, table: TableView, isViewGrowing: Bool) -> Outcome {
        if echo == .column && isViewGrowing {
            // The column is printed from the view's rows: all of them, once they are known.
            return .refused("the view's rows are still coming: Enter once they are all here (Esc stops the pass and keeps them)")
        }
        if echo == .cell, let whole = Panes.inputCell(row, column: column, table: table) {
            // Longer than the row keeps: printed from the input, a piece at a time.
            return .chosen(.cell(whole))
        }
        if echo == .row && table.isCutWhereShown(row), let cells = wholeCells(of: row, table: table) {
            // A cell longer than the row keeps: printed from the input, quoted.
            return .chosen(.cells(cells))
        }
        if echo != .column && (echo == .cell ? row.isClipped(column) : table.isCutWhereShown(row)) {
            // Printing the kept start as if it were the value would lose data silently.
            return .refused("this \(echo == .cell ? "cell" : "row") is longer than what is kept in memory"
                + (echo == .cell ? " and cannot be read again" : "") + ": --echo column or --output prints it whole")
        }
        switch echo {
        case .cell: return .chosen(.bytes(Array(row.field(column))))
        case .row: return .chosen(.bytes(table.csvLine(of: row)))
        case .column: return .chosen(.column(column))
        case .rows: return .refused("--echo rows is chosen by the view")
        }
    }

    /// The shown cells of `row`, those longer than it keeps to be read from the input; nil
    /// when one cannot be (the input cannot be read again, or the record has more fields
    /// than a row keeps).
    static func wholeCells(of row: Row, table: TableView) -> [EchoCell]? {
        var cells: [EchoCell] = []
        for column in table.columns.shown ?? Array(0..<row.count) {
            if row.isClipped(column) {
                guard let whole = Panes.inputCell(row, column: column, table: table) else { return nil }
                cells.append(.input(whole))
            } else if column < row.count {
                cells.append(.bytes(Array(row.field(column))))
            } else if row.omittedCells > 0 {
                return nil
            } else {
                cells.append(.bytes([]))
            }
        }
        return row.omittedCells > 0 && table.columns.shown == nil ? nil : cells
    }
}

extension Echo {
    /// `cells` as one line of CSV (no line end), handed to `write` a part at a time (false
    /// from it stops): a cell quoted where it must be (a lone empty cell as `""`), a cell
    /// read from the input quoted whatever it holds, as it arrives in pieces. False when
    /// `write` stopped it.
    package static func writeCSV(_ cells: [EchoCell], _ write: ([UInt8]) -> Bool) -> Bool {
        for (index, cell) in cells.enumerated() {
            var bytes: [UInt8] = index > 0 ? [UInt8(ascii: ",")] : []
            switch cell {
            case .bytes(let field):
                if (cells.count == 1 && field.isEmpty) || OutputWriter.needsQuotes(field[...], delimiter: UInt8(ascii: ",")) {
                    OutputWriter.appendEscaped(field[...], opening: true, to: &bytes)
                    bytes.append(0x22)
                } else {
                    bytes += field
                }
                guard write(bytes) else { return false }
            case .input(let whole):
                bytes.append(0x22)
                var open = write(bytes)
                _ = open && whole.read { piece in
                    var escaped: [UInt8] = []
                    OutputWriter.appendEscaped(ArraySlice(piece), opening: false, to: &escaped)
                    open = write(escaped)
                    return open
                }
                guard open, write([0x22]) else { return false }
            }
        }
        return true
    }
}
