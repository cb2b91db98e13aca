#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CellStore
import Diff
import Dispatch
import Export
import Table
import Viewer

/// Runs `--diff` and writes what differs.
enum DiffOutput {
    /// Compares the old table (`specs[0]`) with the new one (`specs[1]`); returns the exit
    /// status: 0 the same, 1 different, 2 trouble (an input cannot be read, no such key column).
    static func run(_ options: DiffOptions, specs: [InputSpec], _ request: OutputRequest, summary: Bool) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        var stores: [CellStore] = []
        for spec in specs {
            do {
                stores.append(try CellStore.open(spec, readsAtRandom: !options.keys.isEmpty))
            } catch {
                fail(error.description, status: 2)
            }
        }
        // Both indexes whole: the columns (the widest record) and every record's place.
        for store in stores { store.waitForIndex { store.progress.failure != nil } }
        for store in stores {
            if let failure = store.progress.failure { fail("\(store.name): \(failure)", status: 2) }
            noteStart(in: store.dialect, of: store.name)
        }
        guard let old = DiffInput(store: stores[0], headerRows: request.headerRows),
              let new = DiffInput(store: stores[1], headerRows: request.headerRows) else {
            fail("an input could not be read", status: 2)
        }
        let context = options.context ?? 1
        let diff: TableDiff
        do {
            diff = try TableDiff(old: old, new: new, options: TableDiff.Options(key: options.keyColumns, context: summary ? 0 : context))
        } catch {
            fail(error.description, status: 2)
        }
        let columns = diff.columns
        let twoHeaderRows = request.format == .table && !columns.isSameSchema && !summary
        let writer = OutputWriter(format: request.format, headerRows: twoHeaderRows ? 2 : 1,
                                  maximumWidth: request.maximumWidth, sink: Output.writeToStandardOutput)
        if summary {
            while diff.next(batch: 4096) != nil {}
        } else {
            write(diff, old: old, new: new, context: context, format: request.format, to: writer)
        }
        diff.wait()
        if case .failed(let why) = diff.phase {
            writer.finish()
            fail(why, status: 2)
        }
        let statistics = diff.statistics
        if summary { writeSummary(statistics, columns: columns, keys: diff.keyColumns, to: writer) }
        writer.finish()
        // Output that could not be written is trouble, not a verdict on the tables.
        Output.checkStandardOutput(failureStatus: 2)
        report(statistics, old: old, new: new, summary: summary)
        return statistics.hasDifferences || !columns.isSameSchema ? 1 : 0
    }

    /// The highlighter rows: the schema row when columns differ, the header, then each row
    /// shown, with `...` for rows left out between them (when there is context).
    static func write(_ diff: TableDiff, old: DiffInput, new: DiffInput, context: Int, format: OutputFormat, to writer: OutputWriter) {
        let columns = diff.columns
        let header = Row(cells: ["@@"] + columns.columns.map(\.name))
        let schema = DiffText.schemaRow(columns, order: Array(columns.columns.indices))
        if format == .jsonl {
            // The header names the keys; the schema row is then a record like the others.
            writer.write(header)
            if let schema { writer.write(schema) }
        } else {
            if let schema { writer.write(schema) }
            writer.write(header)
        }
        let skipped = Row(cells: Array(repeating: "...", count: columns.columns.count + 1))
        var hasSkipped = false
        var hasShown = false
        while writer.isOpen, let rows = diff.next(batch: 1024) {
            for row in rows {
                guard row.oldRow != nil || row.newRow != nil else {
                    hasSkipped = true
                    continue
                }
                if hasSkipped && context > 0 { writer.write(skipped) }
                hasSkipped = false
                hasShown = true
                guard writer.write(cells(of: row, columns: columns, old: old, new: new)) else { break }
            }
        }
        if !writer.isOpen {
            diff.cancel()
            return
        }
        // As daff: no rows at all when nothing differs.
        if hasSkipped && hasShown && context > 0 { writer.write(skipped) }
    }

    /// One highlighter row: the action, then each shown column's cell.
    static func cells(of row: DiffRow, columns: DiffColumns, old: DiffInput, new: DiffInput) -> Row {
        for (input, record, cells) in [(old, row.old, row.oldRow), (new, row.new, row.newRow)] {
            guard let ref = record else { continue }
            guard let cells else { fail("\(input.name): \(RecordPlace.name(ref.record, headerRows: input.headerRows)) could not be read again", status: 2) }
            if cells.isCut {
                fail("\(input.name): \(RecordPlace.name(ref.record, headerRows: input.headerRows)) has a cell longer than 1 MiB or more than \(RecordParser.Limits.fieldLimit) fields, more than --diff writes", status: 2)
            }
        }
        return DiffText.row(kind: row.kind, fillsAddedColumns: row.hasNewColumnValues, old: row.oldRow, new: row.newRow,
                            changed: Set(row.changedColumns), columns: columns, order: Array(columns.columns.indices))
    }

    /// `--summary`: one row per shown column with its status and how many cells changed.
    static func writeSummary(_ statistics: DiffStatistics, columns: DiffColumns, keys: [Int], to writer: OutputWriter) {
        writer.write(Row(cells: ["column", "status", "changed"]))
        for (place, column) in columns.columns.enumerated() {
            let status: String
            switch column.status {
            case .common: status = keys.contains(place) ? "key" : ""
            case .added: status = "added"
            case .removed: status = "removed"
            case .moved: status = keys.contains(place) ? "key, moved" : "moved"
            }
            let count = place < statistics.changedCells.count ? statistics.changedCells[place] : 0
            writer.write(Row(cells: [column.name, status, column.old != nil && column.new != nil ? "\(count)" : ""]))
        }
    }

    /// What the user should know beside the rows: the counts (with --summary), repeated
    /// and empty keys, an alignment that is not minimal.
    static func report(_ statistics: DiffStatistics, old: DiffInput, new: DiffInput, summary: Bool) {
        let inputs = [old, new]
        if summary {
            warn("\(Count.records(statistics.changed)) changed, \(statistics.added) added, \(statistics.removed) removed, "
                 + (statistics.moved > 0 ? "\(statistics.moved) moved, " : "") + "\(statistics.same) the same")
        }
        for side in 0..<2 {
            let input = inputs[side]
            if statistics.duplicateKeys[side] > 0, let first = statistics.firstDuplicate[side] {
                let count = statistics.duplicateKeys[side]
                warn("\(input.name): \(Count.records(count)) repeat\(count == 1 ? "s" : "") a key of an earlier one "
                     + "(first: \(first.key.joined(separator: ", ")) in rows \(first.first - input.headerRows + 1) and "
                     + "\(first.second - input.headerRows + 1)); matched in order")
            }
            if statistics.emptyKeys[side] > 0, let first = statistics.firstEmptyKey[side] {
                warn("\(input.name): \(Count.records(statistics.emptyKeys[side])) with an empty key (first: row \(first - input.headerRows + 1))")
            }
        }
        if let (o, n) = statistics.approximateFrom {
            warn("the alignment by position may not be minimal from row \(o - old.headerRows + 1) of \(old.name) and row "
                 + "\(n - new.headerRows + 1) of \(new.name) on (many differences close together); --key matches by key")
        }
    }

    static func warn(_ message: String) { SQLOutput.warn(message) }
}

private enum Count {
    static func records(_ count: Int) -> String { count == 1 ? "1 record" : "\(count) records" }
}
