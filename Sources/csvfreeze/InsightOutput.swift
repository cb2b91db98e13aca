#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Insight
import Query
import Scan
import Table
import Viewer

/// `--frequency` and `--summary`: count over the whole input, then write a small table.
enum InsightOutput {
    /// Runs the mode `options` asks for over the input; returns the exit status.
    /// `drawsBlocks`: the summary's shape is drawn in block characters (else ASCII levels).
    static func run(_ options: InsightOptions, path: String?, _ request: OutputRequest, query: QueryOptions,
                    drawsBlocks: Bool = true) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let store: CellStore
        do {
            store = try request.reading.open(path)
        } catch {
            fail(error.description, status: 1)
        }
        // The index first: it shares the input out between the cores and vouches for raw bytes.
        var progress: LoadProgress
        while true {
            let version = store.progressSignal.version
            progress = store.progress
            if progress.isComplete || progress.failure != nil { break }
            store.progressSignal.wait(past: version)
        }
        guard let input = ScanInput(store: store), store.rowCount > 0 else {
            if let failure = progress.failure { fail("\(store.name): \(failure)", status: 1) }
            // No record, so no column: there is nothing to name, count or summarise.
            fail("\(store.name): empty input, nothing to count", status: 1)
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
        let writer = OutputWriter(format: request.format, headerRows: 1, maximumWidth: request.maximumWidth,
                                  sink: Output.writeToStandardOutput)
        if let reference = options.binned {
            let column: Int
            let option = options.histogram != nil ? "--histogram" : "--frequency"
            do {
                column = try ColumnReference(reference).resolve(in: header, columns: columns)
            } catch {
                fail("\(option) '\(reference)': " + QueryOptions.explain(error, text: reference, names: header, columnCount: columns), status: 2)
            }
            if column >= RecordParser.Limits.fieldLimit { failTooWide(store, headerRows: request.headerRows, status: 1) }
            let kind = ColumnKind.judge(column: column, in: store, headerRows: request.headerRows)
            guard kind != .text else {
                fail("\(option) '\(reference)': the column holds text, not numbers or dates (--frequency counts its values)", status: 2)
            }
            let count = HistogramCount(input: input, column: column, isTime: kind == .date, headerRows: request.headerRows,
                                       records: records)
            count.wait()
            guard case .finished(let counts) = count.status else { return 1 }
            writeHistogram(counts.table(bins: options.bins ?? 20), to: writer)
        } else if let reference = options.frequency {
            let column: Int
            do {
                column = try ColumnReference(reference).resolve(in: header, columns: columns)
            } catch {
                fail("--frequency '\(reference)': " + QueryOptions.explain(error, text: reference, names: header, columnCount: columns), status: 2)
            }
            if column >= RecordParser.Limits.fieldLimit { failTooWide(store, headerRows: request.headerRows, status: 1) }
            let count = FrequencyCount(input: input, column: column, headerRows: request.headerRows, records: records)
            count.wait()
            guard case .finished(let table) = count.status else { return 1 }
            writeFrequency(table, format: request.format, to: writer, column: column, reader: store.recordReader())
        } else {
            let summarised = chosen ?? Array(0..<columns)
            if (summarised.max() ?? 0) >= RecordParser.Limits.fieldLimit { failTooWide(store, headerRows: request.headerRows, status: 1) }
            let scan = SummaryScan(input: input, names: names, headerRows: request.headerRows, records: records,
                                   columns: summarised)
            scan.wait()
            guard case .finished(let rows) = scan.status else { return 1 }
            writeSummary(rows, to: writer, shape: request.format == .table ? (drawsBlocks ? .blocks : .ascii) : nil)
        }
        writer.finish()
        Output.checkStandardOutput()
        noteStart(in: store.dialect, of: store.name)
        if let failure = store.progress.failure {
            // Everything before the damage was counted; say where it stopped.
            fail("\(store.name): \(failure)", status: 1)
        }
        return 0
    }

    /// A column past the most fields a record is read with: one line, and out.
    static func failTooWide(_ store: CellStore, headerRows: Int, status: Int32) -> Never {
        let record = store.progress.tooWideRecord.map { RecordPlace.name($0, headerRows: headerRows) } ?? "a record"
        fail("\(store.name): \(record) has more than \(RecordParser.Limits.fieldLimit) fields, the most --frequency and "
             + "--summary read (--output writes every field)", status: status)
    }

    static func percent(_ value: Double) -> String { FrequencyRow.text(ofPercent: value) }

    static func writeFrequency(_ table: FrequencyTable, format: OutputFormat, to writer: OutputWriter, column: Int,
                               reader: RecordReader?) {
        let shown = format == .table
        writer.write(Row(cells: ["value", "count", "percent"]))
        for row in table.rows {
            if row.isShortened && !shown {
                // Machine formats get the whole value, read again from the input a piece at a time.
                writeWhole(row, column: column, reader: reader, to: writer)
                continue
            }
            let value = shown ? Array(tableText(of: row).utf8) : row.value
            writer.write(Row(bytes: value, ends: [value.count]).appending(["\(row.count)", percent(row.percent)]))
        }
        guard !table.isExact else { return }
        let note = table.areAllUnique ? "all \(table.total) values are unique (≈\(table.distinct) estimated)"
            : "≈\(table.distinct) distinct values: those not listed occur at most \(table.unlistedAtMost) times each,"
              + " in \(table.unlistedCount) records together"
        if shown {
            writer.write(Row(cells: ["(other values, ≈\(table.distinct - table.rows.count))", "\(table.unlistedCount)",
                                     percent(Double(table.unlistedCount) * 100 / Double(max(1, table.total)))]))
        }
        // Machine formats keep their rows to true values; the estimate goes to stderr.
        say(note)
    }

    /// A value as a table shows it: the empty value as `(empty)`; a value that reads so
    /// itself, or that starts with a double quote, in double quotes as CSV quotes it
    /// (`"(empty)"`), so no value passes for the empty one.
    static func tableText(of row: FrequencyRow) -> String {
        if row.value.isEmpty { return "(empty)" }
        let text = row.shownText
        guard text == "(empty)" || text.hasPrefix("\"") else { return text }
        return "\"" + String(decoding: Array(text.utf8).replacing([0x22], with: [0x22, 0x22]), as: UTF8.self) + "\""
    }

    /// A value longer than a cell kept, written whole from where it first occurs, then
    /// its count and share.
    static func writeWhole(_ row: FrequencyRow, column: Int, reader: RecordReader?, to writer: OutputWriter) {
        guard let reader, let record = row.firstRecord, let found = reader.record(record, at: nil),
              let cell = InputCell(row: found, column: column, reader: reader) else {
            fail("a value of \(row.wholeLength ?? 0) bytes could not be read again from the input", status: 1)
        }
        var first = true
        let complete = cell.read { piece in
            defer { first = false }
            return writer.write(Row(bytes: Array(piece), ends: [piece.count], continuesPrevious: !first, continuesInNext: true))
        }
        guard complete else { fail("a value of \(cell.length) bytes could not be read again from the input", status: 1) }
        writer.write(Row(bytes: [], ends: [0], continuesPrevious: !first).appending(["\(row.count)", percent(row.percent)]))
    }

    /// Bins as `low,high,count,percent`; what is in no bin is said on stderr.
    static func writeHistogram(_ table: HistogramTable, to writer: OutputWriter) {
        writer.write(Row(cells: ["low", "high", "count", "percent"]))
        for row in table.rows {
            writer.write(Row(cells: [row.low, row.high, "\(row.count)", percent(row.percent)]))
        }
        let counts = table.counts
        var apart: [String] = []
        if counts.others > 0 { apart.append("\(counts.others) not \(table.isTime ? "dates" : "numbers")") }
        if counts.infinities > 0 { apart.append("\(counts.infinities) past a double's range") }
        if counts.empty > 0 { apart.append("\(counts.empty) empty") }
        if counts.bins.total == 0 { apart.insert("no \(table.isTime ? "date" : "number") to bin", at: 0) }
        if !apart.isEmpty { say(apart.joined(separator: ", ") + (counts.bins.total > 0 ? ": in no bin" : "")) }
    }

    /// The summary's rows; a table (for people) ends each with the column's `shape`, csv
    /// and json leave it out (a picture is not data).
    static func writeSummary(_ rows: [ColumnSummary], to writer: OutputWriter, shape glyphs: PictureGlyphs?) {
        writer.write(Row(cells: ColumnSummary.header(withShape: glyphs != nil)))
        for row in rows { writer.write(Row(cells: row.cells(shape: glyphs))) }
    }
}

extension Row {
    /// This row with `cells` added after its own.
    func appending(_ cells: [String]) -> Row {
        var row = self
        for cell in cells {
            row.bytes.append(contentsOf: Array(cell.utf8))
            row.ends.append(row.bytes.count)
        }
        return row
    }
}
