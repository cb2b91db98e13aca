#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Dispatch
import Export
import Query
import Synchronization
import Table
import Viewer

/// What the command line asks of anything written instead of viewed: how the inputs are
/// read, the format, the header rows, and the widest a table's cell may be.
struct OutputRequest {
    var reading: InputSettings
    var format: OutputFormat
    var headerRows: Int
    var maximumWidth: Int?
}

/// The non-interactive path: stream the input into a text format on stdout.
enum Output {
    /// Writes the whole input; returns the exit status.
    static func write(path: String?, _ request: OutputRequest) -> Int32 {
        // A reader that goes away (`| head`) ends the output quietly, not with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        var writer: OutputWriter?
        var dialect: Dialect?
        do {
            let reading = request.reading
            let summary = try RecordStream.forEach(reading.spec(path), started: { start in
                dialect = start.dialect
                writer = OutputWriter(format: request.format, lineEnding: start.dialect.lineEnding, headerRows: request.headerRows,
                                      byteOrderMark: start.hasByteOrderMark, preamble: start.preamble,
                                      maximumWidth: request.maximumWidth,
                                      sink: writeToStandardOutput)
                // JSON streamed: a column's type is known only at the input's end, so its
                // values go back as strings, but a null stays a null (not `""`).
                if start.isJSON { writer?.cellTypes = [] }
            }) { row in
                writer?.write(row) ?? false
            }
            if let failure = writer?.failure { fail("\(inputName(path)): \(failure)", status: 1) }
            writer?.finish(endsWithTerminator: summary.endsWithTerminator)
            checkStandardOutput()
            noteStart(in: dialect, of: inputName(path))
            if let damage = summary.damage {
                // Everything before the damage is written; say where it stopped.
                fail("\(inputName(path)): \(damage)", status: 1)
            }
            return 0
        } catch {
            fail(error.description, status: 1)
        }
    }

    /// The input as messages name it: its path, or `stdin` (also for `-`), as the store names it.
    static func inputName(_ path: String?) -> String {
        guard let path, path != "-" else { return "stdin" }
        return path
    }
    /// Why writing to standard output last failed (an errno), 0 while it works.
    static let standardOutputError = Atomic<Int32>(0)

    static func writeToStandardOutput(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + done, bytes.count - done) }
            if count <= 0 {
                if count < 0 && errno == EINTR { continue }
                standardOutputError.store(count < 0 ? errno : ENOSPC, ordering: .relaxed)
                return false
            }
            done += count
        }
        return true
    }

    /// Ends a path that wrote to standard output: a write that failed (a full disk, a
    /// closed descriptor) is one line and exit status 1 (`failureStatus`: a diff's is 2,
    /// its trouble), never a quiet 0. A reader that
    /// went away (`| head`) is not a failure.
    static func checkStandardOutput(failureStatus: Int32 = 1) {
        let code = standardOutputError.load(ordering: .relaxed)
        guard code != 0, code != EPIPE else { return }
        fail("cannot write the output: \(String(cString: strerror(code)))", status: failureStatus)
    }
}

// MARK: The export pipeline

extension Output {
    /// True when `path` is a regular file that the export pipeline reads through a store
    /// (plain, or gzip read through its access points): its unchanged records can then leave
    /// as their own bytes. Standard input, FIFOs and formats that would be spooled to disk
    /// are streamed instead, in constant memory and disk.
    static func readsThroughStore(_ path: String?) -> Bool {
        guard let path, path != "-" else { return false }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return false }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var prefix = [UInt8](repeating: 0, count: 8)
        let count = prefix.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, 8) }
        let compression = Compression.detect(prefix.prefix(max(0, count)), isWhole: count < 8)
        return compression == nil || compression == .gzip
    }

    /// True when standard input holding JSON is written as JSON: read through a store (as the
    /// viewer does) for its columns' types, known only at the end, to write them as a file's.
    static func keepsJSONTypes(_ path: String?, _ format: OutputFormat) -> Bool {
        guard format == .json || format == .jsonl, path == nil || path == "-" else { return false }
        return StandardInput.mayHoldJSON()
    }

    /// Writes the rows that `query` keeps (all of them without one), in its order, with its
    /// columns; returns the exit status. The sort and the filters are the viewer's engine
    /// (`Query`), run over a store of the input, and the rows leave through the export
    /// pipeline (`Exporter`), as Ctrl-S writes them: memory stays bounded whatever the
    /// input's size, and records written whole leave as their own bytes.
    static func write(path: String?, _ request: OutputRequest, query: QueryOptions?) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let store: CellStore
        let sorts = query?.sorts ?? []
        do {
            // Sorted rows are read a window at a time from all over the input: a spool serves
            // that from the page cache, where gzip's access points would inflate for each window.
            store = try request.reading.open(path, readsAtRandom: !sorts.isEmpty)
        } catch {
            fail(error.description, status: 1)
        }
        return write(store: store, name: inputName(path), request, query: query)
    }

    /// Writes the rows of `store` (read from the input named `name`, with the edits its
    /// patch holds, if any) that `query` keeps, as `write(path:_:query:)` does.
    static func write(store: CellStore, name: String, _ request: OutputRequest, query: QueryOptions?) -> Int32 {
        // JSON: keys first met past the first records name columns after the header's end;
        // the header written names them all, so it waits for the whole input's keys.
        store.waitForIndex { store.isComplete || store.dialect != nil }
        if store.jsonReport != nil { store.waitForIndex { store.isComplete } }
        let sorts = query?.sorts ?? []
        var resolved = QueryOptions.Resolved()
        // JSON lines' keys for chosen columns: the names --columns knew them by.
        var keys: [String]?
        var sorted: SortedRecords?
        var filtered: FilteredRecords?
        if let query, query.isActive {
            // The header, and enough rows to judge the sort's column kinds.
            let wanted = request.headerRows + (sorts.isEmpty ? 0 : ColumnKind.reach)
            store.waitForIndex { store.rowCount >= max(1, wanted) }
            if let failure = store.progress.failure, store.rowCount == 0 { fail("\(name): \(failure)", status: 1) }
            let names = ColumnNames(header: request.headerRows > 0 ? store.row(0) : nil)
            do {
                resolved = try query.resolve(names: names, columnCount: max(store.columnCount, store.patch.widest))
            } catch {
                fail(error.description, status: 2)
            }
            if let columns = resolved.columns {
                keys = columns.map { names[$0] }
                // As on screen: a filter looks only at the columns written.
                for index in resolved.filters.indices where resolved.filters[index].column == nil {
                    resolved.filters[index].columns = columns
                }
            }
            sorted = resolved.keys.isEmpty ? nil
                : SortedRecords.start(store: store, headerRows: request.headerRows, keys: resolved.keys)
            do {
                filtered = resolved.filters.isEmpty ? nil
                    : try FilteredRecords.start(store: store, headerRows: request.headerRows, filters: resolved.filters, over: sorted,
                                                decidesFromRawBytes: true)
            } catch {
                fail(error.description, status: 2)
            }
        }
        var plan = ExportPlan(readers: store.recordReaders, headerRows: request.headerRows, rows: filtered ?? sorted,
                              columns: resolved.columns, name: name)
        plan.yieldsToInteractiveThreads = false
        // Read from JSON: numbers, true/false and nested values go back bare.
        let cellTypes = store.jsonReport.map { json in
            let types = json.valueTypes
            return resolved.columns.map { columns in columns.map { $0 < types.count ? types[$0] : .text } } ?? types
        }
        let outcome = Exporter.run(plan, to: ExportSink(descriptor: 1)) { start, hand in
            let writer = OutputWriter(format: request.format, lineEnding: start.dialect.lineEnding, headerRows: request.headerRows,
                                      byteOrderMark: start.hasByteOrderMark, preamble: start.preamble,
                                      maximumWidth: request.maximumWidth, keys: keys, sink: hand)
            writer.cellTypes = cellTypes
            return writer
        }
        if outcome.readerLeft { return 0 }
        noteStart(in: store.dialect, of: name)
        if let failure = outcome.failure { fail(failure, status: 1) }
        if case .failed(let why) = sorted?.phase { fail(why, status: 1) }
        if let why = filtered?.failure { fail(why, status: 1) }
        if let damage = outcome.damage { fail("\(name): \(damage)", status: 1) }
        return 0
    }
}
