import CellStore
import CSQLite

/// An SQLite connection with a virtual table over each input, in bounded memory.
///
/// The connection's own database is a private temporary file (SQLite deletes it when the
/// connection closes) and its temporary store is on disk too, both in `$TMPDIR`, each
/// with a page cache of `settings.cacheKiB`: a large sort or a `CREATE TABLE … AS` spills
/// there instead of growing in memory. The inputs are only ever read.
package final class SQLDatabase {
    let db: OpaquePointer
    private let module: UnsafeMutablePointer<sqlite3_module>
    private let registry: TableRegistry
    let control: QueryControl
    /// The tables, in the order of the inputs, with their columns.
    package let tables: [(name: String, columns: [String])]

    /// Opens a connection with a table for each of `inputs` (their names must differ,
    /// ignoring case).
    package convenience init(inputs: [SQLInput], settings: SQLSettings = SQLSettings()) throws(SQLError) {
        try self.init(inputs: inputs, settings: settings, control: QueryControl())
    }

    /// A connection whose statements `control` stops (it may be cancelled before the
    /// connection is made: its first statement then stops at once).
    init(inputs: [SQLInput], settings: SQLSettings, control: QueryControl) throws(SQLError) {
        self.control = control
        control.watch(inputs.map(\.readers.changes))
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        let opened = sqlite3_open_v2("", &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open SQLite"
            sqlite3_close_v2(handle)
            throw .engine(message)
        }
        db = handle
        module = VirtualTableModule.make()
        registry = TableRegistry(inputs: inputs, settings: settings, control: control)
        tables = inputs.map { ($0.name, $0.columns) }
        _ = cf_sql_defensive(db)
        let cache = -max(64, settings.cacheKiB)
        try execute("PRAGMA temp_store = FILE; PRAGMA cache_size = \(cache); PRAGMA temp.cache_size = \(cache); PRAGMA trusted_schema = OFF")
        guard sqlite3_create_module_v2(db, "csvfreeze", module, Unmanaged.passUnretained(registry).toOpaque(), nil) == SQLITE_OK else {
            throw .engine(String(cString: sqlite3_errmsg(db)))
        }
        for (index, input) in inputs.enumerated() {
            try execute("CREATE VIRTUAL TABLE temp.\(SQLNames.quoted(input.name)) USING csvfreeze(\(index))")
        }
        // Checked every thousand steps of SQLite's machine: cancel() stops any statement soon.
        sqlite3_progress_handler(db, 1000, { context in
            guard let context else { return 0 }
            return Unmanaged<QueryControl>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
        }, Unmanaged.passUnretained(control).toOpaque())
    }

    deinit {
        sqlite3_progress_handler(db, 0, nil, nil)
        sqlite3_close_v2(db)
        module.deinitialize(count: 1)
        module.deallocate()
        _ = registry
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
                let status = sqlite3_prepare_v2(db, start, -1, &statement, &tail)
                guard status == SQLITE_OK else {
                    // The message first: finalizing the statement before resets it.
                    let failure = error(status: status)
                    sqlite3_finalize(last)
                    throw failure
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
    /// a table or column is not found.
    func error(status: Int32, message: String? = nil) -> SQLError {
        if let noted = control.noted { return noted }
        if control.isCancelled && (status == SQLITE_INTERRUPT || status == SQLITE_ERROR) { return .cancelled }
        var text = (message ?? String(cString: sqlite3_errmsg(db))).split(whereSeparator: \.isNewline).joined(separator: " ")
        switch status & 0xFF {
        case SQLITE_NOMEM, SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_CORRUPT:
            return .engine(text)
        default:
            if text.hasPrefix("no such table") {
                text += " (tables: " + tables.map(\.name).joined(separator: ", ") + ")"
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
