#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Export
import Query
import SQL
import Table
import Viewer

/// A database's table as CSV in a private temporary file, for what reads a CSV store
/// (`--frequency`, `--histogram`, `--summary`): its rows through the export pipeline
/// (NULL as an empty cell, values as the screen shows them), then counted as any CSV is.
enum DatabaseAsCSV {
    /// Writes table `input` (a database's) into a new unlinked file and returns a path that
    /// opens it while the process lives (`/proc/self/fd/N`), or exits with one line.
    static func copy(_ input: TableInput, failing status: Int32 = 1) -> String {
        func fail(_ message: String, status _: Int32) -> Never { csvfreeze.fail(message, status: status) }
        guard let path = input.path, let table = input.table else { fail("\(input.name): not a database's table", status: 1) }
        let rows: DatabaseRows
        do {
            rows = try DatabaseRows(path: path, table: table)
        } catch {
            fail(error.description.replacing(path, with: input.shownPath), status: 1)
        }
        if let note = rows.note { say(note) }
        rows.waitUntilCounted()
        if let failure = rows.failure { fail("\(input.name): \(failure)", status: 1) }
        let descriptor: Int32
        do {
            descriptor = try TemporaryFile.openUnlinked(tag: "table")
        } catch {
            fail(error.message, status: 1)
        }
        guard let snapshot = rows.snapshot() else { return "/proc/self/fd/\(descriptor)" }
        var plan = ExportPlan(snapshot: snapshot, headerRows: 1, name: input.name)
        plan.yieldsToInteractiveThreads = false
        let outcome = Exporter.run(plan, to: ExportSink(descriptor: descriptor)) { start, hand in
            OutputWriter(format: .csv, lineEnding: start.dialect.lineEnding, headerRows: 1, maximumWidth: nil, sink: hand)
        }
        if let failure = outcome.failure { fail("\(input.name): \(failure)", status: 1) }
        if let failure = rows.failure { fail("\(input.name): \(failure)", status: 1) }
        // Kept open (never closed): the path reads it until the process ends, which frees it.
        return "/proc/self/fd/\(descriptor)"
    }

    /// `spec` as a diff reads it: when it names a database, its table (`--table`, or the
    /// only one) copied as CSV and named `shop.db:orders`; else `spec` as it is. A
    /// database that cannot be read, has no such table or several ends with one line
    /// (exit 2, diff's trouble).
    static func diffing(_ spec: InputSpec) -> InputSpec {
        if let line = CSVFreezeCommand.severalSheets(spec.path, table: spec.table) { fail(line, status: 2) }
        guard let path = spec.path, (try? InputSpec.Format.detect(path: path)) == .sqlite else { return spec }
        let gathered = TableInputs.gather([path], table: spec.table)
        if let problem = gathered.problemLine { fail(problem, status: 2) }
        guard gathered.inputs.count == 1, let table = gathered.inputs.first else {
            fail(CSVFreezeCommand.severalTables(path, "tables", names: gathered.inputs.compactMap(\.table)), status: 2)
        }
        var copied = reading(spec)
        copied.location = .file(copy(table, failing: 2))
        copied.shownName = table.name
        return copied
    }

    /// `settings` reading what `copy` wrote.
    static func reading(_ settings: InputSettings) -> InputSettings {
        InputSettings(specs: settings.specs.map(reading))
    }

    /// `spec` reading what `copy` wrote: commas, double quotes, UTF-8, no preamble, once.
    static func reading(_ spec: InputSpec) -> InputSpec {
        var spec = spec
        spec.delimiter = UInt8(ascii: ",")
        spec.quote = UInt8(ascii: "\"")
        spec.encoding = nil
        spec.preamble = .none
        spec.table = nil
        spec.follows = false
        return spec
    }
}

/// Writing a database's table as text (`--output`, or a pipe): its rows read through
/// SQLite in batches, counted first (a view has no estimate), then the export pipeline
/// as for any sheet, with the command line's filters, sort and columns.
enum DatabaseOutput {
    /// Writes table `input` (a database's); returns the exit status.
    static func write(_ input: TableInput, _ request: OutputRequest, query: QueryOptions?) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        guard let path = input.path, let table = input.table else { fail("\(input.name): not a database's table", status: 1) }
        let rows: DatabaseRows
        do {
            rows = try DatabaseRows(path: path, table: table)
        } catch {
            fail(error.description, status: 1)
        }
        if let note = rows.note { say(note) }
        rows.waitUntilCounted()
        if let failure = rows.failure { fail("\(input.name): \(failure)", status: 1) }
        guard let snapshot = rows.snapshot() else { return 0 }
        var resolved = QueryOptions.Resolved()
        var keys: [String]?
        var sorted: SortedRecords?
        var filtered: FilteredRecords?
        if let query, query.isActive {
            let names = ColumnNames(header: rows.row(0))
            do {
                resolved = try query.resolve(names: names, columnCount: rows.columnCount)
            } catch {
                fail(error.description, status: 2)
            }
            if let columns = resolved.columns {
                keys = columns.map { names[$0] }
                for index in resolved.filters.indices where resolved.filters[index].column == nil {
                    resolved.filters[index].columns = columns
                }
            }
            sorted = resolved.keys.isEmpty ? nil : SortedRecords.start(rows: snapshot, headerRows: 1, keys: resolved.keys)
            do {
                filtered = resolved.filters.isEmpty ? nil
                    : try FilteredRecords.start(rows: snapshot, headerRows: 1, filters: resolved.filters, over: sorted)
            } catch {
                fail(error.description, status: 2)
            }
        }
        // The exporter writes a snapshot's view as far as it is made: it is made first.
        for sequence in [filtered as (any RecordSequence)?, sorted].compactMap({ $0 }) {
            while true {
                let version = sequence.changes.version
                if sequence.isComplete { break }
                sequence.changes.wait(past: version)
            }
        }
        var plan = ExportPlan(snapshot: snapshot, headerRows: 1, rows: filtered ?? sorted, columns: resolved.columns, name: input.name)
        plan.yieldsToInteractiveThreads = false
        let outcome = Exporter.run(plan, to: ExportSink(descriptor: 1)) { start, hand in
            OutputWriter(format: request.format, lineEnding: start.dialect.lineEnding, headerRows: 1,
                         maximumWidth: request.maximumWidth, keys: keys, sink: hand)
        }
        if outcome.readerLeft { return 0 }
        if let failure = outcome.failure { fail(failure, status: 1) }
        if case .failed(let why) = sorted?.phase { fail(why, status: 1) }
        if let why = filtered?.failure { fail(why, status: 1) }
        if let failure = rows.failure { fail("\(input.name): \(failure)", status: 1) }
        return 0
    }
}
