import CellStore
import CSQLite

/// An SQLite connection with a virtual table over each input, in bounded memory, that
/// may only read.
///
/// The connection is opened read only, on an in-memory database of its own (no file
/// name a query could choose, no URI): the tables live in its temporary schema, made
/// before `ReadOnlyGuard` is installed; from then on SQLite's authorizer refuses every
/// statement that would write, create, attach or change a setting, and a statement SQLite
/// calls not read-only (VACUUM) is refused before it runs. Its temporary store is on disk,
/// with a page cache of `settings.cacheKiB`, so a large sort spills to `$TMPDIR` instead of
/// growing in memory. SQLite's memory is bounded (see `MemoryWatch`): a statement stops
/// with one line once SQLite holds more than `settings.memoryLimit`, no value may be longer
/// than twice that (`SQLITE_LIMIT_LENGTH`), and no allocation may take SQLite past
/// `heapLimit`. The inputs are only ever read.
package final class SQLDatabase {
    let db: OpaquePointer
    private let module: UnsafeMutablePointer<sqlite3_module>
    private let registry: TableRegistry
    private let guardian = ReadOnlyGuard()
    private let watch: MemoryWatch
    let control: QueryControl
    /// The tables, in the order of the inputs, with their columns.
    package let tables: [(name: String, columns: [String])]
    /// The tables and views of the attached databases, as `schema.name`.
    package private(set) var attachedTables: [String] = []

    /// The most memory SQLite may hold in this process, all connections together
    /// (`sqlite3_hard_heap_limit64`): twice the default `SQLSettings.memoryLimit`, so that
    /// an allocation fails only where a statement leaps past the limit in one step, before
    /// the memory watch can see it.
    package static let heapLimit = 2 * SQLSettings().memoryLimit

    /// Sets SQLite's heap limit, once for the process.
    static let limitsHeap: Bool = {
        _ = sqlite3_hard_heap_limit64(sqlite3_int64(heapLimit))
        return true
    }()

    /// Opens a connection with a table for each of `inputs` (their names must differ,
    /// ignoring case).
    package convenience init(inputs: [SQLInput], settings: SQLSettings = SQLSettings(),
                             databases: [(schema: String, path: String)] = [],
                             aliases: [(name: String, schema: String, table: String)] = []) throws(SQLError) {
        try self.init(inputs: inputs, settings: settings, control: QueryControl(), databases: databases, aliases: aliases)
    }

    /// A connection whose statements `control` stops (it may be cancelled before the
    /// connection is made: its first statement then stops at once). Each input's column
    /// types are judged first, from its first records (`ColumnTypes`), waiting for the
    /// index to reach them if it must.
    ///
    /// Each of `databases` (SQLite files) is attached read only and immutable under its
    /// schema name before the guard is installed: its tables and views are read by SQLite
    /// itself, by their own names (`orders`) or the schema's (`shop.orders`), beside the
    /// inputs' tables, and nothing can attach, write or create afterwards.
    /// Each of `aliases` is a view in the temporary schema over an attached database's
    /// table (`t` for the table on screen).
    init(inputs: [SQLInput], settings: SQLSettings, control: QueryControl,
         databases: [(schema: String, path: String)] = [], aliases: [(name: String, schema: String, table: String)] = []) throws(SQLError) {
        self.control = control
        control.watch(inputs.map(\.readers.changes))
        // An input under two names (t and its stem) is judged once.
        var judged: [(changes: ChangeSignal, types: [SQLColumnType])] = []
        var types: [[SQLColumnType]] = []
        for input in inputs {
            if let known = judged.first(where: { $0.changes === input.readers.changes }) {
                types.append(known.types)
                continue
            }
            let made = try ColumnTypes.judge(input, control: control)
            judged.append((input.readers.changes, made))
            types.append(made)
        }
        _ = SQLDatabase.limitsHeap
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
            | (databases.isEmpty ? 0 : SQLITE_OPEN_URI)
        let opened = sqlite3_open_v2(":memory:", &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open SQLite"
            sqlite3_close_v2(handle)
            throw .engine(message)
        }
        db = handle
        module = VirtualTableModule.make()
        registry = TableRegistry(inputs: inputs, types: types, settings: settings, control: control)
        tables = inputs.map { ($0.name, $0.columns) }
        watch = MemoryWatch(control: control, limit: settings.memoryLimit)
        guard cf_sql_lock_down(db) == SQLITE_OK else { throw .engine("cannot make SQLite read only") }
        sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, Int32(databases.count))
        // Longer than the memory watch's limit: an aggregate that reaches the length limit
        // stops growing but not running (group_concat says so only at its end), so the
        // watch must see the memory first.
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32(clamping: 2 * settings.memoryLimit))
        let cache = -max(64, settings.cacheKiB)
        try execute("PRAGMA temp_store = FILE; PRAGMA cache_size = \(cache); PRAGMA temp.cache_size = \(cache); PRAGMA trusted_schema = OFF")
        guard sqlite3_create_module_v2(db, "csvfreeze", module, Unmanaged.passUnretained(registry).toOpaque(), nil) == SQLITE_OK else {
            throw .engine(String(cString: sqlite3_errmsg(db)))
        }
        for (index, input) in inputs.enumerated() {
            try execute("CREATE VIRTUAL TABLE temp.\(SQLNames.quoted(input.name)) USING csvfreeze(\(index))")
        }
        var attached: [String] = []
        if !databases.isEmpty {
            // A database's views are its tables too (cf_sql_lock_down turned views off).
            _ = cf_sql_enable_views(db, 1)
            for database in databases {
                // Percent-encoded: no quote in it.
                let uri = DatabaseConnection.uri(database.path)
                do {
                    try execute("ATTACH DATABASE '\(uri)' AS \(SQLNames.quoted(database.schema))")
                } catch {
                    let text = error.description
                    throw .input(database.path + ": " + (text == "file is not a database" ? "not a SQLite database, or encrypted" : text))
                }
                attached += try names(inSchema: database.schema, path: database.path).map { database.schema + "." + $0 }
            }
        }
        attachedTables = attached
        for alias in aliases {
            try execute("CREATE TEMP VIEW \(SQLNames.quoted(alias.name)) AS SELECT * FROM \(SQLNames.quoted(alias.schema)).\(SQLNames.quoted(alias.table))")
        }
        // SQLite makes a pragma's table function (`pragma_table_info('t')`) the first time
        // one is named, and asks the authorizer to write its schema for that: they are made
        // now, so that the pragma each runs is what the authorizer judges.
        for pragma in try pragmaNames() {
            var statement: OpaquePointer?
            _ = sqlite3_prepare_v2(db, "SELECT * FROM pragma_\(pragma)", -1, &statement, nil)
            sqlite3_finalize(statement)
        }
        guardian.install(on: db)
        // Checked every thousand steps of SQLite's machine: cancel() stops any statement soon,
        // and so does SQLite's memory past the limit.
        sqlite3_progress_handler(db, 1000, { context in
            guard let context else { return 0 }
            return Unmanaged<MemoryWatch>.fromOpaque(context).takeUnretainedValue().shouldStop ? 1 : 0
        }, Unmanaged.passUnretained(watch).toOpaque())
    }

    deinit {
        sqlite3_progress_handler(db, 0, nil, nil)
        sqlite3_set_authorizer(db, nil, nil)
        sqlite3_close_v2(db)
        module.deinitialize(count: 1)
        module.deallocate()
        _ = registry
        _ = guardian
        _ = watch
    }

    /// The tables and views of attached schema `schema` (the file at `path`): reading its
    /// schema is where a file that is not a database, or is damaged, says so.
    private func names(inSchema schema: String, path: String) throws(SQLError) -> [String] {
        var statement: OpaquePointer?
        let sql = "SELECT name FROM \(SQLNames.quoted(schema)).sqlite_schema WHERE type IN ('table', 'view') "
            + "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid"
        var status = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var names: [String] = []
        while status == SQLITE_OK || status == SQLITE_ROW {
            status = sqlite3_step(statement)
            if status == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) { names.append(String(cString: text)) }
        }
        guard status == SQLITE_DONE else {
            if status & 0xFF == SQLITE_NOTADB { throw .input(path + ": not a SQLite database, or encrypted") }
            throw .input(path + ": " + String(cString: sqlite3_errmsg(db)))
        }
        return names
    }

    /// The pragmas the linked SQLite knows (`PRAGMA pragma_list`).
    private func pragmaNames() throws(SQLError) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA pragma_list", -1, &statement, nil) == SQLITE_OK, let statement else {
            throw .engine(String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        var names: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            guard let text = sqlite3_column_text(statement, 0) else { continue }
            let name = String(cString: text)
            if name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || $0 == 0x5F }) { names.append(name) }
        }
        return names
    }

    /// Runs `sql` (statements with no answer: setup) to its end.
    func execute(_ sql: String) throws(SQLError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw error(status: status, message: message.map { String(cString: $0) })
        }
    }

    /// Prepares `sql`: every statement but the last is run to its end, and the last one's
    /// answer is returned, to be stepped by the caller.
    package func prepare(_ sql: String) throws(SQLError) -> QueryAnswer {
        control.reset()
        return try prepareKeepingControl(sql)
    }

    /// `prepare` without making the control ready again: a cancel that came before stops
    /// the statements (for an answer stopped by its owner before it was prepared).
    func prepareKeepingControl(_ sql: String) throws(SQLError) -> QueryAnswer {
        registry.collations.note(sql)
        let bytes = Array(sql.utf8) + [0]
        return try bytes.withUnsafeBufferPointer { buffer throws(SQLError) -> QueryAnswer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var start = base
            var last: OpaquePointer?
            while true {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                guardian.reset()
                let status = sqlite3_prepare_v2(db, start, -1, &statement, &tail)
                guard status == SQLITE_OK else {
                    // The message first: finalizing the statement before resets it.
                    let failure = error(status: status, statement: start)
                    sqlite3_finalize(last)
                    throw failure
                }
                if let statement, sqlite3_stmt_readonly(statement) == 0 {
                    // One the authorizer is not asked about (VACUUM): SQLite says it writes.
                    sqlite3_finalize(statement)
                    sqlite3_finalize(last)
                    throw .refused(ReadOnlyGuard.firstWord(at: start))
                }
                let rest = tail.map { SQLDatabase.skippingBlanks(from: $0) } ?? start
                guard let statement else {
                    // Only blanks and comments were left.
                    guard let last else { throw .query("no SQL statement in '\(sql)'") }
                    return QueryAnswer(statement: last, database: self)
                }
                if let previous = last { sqlite3_finalize(previous) }
                last = statement
                if rest.pointee == 0 { return QueryAnswer(statement: statement, database: self) }
                // Not the last: run it to its end (what it made is there for the next one).
                var stepped = sqlite3_step(statement)
                while stepped == SQLITE_ROW { stepped = sqlite3_step(statement) }
                guard stepped == SQLITE_DONE else {
                    let failure = error(status: stepped)
                    sqlite3_finalize(statement)
                    throw failure
                }
                start = rest
            }
        }
    }

    /// Past spaces, semicolons and comments (`--` to the line's end, `/* */`).
    static func skippingBlanks(from start: UnsafePointer<CChar>) -> UnsafePointer<CChar> {
        var pointer = start
        while true {
            switch UInt8(bitPattern: pointer.pointee) {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x3B:
                pointer += 1
            case 0x2D where UInt8(bitPattern: pointer[1]) == 0x2D:
                while pointer.pointee != 0 && pointer.pointee != 0x0A { pointer += 1 }
            case 0x2F where UInt8(bitPattern: pointer[1]) == 0x2A:
                pointer += 2
                while pointer.pointee != 0 && !(pointer.pointee == 0x2A && pointer[1] == 0x2F) { pointer += 1 }
                if pointer.pointee != 0 { pointer += 2 }
            default:
                return pointer
            }
        }
    }

    /// The error for SQLite status `status`, on one line, with the names that help when
    /// a table or column is not found; `statement` is where the statement being prepared
    /// starts (a refusal may be named by its first word).
    func error(status: Int32, message: String? = nil, statement: UnsafePointer<CChar>? = nil) -> SQLError {
        if let noted = control.noted { return noted }
        if control.isCancelled && (status == SQLITE_INTERRUPT || status == SQLITE_ERROR) { return .cancelled }
        if status & 0xFF == SQLITE_AUTH || guardian.hasRefused {
            return .refused(guardian.refusedWhat(statement: statement.map(ReadOnlyGuard.firstWord(at:)) ?? "the statement"))
        }
        var text = (message ?? String(cString: sqlite3_errmsg(db))).split(whereSeparator: \.isNewline).joined(separator: " ")
        switch status & 0xFF {
        case SQLITE_TOOBIG, SQLITE_NOMEM:
            return .query(watch.message)
        case SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_CORRUPT:
            return .engine(text)
        default:
            if text.hasPrefix("no such table") {
                text += " (tables: " + (tables.map(\.name) + attachedTables).joined(separator: ", ") + ")"
            } else if text.hasPrefix("no such column") {
                let shown = tables.prefix(3).map { table in
                    "\(table.name): " + table.columns.prefix(12).joined(separator: ", ") + (table.columns.count > 12 ? ", …" : "")
                }
                text += " (columns of " + shown.joined(separator: "; ") + (tables.count > 3 ? "; …" : "") + ")"
            }
            return .query(text)
        }
    }
}

/// What the progress handler looks at: whether the statement is cancelled, and whether
/// SQLite holds more memory than a query may take (`sqlite3_memory_used`, for the whole
/// process: one query runs at a time). Past the limit the statement stops with
/// `message`: a runaway `group_concat` stops in a few seconds, not at the machine's end.
final class MemoryWatch {
    let control: QueryControl
    let limit: Int

    init(control: QueryControl, limit: Int) {
        self.control = control
        self.limit = limit
    }

    /// The error of a statement stopped here, or one whose value grew past the length
    /// limit or whose allocation SQLite's heap limit refused.
    var message: String {
        "the query needs more than \(limit >> 20) MiB of memory in SQLite, the most SQL may take"
    }

    /// True when the statement is to stop (on the connection's thread).
    var shouldStop: Bool {
        if control.isCancelled { return true }
        guard sqlite3_memory_used() > Int64(limit) else { return false }
        control.note(.query(message))
        return true
    }
}
