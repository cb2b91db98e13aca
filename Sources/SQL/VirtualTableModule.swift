import CSQLite

/// The inputs a connection's virtual tables are made from (SQLite's `pAux`): a table is
/// created as `USING csvfreeze(N)` for input N.
final class TableRegistry {
    let inputs: [SQLInput]
    /// Per input, its columns' types.
    let types: [[SQLColumnType]]
    let settings: SQLSettings
    let control: QueryControl
    /// Whether any SQL given to the connection so far says COLLATE (see `InputTable`).
    let collations = CollationNote()

    init(inputs: [SQLInput], types: [[SQLColumnType]], settings: SQLSettings, control: QueryControl) {
        self.inputs = inputs
        self.types = types
        self.settings = settings
        self.control = control
    }
}

/// Whether the SQL a connection was given says COLLATE anywhere (a view or table it made
/// keeps it, so the note never goes back); read and written on the connection's thread.
final class CollationNote {
    var isMentioned = false

    func note(_ sql: String) {
        if !isMentioned && sql.lowercased().contains("collate") { isMentioned = true }
    }
}

/// SQLite's virtual-table interface for the inputs: non-capturing C callbacks that find
/// their Swift object from the pointer SQLite hands them.
///
/// A table or cursor is a `cf_sql_table` / `cf_sql_cursor` (SQLite's struct first, then
/// `owner`) in memory from `sqlite3_malloc`; `owner` holds a retained `InputTable` or
/// `TableCursor`, released in `xDisconnect` / `xClose`, so the Swift object lives exactly
/// as long as SQLite's.
enum VirtualTableModule {
    /// The module, for `sqlite3_create_module_v2`; it must outlive the connection.
    static func make() -> UnsafeMutablePointer<sqlite3_module> {
        let module = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
        module.initialize(to: sqlite3_module())
        module.pointee.iVersion = 1
        module.pointee.xCreate = connect
        module.pointee.xConnect = connect
        module.pointee.xBestIndex = { table, info in
            guard let table, let info else { return SQLITE_ERROR }
            VirtualTableModule.owner(of: table).bestIndex(info)
            return SQLITE_OK
        }
        module.pointee.xDisconnect = disconnect
        module.pointee.xDestroy = disconnect
        module.pointee.xOpen = { table, cursor in
            guard let table, let cursor else { return SQLITE_ERROR }
            guard let memory = sqlite3_malloc(Int32(MemoryLayout<cf_sql_cursor>.size)) else { return SQLITE_NOMEM }
            let made = memory.bindMemory(to: cf_sql_cursor.self, capacity: 1)
            made.initialize(to: cf_sql_cursor())
            made.pointee.owner = Unmanaged.passRetained(TableCursor(table: VirtualTableModule.owner(of: table))).toOpaque()
            cursor.pointee = UnsafeMutableRawPointer(made).assumingMemoryBound(to: sqlite3_vtab_cursor.self)
            return SQLITE_OK
        }
        module.pointee.xClose = { cursor in
            guard let cursor else { return SQLITE_OK }
            let made = UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: cf_sql_cursor.self)
            if let owner = made.pointee.owner { Unmanaged<TableCursor>.fromOpaque(owner).release() }
            sqlite3_free(cursor)
            return SQLITE_OK
        }
        module.pointee.xFilter = { cursor, _, plan, count, values in
            guard let cursor else { return SQLITE_ERROR }
            let arguments = (0..<Int(max(0, count))).map { values?[$0] }
            return VirtualTableModule.report(cursor) { scan throws(SQLError) in
                try scan.filter(planText: plan.map { String(cString: $0) } ?? "", arguments: arguments)
            }
        }
        module.pointee.xNext = { cursor in
            guard let cursor else { return SQLITE_ERROR }
            return VirtualTableModule.report(cursor) { scan throws(SQLError) in try scan.next() }
        }
        module.pointee.xEof = { cursor in
            guard let cursor else { return 1 }
            return VirtualTableModule.withCursor(cursor) { $0.isAtEnd } ? 1 : 0
        }
        module.pointee.xColumn = { cursor, context, column in
            guard let cursor else { return SQLITE_ERROR }
            VirtualTableModule.withCursor(cursor) { $0.column(column, context: context) }
            return SQLITE_OK
        }
        module.pointee.xRowid = { cursor, rowid in
            guard let cursor, let rowid else { return SQLITE_ERROR }
            rowid.pointee = VirtualTableModule.withCursor(cursor) { $0.rowid }
            return SQLITE_OK
        }
        return module
    }

    /// xCreate and xConnect: declares input N's table.
    private static let connect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<UnsafePointer<CChar>?>?,
                                                UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_vtab>?>?,
                                                UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 = { db, aux, count, arguments, table, error in
        guard let aux, let table, count >= 4, let argument = arguments?[3], let index = Int(String(cString: argument)) else {
            error?.pointee = cf_sql_strdup("csvfreeze tables are made by csvfreeze itself")
            return SQLITE_ERROR
        }
        let registry = Unmanaged<TableRegistry>.fromOpaque(aux).takeUnretainedValue()
        guard registry.inputs.indices.contains(index) else {
            error?.pointee = cf_sql_strdup("no input \(index)")
            return SQLITE_ERROR
        }
        let input = InputTable(input: registry.inputs[index], types: index < registry.types.count ? registry.types[index] : [],
                               settings: registry.settings, control: registry.control, collations: registry.collations)
        let declared = sqlite3_declare_vtab(db, input.declaration)
        guard declared == SQLITE_OK else {
            error?.pointee = cf_sql_strdup(String(cString: sqlite3_errmsg(db)))
            return declared
        }
        _ = cf_sql_vtab_innocuous(db)
        guard let memory = sqlite3_malloc(Int32(MemoryLayout<cf_sql_table>.size)) else { return SQLITE_NOMEM }
        let made = memory.bindMemory(to: cf_sql_table.self, capacity: 1)
        made.initialize(to: cf_sql_table())
        made.pointee.owner = Unmanaged.passRetained(input).toOpaque()
        table.pointee = UnsafeMutableRawPointer(made).assumingMemoryBound(to: sqlite3_vtab.self)
        return SQLITE_OK
    }

    private static let disconnect: @convention(c) (UnsafeMutablePointer<sqlite3_vtab>?) -> Int32 = { table in
        guard let table else { return SQLITE_OK }
        let made = UnsafeMutableRawPointer(table).assumingMemoryBound(to: cf_sql_table.self)
        if let owner = made.pointee.owner { Unmanaged<InputTable>.fromOpaque(owner).release() }
        sqlite3_free(table)
        return SQLITE_OK
    }

    private static func owner(of table: UnsafeMutablePointer<sqlite3_vtab>) -> InputTable {
        let made = UnsafeMutableRawPointer(table).assumingMemoryBound(to: cf_sql_table.self)
        return Unmanaged<InputTable>.fromOpaque(made.pointee.owner!).takeUnretainedValue()
    }

    /// Runs `body` with the cursor's object, without retaining it (SQLite holds it).
    @inline(__always)
    private static func withCursor<T>(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>, _ body: (TableCursor) -> T) -> T {
        let made = UnsafeMutableRawPointer(cursor).assumingMemoryBound(to: cf_sql_cursor.self)
        return Unmanaged<TableCursor>.fromOpaque(made.pointee.owner!)._withUnsafeGuaranteedRef(body)
    }

    /// Runs a cursor step; a failure becomes the table's error message (and is noted, so
    /// the caller can tell an input's fault from the query's).
    @inline(__always)
    private static func report(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>,
                               _ body: (TableCursor) throws(SQLError) -> Void) -> Int32 {
        let failure = withCursor(cursor) { scan -> SQLError? in
            do throws(SQLError) {
                try body(scan)
                return nil
            } catch {
                return error
            }
        }
        guard var failure else { return SQLITE_OK }
        let (control, name) = withCursor(cursor) { ($0.table.control, $0.table.input.name) }
        if case .input(let message) = failure { failure = .input("\(name): \(message)") }
        control.note(failure)
        if let table = cursor.pointee.pVtab {
            sqlite3_free(table.pointee.zErrMsg)
            table.pointee.zErrMsg = cf_sql_strdup(failure.description)
        }
        return failure == .cancelled ? SQLITE_INTERRUPT : SQLITE_ERROR
    }
}
