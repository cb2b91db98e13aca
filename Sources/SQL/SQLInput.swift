import CellStore
import Foundation
import Scan

/// One input as SQL sees it: a table name, its columns' names, and its records through
/// the input's complete index.
public struct SQLInput: Sendable {
    /// The table's name (see `SQLNames.tableName`).
    public let name: String
    /// Column names, unique ignoring case (see `SQLNames.columnNames`).
    public let columns: [String]
    /// Records at the top that are header rows (not data).
    public let headerRows: Int
    /// Records in the input, header rows included.
    public let recordCount: Int
    /// Columns past SQLite's limit, not in the table.
    public let omittedColumns: Int
    let scan: ScanInput

    /// The most columns a table may have (SQLite's `SQLITE_MAX_COLUMN` as Debian builds it).
    public static let maximumColumns = 2000

    /// The input of `store` once its index is complete (nil before that, or when the store
    /// has no input at all). Columns are named by the first header row's cells.
    public init?(store: CellStore, name: String, headerRows: Int) {
        guard store.isComplete, let scan = ScanInput(store: store) else { return nil }
        let header = headerRows > 0 ? store.row(0)?.strings ?? [] : []
        let count = max(1, store.columnCount, header.count)
        self.name = name
        columns = SQLNames.columnNames(header: header, count: min(count, SQLInput.maximumColumns))
        omittedColumns = max(0, count - SQLInput.maximumColumns)
        self.headerRows = headerRows
        recordCount = store.rowCount
        self.scan = scan
    }

    /// The same input under another table name (the first input is also `t`).
    public func named(_ name: String) -> SQLInput {
        SQLInput(name: name, columns: columns, headerRows: headerRows, recordCount: recordCount, omittedColumns: omittedColumns,
                 scan: scan)
    }

    private init(name: String, columns: [String], headerRows: Int, recordCount: Int, omittedColumns: Int, scan: ScanInput) {
        self.name = name
        self.columns = columns
        self.headerRows = headerRows
        self.recordCount = recordCount
        self.omittedColumns = omittedColumns
        self.scan = scan
    }

    /// Data records (rows of the table).
    public var dataRowCount: Int { max(0, recordCount - headerRows) }
}

/// How the SQL engine may use the machine.
public struct SQLSettings: Sendable {
    /// Threads reading an input ahead of SQLite (the machine's cores, at most 2).
    public var workers = max(1, min(2, ProcessInfo.processInfo.activeProcessorCount))
    /// SQLite's page cache per database, in KiB (`PRAGMA cache_size`), which also bounds
    /// how much of a sort it keeps in memory before it writes to `$TMPDIR`.
    public var cacheKiB = 8192
    /// Memory the grouping of rows for a GROUP BY may hold before it spills.
    var grouping = GroupingBudget()
    /// Bytes a scan reads in one piece (whole records; a thread's unit of work).
    var pieceBytes: Int64 = 512 << 10

    public init() {}

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
