#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import Insight
import Query
import Scan
import Table
import Viewer

/// `--frequency` and `--summary`: count over the whole input, then write a small table.
enum InsightOutput {
    /// Runs the mode `options` asks for over the input; returns the exit status.
    static func run(_ options: InsightOptions, path: String?, delimiter: UInt8?, quote: UInt8?, preamble: PreambleRule,
                    spoolLimit: SpoolLimit, headerRows: Int, format: OutputFormat, query: QueryOptions,
                    maximumWidth: Int? = nil) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let store: CellStore
        do {
            store = try CellStore.open(path: path, delimiter: delimiter, quote: quote, preamble: preamble, spoolLimit: spoolLimit)
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
        guard let input = ScanInput(store: store) else {
            if let failure = progress.failure { fail("\(store.name): \(failure)", status: 1) }
            return 0   // no input at all: nothing to count
        }
        let columns = store.columnCount
        let header = headerRows > 0 ? store.row(0)?.strings ?? [] : []
        let names = (0..<columns).map { $0 < header.count && !header[$0].isEmpty ? header[$0] : String($0 + 1) }
        // --filter and its kin: count only the records they keep (the viewer's filter engine).
        var records: (any RecordSequence)?
        if query.isActive {
            do {
                let filters = try query.resolve(names: header, columnCount: columns).filters
                if !filters.isEmpty { records = try FilteredRecords.start(store: store, headerRows: headerRows, filters: filters) }
            } catch let problem as QueryOptions.Problem {
                fail(problem.description, status: 2)
            } catch {
                fail("\(error)", status: 2)
            }
        }
        let writer = OutputWriter(format: format, headerRows: 1, maximumWidth: maximumWidth, sink: Output.writeToStandardOutput)
        if let reference = options.frequency {
            let column: Int
            do {
                column = try ColumnReference(reference).resolve(in: header, columns: columns)
            } catch {
                fail(error.description, status: 2)
            }
            let count = FrequencyCount(input: input, column: column, headerRows: headerRows, records: records)
            count.wait()
            guard case .finished(let table) = count.status else { return 1 }
            writeFrequency(table, format: format, to: writer)
        } else {
            let scan = SummaryScan(input: input, names: names, headerRows: headerRows, records: records)
            scan.wait()
            guard case .finished(let rows) = scan.status else { return 1 }
            writeSummary(rows, to: writer)
        }
        writer.finish()
        if let failure = store.progress.failure {
            // Everything before the damage was counted; say where it stopped.
            fail("\(store.name): \(failure)", status: 1)
        }
        return 0
    }

    static func percent(_ value: Double) -> String { FrequencyRow.text(ofPercent: value) }

    static func writeFrequency(_ table: FrequencyTable, format: OutputFormat, to writer: OutputWriter) {
        let shown = format == .table
        writer.write(Row(cells: ["value", "count", "percent"]))
        for row in table.rows {
            let value = shown && row.value.isEmpty ? "(empty)" : row.text
            writer.write(Row(bytes: shown ? Array(value.utf8) : row.value, ends: [shown ? value.utf8.count : row.value.count])
                .appending(["\(row.count)", percent(row.percent)]))
        }
        guard !table.isExact else { return }
        let note = table.areAllUnique ? "all \(table.total) values are unique (≈\(table.distinct) estimated)"
            : "≈\(table.distinct) distinct values: each value not listed occurs at most \(table.unlistedAtMost) times"
              + " (\(table.unlistedCount) records in all)"
        if shown {
            writer.write(Row(cells: ["(other values, ≈\(table.distinct - table.rows.count))", "\(table.unlistedCount)",
                                     percent(Double(table.unlistedCount) * 100 / Double(max(1, table.total)))]))
        }
        // Machine formats keep their rows to true values; the estimate goes to stderr.
        let line = Array("csvfreeze: \(note)\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    static func writeSummary(_ rows: [ColumnSummary], to writer: OutputWriter) {
        writer.write(Row(cells: ColumnSummary.header))
        for row in rows { writer.write(Row(cells: row.cells)) }
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
