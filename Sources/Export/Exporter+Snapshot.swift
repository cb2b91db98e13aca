import CellStore
import Scan
import Table

// MARK: Rows in memory (a sheet's snapshot)

extension Exporter {
    /// Writes a snapshot's rows (a sheet's): the rows above, its header rows, then its rows
    /// in the view's order.
    func writeSnapshot(_ snapshot: RowSnapshot, writer: RecordWriting) {
        self.writer = writer
        // A row in memory that is not whole (a diff's record with a cell over 1 MiB) is not
        // written cut: the write stops and says so.
        func writeCells(_ row: Row, record: Int) {
            if let whole = plan.wholeCells, whole.records[record] != nil {
                writeWhole(row, record: record, whole: whole)
                return
            }
            guard !row.isCut else {
                outcome.failure = "\(plan.name): row \(max(0, record - plan.headerRows) + 1) holds a cell longer than 1 MiB "
                    + "(or more than \(RecordParser.Limits.fieldLimit) fields), which is not written whole from here"
                return
            }
            self.writeCells(row, record: record)
        }
        for row in plan.rowsAbove where !isStopped { writeCells(row, record: -1) }
        let headers = min(plan.headerRows, snapshot.count)
        snapshot.forEachRow(in: 0..<headers) { record, row in
            writeCells(row, record: record)
            return !isStopped
        }
        if let rows = plan.rows {
            let count = min(rows.count, plan.rowLimit ?? Int.max)
            var written = 0
            while written < count && !isStopped {
                let refs = rows.records(in: written..<min(count, written + 4096))
                if refs.isEmpty { break }
                for ref in refs where !isStopped {
                    guard let row = snapshot.row(ref.record) else { continue }
                    writeCells(row, record: ref.record)
                    countRows(from: ref.record, to: ref.record + 1)
                }
                written += refs.count
            }
        } else {
            let end = min(snapshot.count, plan.rowLimit.map { plan.headerRows + $0 } ?? Int.max)
            snapshot.forEachRow(in: headers..<end) { record, row in
                writeCells(row, record: record)
                countRows(from: record, to: record + 1)
                return !isStopped
            }
        }
        if !isStopped { writer.finish(endsWithTerminator: true) }
    }

    /// Writes a snapshot's row whose cell in `whole.column` is only the start of a value:
    /// the value whole, read again from `whole.source` a piece at a time, in its place.
    private func writeWhole(_ given: Row, record: Int, whole: WholeCells) {
        guard case .success(let shaped?) = Self.shaped(given, record: record, plan: plan, projection: &projection) else { return }
        let place = plan.columns.map { $0.firstIndex(of: whole.column) } ?? whole.column
        guard let place, place < shaped.count else {
            // The column is not written: nothing stands in for it.
            writer.write(shaped)
            return
        }
        var before = Row(bytes: Array(shaped.bytes[..<(place == 0 ? 0 : shaped.ends[place - 1])]), ends: Array(shaped.ends[..<place]))
        var first = true
        let found = whole.read(record) { piece in
            defer { first = false }
            if first {
                before.bytes.append(contentsOf: piece)
                before.ends.append(before.bytes.count)
                before.continuesInNext = true
                return writer.write(before) && !isStopped
            }
            return writer.write(Row(bytes: Array(piece), ends: [piece.count], continuesPrevious: true, continuesInNext: true))
                && !isStopped
        }
        guard found == true, !first else {
            outcome.failure = "\(plan.name): row \(max(0, record - plan.headerRows) + 1) holds a value longer than 1 MiB that "
                + "could not be read again from the input (it changed?)"
            return
        }
        guard !isStopped else { return }
        let start = shaped.ends[place]
        writer.write(Row(bytes: Array(shaped.bytes[start...]), ends: [0] + shaped.ends[(place + 1)...].map { $0 - start },
                         continuesPrevious: true))
    }
}
