#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CellStore
import Export
import SQL
import Viewer

/// Runs `--sql` over the inputs and writes the answer.
enum SQLOutput {
    /// Opens every input, waits for their indexes, runs `query`; returns the exit status:
    /// 0, 65 for a query SQLite refuses, 1 when an input cannot be read.
    /// `table` (`--table`) names the table of a first input that is a database which `t`
    /// is; without it `t` is that database's table when it has one only.
    static func run(_ query: String, paths: [String?], _ request: OutputRequest, table: String? = nil) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        if paths.filter({ $0 == nil || $0 == "-" }).count > 1 { csvfreeze.fail("standard input ('-') can be given once", status: 2) }
        var stores: [CellStore] = []
        // A database is attached as it is (SQLite reads it); the other inputs are tables
        // read through csvfreeze's index. Each is named by its file name all the same.
        let allNames = SQLNames.tableNames(forPaths: paths)
        // Standard input holding a database or a workbook is read from a private copy, as
        // the viewer reads it (`TableInputs.gather`); its tables keep stdin's names, and
        // messages name stdin, not the copy.
        let (paths, copy) = readingStandardInputFromCopy(paths, limit: request.reading.spec(nil).spoolLimit)
        func shown(_ message: String) -> String { copy.map { message.replacing($0, with: "stdin") } ?? message }
        func fail(_ message: String, status: Int32) -> Never { csvfreeze.fail(shown(message), status: status) }
        func warn(_ message: String) { say(shown(message)) }
        var databases: [(schema: String, path: String)] = []
        var textPaths: [String?] = []
        var textNames: [[String]] = []
        for (path, names) in zip(paths, allNames) {
            if let path, path != "-", (try? InputSpec.Format.detect(path: path)) == .sqlite {
                databases.append((names[names.count - 1], path))
            } else {
                textPaths.append(path)
                textNames.append(names)
            }
        }
        // `t`, when the first input is a database: the table --table names, or its only one.
        var aliases: [(name: String, schema: String, table: String)] = []
        if let first = databases.first, first.path == paths.first {
            do {
                let tables = try DatabaseCatalog.tables(path: first.path)
                if let table {
                    guard let found = DatabaseCatalog.table(named: table, in: tables) else {
                        fail(DatabaseCatalog.missing(table, path: first.path, tables: tables).description, status: 1)
                    }
                    aliases.append(("t", first.schema, found.name))
                } else if tables.count == 1, let only = tables.first {
                    aliases.append(("t", first.schema, only.name))
                }
            } catch {
                fail(error.description, status: 1)
            }
        }
        for (argument, path) in paths.enumerated() where textPaths.contains(path) {
            if let line = CSVFreezeCommand.severalSheets(path, table: table) { fail(line, status: 2) }
            do {
                stores.append(try request.reading.open(path, argument: argument))
            } catch {
                fail(error.description, status: 1)
            }
        }
        // The header and the first rows of every input (for the columns); the rest is read
        // as the index reaches it, while the query runs.
        let sampleRows = request.headerRows + 1000
        for (store, path) in zip(stores, textPaths) {
            store.waitForIndex {
                store.prefetch(upTo: sampleRows - 1)
                return store.readRowCount >= sampleRows || store.progress.failure != nil
            }
            // JSON from a file: a key first met past the first records is a column too (as
            // --output names it), so the table's columns wait for every key. (A pipe may
            // never end: its columns are those of its first records.)
            var info = stat()
            if store.jsonReport != nil, let path, stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                store.waitForIndex { store.isComplete }
            }
        }
        var inputs: [SQLInput] = []
        var tables: [(store: CellStore, input: SQLInput)] = []
        for (store, names) in zip(stores, textNames) {
            if let failure = store.progress.failure, store.rowCount == 0 { fail("\(store.name): \(failure)", status: 1) }
            noteStart(in: store.dialect, of: shown(store.name))
            guard let input = SQLInput(store: store, name: names[0], headerRows: request.headerRows) else {
                fail("\(store.name): no records to query", status: 1)
            }
            if input.omittedColumns > 0 {
                warn("\(store.name): SQL sees its first \(input.columns.count.grouped) columns of \((input.columns.count + input.omittedColumns).grouped) (SQLite's limit)")
            }
            inputs += names.map { input.named($0) }
            tables.append((store, input))
        }
        // The answer leaves through the export pipeline, every row of it, a batch at a time.
        // Numbers bare and NULL as null in JSON: JSON tells them from text, as SQL does.
        let answer = AnswerStream(typed: request.format == .json || request.format == .jsonl) { () throws(SQLError) in
            try SQLDatabase(inputs: inputs, databases: databases, aliases: aliases).prepare(query)
        }
        let outcome = Exporter.run(stream: answer, headerRows: 1, name: "the answer", to: ExportSink(descriptor: 1)) { _, hand in
            OutputWriter(format: request.format, headerRows: 1, maximumWidth: request.maximumWidth, sink: hand)
        }
        // Output that could not be written first, as one line; then a statement that stopped.
        if let failure = outcome.failure, !outcome.readerLeft { fail(failure, status: 1) }
        if let error = answer.error { fail(error.description, status: error.isQueryError ? 65 : 1) }
        // Columns SQLite could not take were said before the answer; the status says it too.
        var status: Int32 = tables.contains { $0.input.omittedColumns > 0 } ? 1 : 0
        for (store, input) in tables where input.omittedColumns == 0 && input.widestRecord > input.columns.count {
            // The columns were set from the first rows; a wider record further on has cells
            // the table did not show. Not silently, and not with the status of a whole answer.
            status = 1
            warn("\(store.name): records further on have up to \(input.widestRecord) cells; SQL saw the first \(input.columns.count) columns (as many as the header and the first rows have)")
        }
        for store in stores {
            // Everything before the damage was queried; say where it stopped.
            if let failure = store.progress.failure { fail("\(store.name): \(failure)", status: 1) }
        }
        return status
    }

    /// `paths` with standard input (nil or `-`) replaced by a private copy of it when its
    /// first bytes say a database or a workbook (which SQLite and libzip read from a file),
    /// and that copy's path; `paths` as they are otherwise.
    static func readingStandardInputFromCopy(_ paths: [String?], limit: SpoolLimit) -> (paths: [String?], copy: String?) {
        guard let index = paths.firstIndex(where: { $0 == nil || $0 == "-" }) else { return (paths, nil) }
        let format = StandardInput.detectFormat()
        guard format.needsFile else { return (paths, nil) }
        do {
            let copy = try StandardInput.copyToFile(limit: limit, format: format)
            var replaced = paths
            replaced[index] = copy
            return (replaced, copy)
        } catch {
            fail(error.description, status: 1)
        }
    }
}
