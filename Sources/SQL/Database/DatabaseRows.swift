import CellStore
import CSQLite
import Synchronization
import Table

/// One table or view of a SQLite database as a table on screen: record 0 is its column
/// names, the data rows follow in rowid order (a view's and a WITHOUT ROWID table's in the
/// order SQLite gives them).
///
/// Rows are read through SQLite a window at a time, never all at once. A table with a
/// rowid opens with its row count estimated from its first and last rowids (exact when no
/// row was ever deleted, else an upper bound), so the first screen and `G` need no count;
/// a background walk of its rowids (on its own connection) counts it exactly and notes
/// the rowid of every 1,024th row, so a jump anywhere starts from a checkpoint. A view
/// grows as it is counted, as a file grows while it is indexed. Memory: 16 bytes a
/// checkpoint, and the windows on and near the screen.
package final class DatabaseRows: DatabaseTableRows {

    package let name: String
    package let path: String
    package let table: DatabaseTable
    package let wake: @Sendable () -> Void
    let shape: TableShape
    private let header: Row
    private let reader: DatabaseReader
    private let pool: ReaderPool
    private let counted = CountState()
    private let counter: DatabaseConnection
    /// What the UI thread knows: the plan its reads use, and the rows counted.
    private var plan = ReadPlan()
    private var rowsKnown = 0
    private var isCounted = false
    /// The estimate the table opened with (nil: none, a view's rows are counted).
    private let estimate: Int?
    /// The table's first rowid when it opened (nil: none, or no rowid).
    private var firstRowid: Int64?
    package private(set) var generation = 0
    /// Why the table could not be read to its end, if it could not.
    package private(set) var failure: String?
    /// Windows read lately, by their first data row.
    private var windows: [Int: [Row]] = [:]
    private var windowUse: [Int] = []
    /// Bytes the kept windows hold.
    private var windowBytes = 0
    static let windowRows = 128
    static let windowsKept = 24
    /// Bytes the kept windows may hold (past it the least recent go, the last read stays).
    static let windowBudget = 32 << 20

    /// Opens table `name` of the database at `path` (see `DatabaseCatalog.table(named:in:)`
    /// for how a name is found); `wake` is told of the count's news.
    package init(path: String, table name: String, wake: @escaping @Sendable () -> Void = {}) throws(CellStoreError) {
        let connection = try DatabaseConnection(path: path)
        let tables = try DatabaseCatalog.tables(in: connection)
        guard let table = DatabaseCatalog.table(named: name, in: tables) else {
            throw DatabaseCatalog.missing(name, path: path, tables: tables)
        }
        self.path = path
        self.table = table
        self.wake = wake
        note = DatabaseConnection.unreadLog(path)
        self.name = path + ":" + table.name
        shape = try Self.shape(of: table, in: connection)
        header = Row(cells: shape.columns)
        reader = DatabaseReader(connection: connection, shape: shape, cellLimit: RecordParser.Limits().cell)
        pool = ReaderPool(path: path, shape: shape)
        counter = try DatabaseConnection(path: path)
        if let rowid = shape.rowid {
            let last = try connection.integer("SELECT max(\(rowid)) FROM \(shape.quotedName)")
            let first = try connection.integer("SELECT min(\(rowid)) FROM \(shape.quotedName)")
            firstRowid = first
            if let first, let last {
                let (span, overflow) = last.subtractingReportingOverflow(first)
                // Rowids spread far apart say nothing of the count: it is counted instead.
                estimate = !overflow && span < 1 << 40 ? Int(span) + 1 : nil
            } else {
                estimate = 0
            }
        } else {
            estimate = nil
        }
        plan.total = estimate
        if estimate == 0 {
            isCounted = true
            counted.shared.withLock { $0.isDone = true }
        } else {
            // The first screen's rows, read now, so a view shows them before it is counted.
            let first = reader.rows(0..<Self.windowRows, plan: plan)
            windows[0] = first
            windowUse = [0]
            windowBytes = first.reduce(0) { $0 + $1.memoryCost }
            rowsKnown = first.count
            if let failure = reader.failure { throw CellStoreError.unreadable(path, failure) }
            startCounting()
        }
    }

    /// The data rows and columns of table `name` of the database at `path`, counted exactly
    /// on the calling thread (the list of tables' count of a table no one shows).
    package static func census(path: String, table name: String) throws(CellStoreError) -> (rows: Int, columns: Int, isView: Bool) {
        let connection = try DatabaseConnection(path: path)
        let tables = try DatabaseCatalog.tables(in: connection)
        guard let table = DatabaseCatalog.table(named: name, in: tables) else {
            throw DatabaseCatalog.missing(name, path: path, tables: tables)
        }
        let shape = try shape(of: table, in: connection)
        let rows = try connection.integer("SELECT count(*) FROM \(shape.quotedName)") ?? 0
        return (Int(rows), shape.columns.count, table.isView)
    }

    /// What the list of tables says of the kind of table: `SQLite table` or `SQLite view`.
    package var kindName: String { table.isView ? "SQLite view" : "SQLite table" }
    /// What the status line says of the input: the kind of table and its name.
    package var formatLabel: String { kindName + " " + table.name }
    /// Said once, when opened: a log that cannot be read (see `DatabaseConnection`).
    package let note: String?

    deinit {
        counted.stop.store(true, ordering: .relaxed)
        counter.interrupt()
    }

    /// The columns, the select list and the rowid's name of `table`.
    private static func shape(of table: DatabaseTable, in connection: DatabaseConnection) throws(CellStoreError) -> TableShape {
        let quoted = SQLNames.quoted(table.name)
        let statement = try connection.prepare("SELECT * FROM \(quoted)")
        let count = sqlite3_column_count(statement)
        let columns = (0..<count).map { index in
            sqlite3_column_name(statement, index).map { String(cString: $0) } ?? "column \(index + 1)"
        }
        sqlite3_finalize(statement)
        var rowid: String?
        if !table.isView {
            let taken = Set(columns.map(SQLNames.folded))
            for candidate in ["rowid", "_rowid_", "oid"] where !taken.contains(candidate) {
                var probe: OpaquePointer?
                let status = sqlite3_prepare_v2(connection.db, "SELECT \(candidate) FROM \(quoted) LIMIT 0", -1, &probe, nil)
                sqlite3_finalize(probe)
                if status == SQLITE_OK { rowid = candidate }
                break
            }
        }
        let list = columns.map { column in
            let name = SQLNames.quoted(column)
            return "CASE WHEN typeof(\(name)) = 'blob' AND length(\(name)) > \(TableShape.wholeBlob) "
                + "THEN '<blob ' || length(\(name)) || ' bytes>' ELSE \(name) END"
        }
        return TableShape(quotedName: quoted, selectList: list.isEmpty ? "NULL" : list.joined(separator: ", "),
                          columns: columns, rowid: rowid)
    }

    /// Walks the table on its own connection and thread: counts its rows and notes the
    /// rowid of every `ReadPlan.spacing`-th.
    private func startCounting() {
        let counter = self.counter, shape = self.shape, counted = self.counted, wake = self.wake, estimate = self.estimate
        // Below the screen's thread, as the loader is: the first screen comes first.
        BackgroundThread.start(name: "csvfreeze db count", stackSize: 1 << 20, yieldsToInteractiveThreads: true) {
            Self.count(shape, estimate: estimate, on: counter, into: counted, wake: wake)
        }
    }

    /// Counts the table: a table with a rowid by SQLite's `count(*)` first (it counts the
    /// b-tree's cells without stepping a row: 4 to 5 times the walk's speed), then, unless
    /// its rowids run without a gap (each row then found by its rowid), a walk that notes
    /// the checkpoints; a view by the walk alone, its count growing as it goes.
    private static func count(_ shape: TableShape, estimate: Int?, on connection: DatabaseConnection, into state: CountState,
                              wake: @Sendable () -> Void) {
        if shape.rowid != nil, let exact = try? connection.integer("SELECT count(*) FROM \(shape.quotedName)") {
            if state.isStopped { return }
            let dense = Int(exact) == estimate
            state.shared.withLock {
                $0.exact = Int(exact)
                if dense { $0.isDone = true; $0.rows = Int(exact) }
            }
            state.changes.notify()
            wake()
            if dense { return }
        }
        let sql = shape.rowid.map { "SELECT \($0) FROM \(shape.quotedName) ORDER BY \($0)" } ?? "SELECT 1 FROM \(shape.quotedName)"
        let statement: OpaquePointer
        do {
            statement = try connection.prepare(sql)
        } catch {
            state.shared.withLock { $0.failure = error.description; $0.isDone = true }
            state.changes.notify()
            wake()
            return
        }
        defer { sqlite3_finalize(statement) }
        var rows = 0
        var fresh: [Int64] = []
        let records = shape.rowid != nil
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_ROW {
                if records && rows % ReadPlan.spacing == 0 { fresh.append(sqlite3_column_int64(statement, 0)) }
                rows += 1
                if rows & 0xFFFF == 0 {
                    if state.isStopped { return }
                    let batch = fresh
                    fresh.removeAll(keepingCapacity: true)
                    state.shared.withLock { $0.rows = rows; $0.checkpoints += batch }
                    state.changes.notify()
                    wake()
                }
                continue
            }
            if state.isStopped { return }
            let failure = status == SQLITE_DONE ? nil : connection.error(status).description
            let batch = fresh
            state.shared.withLock {
                $0.rows = rows
                $0.checkpoints += batch
                $0.failure = failure
                $0.isDone = true
            }
            state.changes.notify()
            wake()
            return
        }
    }

    /// Waits until the table is counted (for output, which writes every row).
    package func waitUntilCounted() {
        while true {
            let version = counted.changes.version
            takeNews()
            if isComplete { return }
            counted.changes.wait(past: version)
        }
    }

    // MARK: RowSource

    package var rowCount: Int { 1 + (isCounted ? rowsKnown : max(rowsKnown, estimate ?? 0)) }
    package var isComplete: Bool { isCounted }
    package var columnCount: Int { max(1, shape.columns.count) }
    package var headerRows: Int? { 1 }

    package func takeNews() {
        let now = counted.shared.withLock { $0 }
        if now.checkpoints.count > plan.checkpoints.count {
            plan.checkpoints += now.checkpoints[plan.checkpoints.count...]
        }
        if let failure = now.failure, self.failure == nil { self.failure = failure }
        guard !isCounted else { return }
        if now.isDone || now.exact != nil {
            isCounted = true
            let exact = now.exact ?? (now.failure == nil ? now.rows : max(now.rows, rowsKnown))
            // Rows read back from the end of an estimate that was too high sit elsewhere now.
            if let estimate, estimate != exact {
                generation += 1
                windows = [:]
                windowUse = []
                windowBytes = 0
            }
            rowsKnown = exact
            plan.total = exact
            // No gap between the first and last rowids: row k is found by its rowid.
            if now.failure == nil, let estimate, estimate == exact { plan.denseFrom = firstRowid }
        } else {
            rowsKnown = max(rowsKnown, now.rows)
        }
    }

    package func row(_ index: Int) -> Row? {
        if index == 0 { return header }
        let data = index - 1
        guard data >= 0, data < rowCount - 1 else { return nil }
        let start = data - data % Self.windowRows
        let window = self.window(at: start)
        let offset = data - start
        return offset < window.count ? window[offset] : nil
    }

    package func rows(_ refs: [RecordRef]) -> [Int: Row] {
        var result: [Int: Row] = [:]
        for ref in refs.sorted() {
            if let row = row(ref.record) { result[ref.record] = row }
        }
        return result
    }

    /// The window of rows starting at data row `start`, read if it is not kept.
    private func window(at start: Int) -> [Row] {
        if let kept = windows[start] {
            if windowUse.last != start {
                windowUse.removeAll { $0 == start }
                windowUse.append(start)
            }
            return kept
        }
        let rows = reader.rows(start..<(start + Self.windowRows), plan: plan)
        if let failure = reader.failure, self.failure == nil { self.failure = failure }
        windows[start] = rows
        windowUse.append(start)
        windowBytes += rows.reduce(0) { $0 + $1.memoryCost }
        while windowUse.count > 1 && (windowUse.count > Self.windowsKept || windowBytes > Self.windowBudget) {
            let gone = windowUse.removeFirst()
            windowBytes -= windows[gone]?.reduce(0) { $0 + $1.memoryCost } ?? 0
            windows[gone] = nil
        }
        return rows
    }

    /// The rows now, for a pass on another thread: read in batches through connections of
    /// their own, each batch continuing the last one's walk.
    package func snapshot() -> RowSnapshot? {
        let header = self.header, pool = self.pool, plan = self.plan
        return RowSnapshot(count: rowCount, columnCount: columnCount) { range in
            var rows: [Row] = []
            var data = range
            if data.lowerBound == 0 {
                rows.append(header)
                data = 1..<max(1, data.upperBound)
            }
            if !data.isEmpty { rows += pool.rows((data.lowerBound - 1)..<(data.upperBound - 1), plan: plan) }
            return rows
        }
    }
}

/// What a table's background count publishes, and the flag that stops it.
final class CountState: Sendable {
    struct Counted: Sendable {
        var rows = 0
        var checkpoints: [Int64] = []
        var isDone = false
        var failure: String?
        /// The exact count, once SQLite's `count(*)` gave it (the walk may go on).
        var exact: Int?
    }

    let shared = Mutex(Counted())
    let stop = Atomic<Bool>(false)
    /// Published with every change of `shared`.
    let changes = ChangeSignal()
    var isStopped: Bool { stop.load(ordering: .relaxed) }
}

/// Readers for passes on other threads, each on its own connection: a pass takes one for a
/// batch and gives it back, so the next batch continues the same walk.
final class ReaderPool: Sendable {
    private let path: String
    private let shape: TableShape
    private let idle = Mutex<[DatabaseReader]>([])

    init(path: String, shape: TableShape) {
        self.path = path
        self.shape = shape
    }

    /// Data rows `range` (from 0), read by the reader given back last (whose walk a pass's
    /// next batch continues) or a new one.
    func rows(_ range: Range<Int>, plan: ReadPlan) -> [Row] {
        // The reader whose walk this batch continues, if one is idle (passes on several
        // threads each keep their own walk), else the last given back.
        let taken: DatabaseReader? = idle.withLock { readers in
            if let place = readers.lastIndex(where: { $0.next == range.lowerBound }) { return readers.remove(at: place) }
            return readers.isEmpty ? nil : readers.removeLast()
        }
        let reader: DatabaseReader
        if let taken {
            reader = taken
        } else {
            guard let connection = try? DatabaseConnection(path: path) else { return [] }
            reader = DatabaseReader(connection: connection, shape: shape)
        }
        let rows = reader.rows(range, plan: plan)
        idle.withLock { readers in
            readers.append(reader)
            if readers.count > 4 { readers.removeFirst() }
        }
        return rows
    }
}
