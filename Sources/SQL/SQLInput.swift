import CellStore
import CSQLite
import Scan

/// One input as SQL sees it: a table name, its columns' names, and its records through
/// the input's index, followed while it grows (a query starts before the index is done).
package struct SQLInput: Sendable {
    /// The table's name (see `SQLNames.tableName`).
    package private(set) var name: String
    /// Column names, unique ignoring case (see `SQLNames.columnNames`).
    package let columns: [String]
    /// Records at the top that are header rows (not data).
    package let headerRows: Int
    /// Columns past SQLite's limit, not in the table.
    package let omittedColumns: Int
    let readers: RecordReaders
    let dialect: Dialect

    /// The most columns a table may have: the linked SQLite's `SQLITE_LIMIT_COLUMN` (2,000
    /// as Debian builds it; the tables declare no hidden columns).
    package static let maximumColumns: Int = {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nil) == SQLITE_OK, let db else { return 2000 }
        let limit = Int(sqlite3_limit(db, SQLITE_LIMIT_COLUMN, -1))
        return limit > 0 ? limit : 2000
    }()

    /// Column names for `count` columns named by `header`: the first as many as SQLite
    /// allows (a header longer than `count` names only its first).
    static func names(header: [String], count: Int) -> [String] {
        Array(SQLNames.columnNames(header: Array(header.prefix(count)), count: min(count, maximumColumns)).prefix(maximumColumns))
    }

    /// The input of `store`, once its start has been read (nil before that). Columns are
    /// named by the first header row's cells; there are as many as the widest record read
    /// so far has (see `widestRecord` for records read later).
    package init?(store: CellStore, name: String, headerRows: Int) {
        guard let dialect = store.dialect, store.isComplete || store.readRowCount > 0 else { return nil }
        let header = headerRows > 0 ? store.row(0)?.strings ?? [] : []
        let count = max(1, store.columnCount, header.count)
        self.name = name
        columns = SQLInput.names(header: header, count: count)
        omittedColumns = max(0, count - columns.count)
        self.headerRows = headerRows
        readers = store.recordReaders
        self.dialect = dialect
    }

    /// The input that `readers` read, with the header row's cells `header` (nil before its
    /// dialect is known): for a thread of its own, which cannot read the store. Columns are
    /// as many as the widest record indexed so far has.
    init?(readers: RecordReaders, header: [String], name: String, headerRows: Int) {
        guard let dialect = readers.current()?.dialect else { return nil }
        let count = max(1, readers.progress.widestRow, header.count)
        self.name = name
        columns = SQLInput.names(header: header, count: count)
        omittedColumns = max(0, count - columns.count)
        self.headerRows = headerRows
        self.readers = readers
        self.dialect = dialect
    }

    /// The same input under another table name (the first input is also `t`).
    package func named(_ name: String) -> SQLInput {
        var renamed = self
        renamed.name = name
        return renamed
    }

    /// Data records (rows of the table): exact once the index is complete, else an estimate
    /// from the part indexed so far.
    package var estimatedRows: Int {
        let progress = readers.progress
        if progress.isComplete { return max(0, progress.rowCount - headerRows) }
        guard let fraction = progress.fractionRead, fraction > 0 else { return max(1, progress.rowCount) }
        return max(1, Int(Double(progress.rowCount) / fraction) - headerRows)
    }

    /// The most cells a record indexed so far has: when it exceeds the columns, the table
    /// does not show some cells (the command line says so).
    package var widestRecord: Int { readers.progress.widestRow }

    /// A snapshot of the input as indexed now.
    var scan: ScanInput? { ScanInput(readers: readers) }
}

/// How the SQL engine may use the machine.
package struct SQLSettings: Sendable {
    /// Threads reading an input ahead of SQLite (the machine's cores, at most 2).
    package var workers = max(1, min(2, BackgroundThread.processorCount))
    /// SQLite's page cache per database, in KiB (`PRAGMA cache_size`), which also bounds
    /// how much of a sort it keeps in memory before it writes to `$TMPDIR`.
    package var cacheKiB = 8192
    /// Memory the grouping of rows for a GROUP BY may hold before it spills.
    var grouping = GroupingBudget()
    /// Bytes a scan reads in one piece (whole records; a thread's unit of work).
    var pieceBytes: Int64 = 512 << 10
    /// The most memory SQLite may hold while a statement runs (see `MemoryWatch`).
    package var memoryLimit = 128 << 20
    /// Whether the tables take constraints from SQLite (prefilters, lookups, rowid
    /// ranges); without, SQLite tests every row itself: the reference the tests compare
    /// the prefilters with.
    var takesConstraints = true

    package init() {}

    /// Settings with small memory budgets and pieces, so that tests reach every spill and
    /// share small inputs out between threads.
    package static func tiny(spreading: Int = 8 << 20, gathering: Int = 16 << 20, pieceBytes: Int64 = 512 << 10) -> SQLSettings {
        var settings = SQLSettings()
        settings.grouping = GroupingBudget(spreading: spreading, gathering: gathering)
        settings.cacheKiB = 64
        settings.pieceBytes = pieceBytes
        settings.workers = 2
        return settings
    }
}
