#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Export
import Query
import Table

/// Several inputs written as one table, one after another, as `csvstack` does: one
/// header, a first column naming each record's input, and where the headers differ, the
/// union of their columns by name (first seen first) with empty cells where an input
/// lacks one. `--filter`, `--sort` and `--columns` name the columns of that one table.
///
/// Each input is read through its own store and the query engine (`StackedPart`), and the
/// rows (`StackedStream`: one input after another, or each sorted by itself and merged)
/// leave through the export pipeline.
enum StackedOutput {
    /// What the command line asks of the output.
    struct Settings {
        var request: OutputRequest
        var query: QueryOptions
        /// The name of the column naming each record's input; nil leaves it out.
        var sourceColumn: String?
    }

    /// Writes `inputs` as one table on stdout; returns the exit status.
    static func write(inputs: [TableInput], settings: Settings) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let headerRows = settings.request.headerRows
        let sorts = !settings.query.sorts.isEmpty
        /// The output once begun: written out before an error ends the run (no record lost).
        var begun: OutputWriter?
        func halt(_ message: String, status: Int32) -> Never {
            begun?.finish()
            fail(message, status: status)
        }
        func open(_ input: TableInput) -> CellStore {
            do {
                return try settings.request.reading.open(input, readsAtRandom: sorts)
            } catch {
                halt(error.description, status: 1)
            }
        }
        func waitFor(rows wanted: Int, in store: CellStore, of input: TableInput) {
            store.waitForIndex { store.rowCount >= max(1, wanted) }
            if let failure = store.progress.failure, store.rowCount == 0 { halt("\(input.name): \(failure)", status: 1) }
        }

        // Every input's header first, to know the columns; each is closed again (what is
        // read once is read again from its spool: see `SharedStream`).
        var headers: [[Row]] = []
        var widest = 0
        var lineEnding: [UInt8]?
        for input in inputs {
            let store = open(input)
            waitFor(rows: headerRows, in: store, of: input)
            headers.append((0..<min(headerRows, store.rowCount)).compactMap { store.row($0) })
            widest = max(widest, store.columnCount)
            if lineEnding == nil { lineEnding = store.dialect?.lineEnding }
            noteStart(in: store.dialect, of: input.name)
            store.stopLoading()
        }
        let columns = StackedColumns(headers: headers, headerRows: headerRows)
        let names = columns.isPositional ? ColumnNames(header: headers.first?.first) : ColumnNames(columns.names)
        let resolved: QueryOptions.Resolved
        do {
            resolved = try settings.query.resolve(names: names,
                                                  columnCount: columns.isPositional ? max(widest, columns.names.count) : columns.names.count)
        } catch {
            fail(error.description, status: 2)
        }

        let sourceKey = settings.sourceColumn.map { [$0] } ?? []
        // The columns written, and the names the table gives them.
        let written = resolved.columns ?? Array(0..<(columns.isPositional ? max(widest, columns.names.count) : columns.names.count))
        if let sourceName = settings.sourceColumn,
           let clash = columns.clash(of: sourceName, with: written, names: names, headers: headers, headerRows: headerRows,
                                     chosen: resolved.columns != nil) {
            let owner = clash.input.map { " of \(inputs[$0].name)" } ?? ""
            fail("'\(sourceName)', the name of the column naming each record's input, is also a column\(owner): "
                 + "--source-column NAME picks another, --no-source-column leaves it out", status: 2)
        }
        // JSON lines key each column by the name the table gives it, the source column by
        // its own (the header row written, the source cell first, would name them again);
        // without a header, the input's columns are `column N` by their place in the input.
        let chosenKeys = resolved.columns?.map { headerRows == 0 ? ColumnNames.numbered($0) : names[$0] }
        let keys: [String]?
        if headerRows == 0 {
            keys = !(sourceKey + (chosenKeys ?? [])).isEmpty ? sourceKey + (chosenKeys ?? []) : nil
        } else {
            keys = sourceKey.isEmpty && chosenKeys == nil ? nil : sourceKey + (chosenKeys ?? written.map { names[$0] })
        }
        let parts = inputs.indices.map { index in
            StackedPart(name: inputs[index].name, index: index, columns: columns, filters: resolved.filters, keys: resolved.keys,
                        headerRows: headerRows)
        }
        let stream = StackedStream(parts: parts, columns: columns, chosen: resolved.columns, sourceColumn: settings.sourceColumn,
                                   headers: headers, headerRows: headerRows, keys: resolved.keys,
                                   start: { part, kinds in
                                       let store = open(inputs[part.index])
                                       part.start(store: store, kinds: &kinds, halt: halt) { wanted in
                                           waitFor(rows: wanted, in: store, of: inputs[part.index])
                                       }
                                   }, halt: halt)
        let outcome = Exporter.run(stream: stream, headerRows: headerRows, name: "the inputs", to: ExportSink(descriptor: 1)) { _, hand in
            let writer = OutputWriter(format: settings.request.format, lineEnding: lineEnding ?? [0x0A], headerRows: headerRows,
                                      maximumWidth: settings.request.maximumWidth, keys: keys, keysLead: sourceKey.count, sink: hand)
            begun = writer
            return writer
        }
        if let why = stream.failure { fail(why, status: 1) }
        if let failure = outcome.failure, !outcome.readerLeft { fail(failure, status: 1) }
        return 0
    }
}
