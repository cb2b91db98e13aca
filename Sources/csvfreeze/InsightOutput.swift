#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Insight
import Query
import Scan
import Table

/// `--frequency` and `--summary`: count over the whole input, then write a small table.
enum InsightOutput {
    /// Runs the mode `options` asks for over the input; returns the exit status.
    /// `drawsBlocks`: the summary's shape is drawn in block characters (else ASCII levels).
    /// `shownName` names the input in messages in place of `path` (a database's table,
    /// read from the CSV copy of it at `path`).
    static func run(_ options: InsightOptions, path: String?, _ request: OutputRequest, query: QueryOptions,
                    drawsBlocks: Bool = true, shownName: String? = nil) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let store: CellStore
        do {
            store = try request.reading.open(path)
        } catch {
            fail(error.description, status: 1)
        }
        let name = shownName ?? store.name
        // The index first: it shares the input out between the cores and vouches for raw bytes.
        var progress: LoadProgress
        while true {
            let version = store.progressSignal.version
            progress = store.progress
            if progress.isComplete || progress.failure != nil { break }
            store.progressSignal.wait(past: version)
        }
        guard let input = ScanInput(store: store), store.rowCount > 0 else {
            if let failure = progress.failure { fail("\(name): \(failure)", status: 1) }
            // No record, so no column: there is nothing to name, count or summarise.
            fail("\(name): empty input, nothing to count", status: 1)
        }
        let columns = store.columnCount
        // One name for each column, as JSON keys and the screen have them.
        let header = ColumnNames(header: request.headerRows > 0 ? store.row(0) : nil)
        let names = header.names(count: columns)
        // --filter and its kin: count only the records they keep (the viewer's filter engine);
        // --columns: summarise only those columns, in that order.
        var records: (any RecordSequence)?
        var chosen: [Int]?
        if query.isActive {
            do {
                let resolved = try query.resolve(names: header, columnCount: columns)
                chosen = resolved.columns
                let filters = resolved.filters
                if !filters.isEmpty {
                    records = try FilteredRecords.start(store: store, headerRows: request.headerRows, filters: filters)
                }
            } catch let problem as QueryOptions.Problem {
                fail(problem.description, status: 2)
            } catch {
                fail("\(error)", status: 2)
            }
        }
        let table: CountedTable
        var whole: WholeCells.Source?
        var column = 0
        if let reference = options.binned {
            let option = options.histogram != nil ? "--histogram" : "--frequency"
            do {
                column = try ColumnReference(reference).resolve(in: header, columns: columns)
            } catch {
                fail("\(option) '\(reference)': " + QueryOptions.explain(error, text: reference, names: header, columnCount: columns), status: 2)
            }
            if column >= RecordParser.Limits.fieldLimit { failTooWide(store, headerRows: request.headerRows, status: 1) }
            let tally = ColumnKind.tally(column: column, in: store, headerRows: request.headerRows)
            // No filled cell to judge by (a blank column, a header alone): counted as numbers,
            // so the answer is no bin and how many cells are empty, not "holds text".
            let kind = tally.filled == 0 ? .number : tally.kind
            guard kind != .text else {
                let instead = options.histogram != nil ? "--frequency counts its values" : "without --bins, --frequency counts its values"
                fail("\(option) '\(reference)': the column holds text, not numbers or dates (\(instead))", status: 2)
            }
            let count = HistogramCount(input: input, column: column, isTime: kind == .date, headerRows: request.headerRows,
                                       records: records)
            count.wait()
            guard case .finished(let counts) = count.status else { return 1 }
            table = CountedTable(histogram: counts.table(bins: options.bins ?? 20))
        } else if let reference = options.frequency {
            do {
                column = try ColumnReference(reference).resolve(in: header, columns: columns)
            } catch {
                fail("--frequency '\(reference)': " + QueryOptions.explain(error, text: reference, names: header, columnCount: columns), status: 2)
            }
            if column >= RecordParser.Limits.fieldLimit { failTooWide(store, headerRows: request.headerRows, status: 1) }
            let count = FrequencyCount(input: input, column: column, headerRows: request.headerRows, records: records)
            count.wait()
            guard case .finished(let counted) = count.status else { return 1 }
            table = CountedTable(frequency: counted, forReading: request.format == .table)
            // Values longer than a cell kept are written whole, read again from the input.
            whole = store.recordReader().map { .input($0) }
        } else {
            let summarised = chosen ?? Array(0..<columns)
            if (summarised.max() ?? 0) >= RecordParser.Limits.fieldLimit { failTooWide(store, headerRows: request.headerRows, status: 1) }
            let scan = SummaryScan(input: input, names: names, headerRows: request.headerRows, records: records,
                                   columns: summarised)
            scan.wait()
            guard case .finished(let rows) = scan.status else { return 1 }
            table = CountedTable(summary: rows, shape: request.format == .table ? (drawsBlocks ? .blocks : .ascii) : nil)
        }
        guard let snapshot = table.rows.snapshot() else { return 1 }
        var plan = ExportPlan(snapshot: snapshot, headerRows: 1, name: name)
        if !table.wholeValues.isEmpty {
            guard let whole else { fail("\(name): a value over 1 MiB could not be read again from the input", status: 1) }
            plan.wholeCells = WholeCells(source: whole, column: 0, sourceColumn: column, records: table.wholeValues)
        }
        let outcome = Exporter.run(plan, to: ExportSink(descriptor: 1)) { _, hand in
            OutputWriter(format: request.format, headerRows: 1, maximumWidth: request.maximumWidth, sink: hand)
        }
        if let note = table.note { say(note) }
        if let failure = outcome.failure, !outcome.readerLeft { fail(failure, status: 1) }
        noteStart(in: store.dialect, of: name)
        if let failure = store.progress.failure {
            // Everything before the damage was counted; say where it stopped.
            fail("\(name): \(failure)", status: 1)
        }
        return 0
    }

    /// A column past the most fields a record is read with: one line, and out.
    static func failTooWide(_ store: CellStore, headerRows: Int, status: Int32) -> Never {
        let record = store.progress.tooWideRecord.map { RecordPlace.name($0, headerRows: headerRows) } ?? "a record"
        fail("\(store.name): \(record) has more than \(RecordParser.Limits.fieldLimit) fields, the most --frequency and "
             + "--summary read (--output writes every field)", status: status)
    }
}
