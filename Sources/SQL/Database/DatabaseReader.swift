import CellStore
import CSQLite

/// What every reader of one table needs to know of it: how to name it, what to select, and
/// how its rows are ordered.
struct TableShape: Sendable {
    /// The table's name, quoted for SQL.
    let quotedName: String
    /// The select list: each column, a long blob as `<blob N bytes>` (see `cell`).
    let selectList: String
    let columns: [String]
    /// The name that reaches the rowid (`rowid`, or `_rowid_`/`oid` when a column is
    /// called `rowid`); nil for a view or a WITHOUT ROWID table, read by position.
    let rowid: String?

    /// Blobs up to this long show whole, as an SQL literal (`x'0A1B'`); longer ones as
    /// `<blob N bytes>`, their length read without their bytes.
    static let wholeBlob = 64
}

/// Where to start reading a table with a rowid: the rows whose rowids are known (every
/// `spacing`-th, from the background count), and the table's rows in all when known or
/// estimated.
struct ReadPlan: Sendable {
    /// The rowid of data row `k * spacing`, for the rows counted so far.
    var checkpoints: [Int64] = []
    /// Data rows in all: exact once counted, else the estimate (nil: unknown).
    var total: Int?
    /// The first rowid, once the count shows the rowids run without a gap from it: row
    /// `k` is rowid `denseFrom + k`, found by SQLite's own seek.
    var denseFrom: Int64?
    static let spacing = 1024

    /// The last checkpoint at or before data row `row`, as (row, rowid).
    func checkpoint(before row: Int) -> (row: Int, rowid: Int64)? {
        guard !checkpoints.isEmpty, row >= 0 else { return nil }
        let index = min(row / Self.spacing, checkpoints.count - 1)
        return (index * Self.spacing, checkpoints[index])
    }
}

/// Reads rows of one table through one connection, a range at a time, continuing the last
/// statement when the next range starts where the last one ended (a pass reads a table
/// in one walk, never a query per batch).
///
/// Safety of `@unchecked Sendable`: a reader is used by one thread at a time: the UI's own
/// is never handed out, and the others go from a pool's lock to one pass and back.
final class DatabaseReader: @unchecked Sendable {
    let connection: DatabaseConnection
    let shape: TableShape
    /// The statement being stepped: one of `prepared`, or nil.
    private var statement: OpaquePointer?
    /// Statements made, by their SQL, kept to be reset and bound again (a seek costs no parse).
    private var prepared: [String: OpaquePointer] = [:]
    /// The data row the statement's next step gives.
    private var nextRow = 0
    /// The data row a read continuing this reader's walk starts at (-1: no walk).
    var next: Int { statement == nil ? -1 : nextRow }
    /// Why the last read stopped short, if it did.
    private(set) var failure: String?
    /// Bytes kept of one cell (the rest cut, the row saying so), or nil: every byte (a
    /// pass's reader, whose output writes cells whole).
    let cellLimit: Int?

    init(connection: DatabaseConnection, shape: TableShape, cellLimit: Int? = nil) {
        self.connection = connection
        self.shape = shape
        self.cellLimit = cellLimit
    }

    deinit {
        for statement in prepared.values { sqlite3_finalize(statement) }
    }

    /// Data rows `range` (from 0), as far as the table has them.
    /// - Complexity: a step per row when `range` continues the last read, or from a
    ///   checkpoint; else SQLite's own walk to the first row (its rowids only, or the
    ///   rows before it for a view), or from the end for a row past the middle.
    func rows(_ range: Range<Int>, plan: ReadPlan) -> [Row] {
        guard !range.isEmpty, range.lowerBound >= 0 else { return [] }
        if statement == nil || nextRow != range.lowerBound {
            statement = nil
            if let rowid = shape.rowid, let base = plan.denseFrom {
                let (seek, overflow) = base.addingReportingOverflow(Int64(range.lowerBound))
                guard !overflow, start("SELECT \(shape.selectList) FROM \(shape.quotedName) WHERE \(rowid) >= ?1 ORDER BY \(rowid)",
                                       binding: [seek]) else { return [] }
                nextRow = range.lowerBound
            } else if let rowid = shape.rowid {
                let near = plan.checkpoint(before: range.lowerBound).flatMap { range.lowerBound - $0.row <= 4 * ReadPlan.spacing ? $0 : nil }
                if let near {
                    guard start("SELECT \(shape.selectList) FROM \(shape.quotedName) WHERE \(rowid) >= ?1 ORDER BY \(rowid)",
                                binding: [near.rowid]) else { return [] }
                    nextRow = near.row
                } else if let total = plan.total, range.lowerBound > total / 2 {
                    return rowsFromEnd(range, total: total, rowid: rowid)
                } else {
                    guard start("SELECT \(shape.selectList) FROM \(shape.quotedName) WHERE \(rowid) >= "
                                + "(SELECT \(rowid) FROM \(shape.quotedName) ORDER BY \(rowid) LIMIT 1 OFFSET ?1) ORDER BY \(rowid)",
                                binding: [Int64(range.lowerBound)]) else { return [] }
                    nextRow = range.lowerBound
                }
            } else {
                guard start("SELECT \(shape.selectList) FROM \(shape.quotedName) LIMIT -1 OFFSET ?1",
                            binding: [Int64(range.lowerBound)]) else { return [] }
                nextRow = range.lowerBound
            }
        }
        var rows: [Row] = []
        rows.reserveCapacity(range.count)
        while nextRow < range.upperBound, let statement {
            let status = sqlite3_step(statement)
            guard status == SQLITE_ROW else {
                if status != SQLITE_DONE { failure = connection.error(status).description }
                sqlite3_reset(statement)
                self.statement = nil
                break
            }
            if nextRow >= range.lowerBound { rows.append(Self.row(statement, from: 0, count: shape.columns.count, cellLimit: cellLimit)) }
            nextRow += 1
        }
        return rows
    }

    /// Rows `range` counted back from the end of a table of `total` rows: the last rows
    /// at once, without walking the rows before them.
    private func rowsFromEnd(_ range: Range<Int>, total: Int, rowid: String) -> [Row] {
        let upper = min(range.upperBound, total)
        guard upper > range.lowerBound else { return [] }
        let sql = "SELECT * FROM (SELECT \(rowid) AS csvfreeze_rowid, \(shape.selectList) FROM \(shape.quotedName) "
            + "ORDER BY \(rowid) DESC LIMIT ?1 OFFSET ?2) ORDER BY csvfreeze_rowid"
        guard start(sql, binding: [Int64(upper - range.lowerBound), Int64(total - upper)]), let statement else { return [] }
        defer {
            sqlite3_reset(statement)
            self.statement = nil
        }
        var rows: [Row] = []
        while true {
            let status = sqlite3_step(statement)
            guard status == SQLITE_ROW else {
                if status != SQLITE_DONE { failure = connection.error(status).description }
                break
            }
            rows.append(Self.row(statement, from: 1, count: shape.columns.count, cellLimit: cellLimit))
        }
        return rows
    }

    /// Prepares `sql` with `values` bound to ?1, ?2…; false (the failure noted) when it fails.
    private func start(_ sql: String, binding values: [Int64]) -> Bool {
        let made: OpaquePointer
        if let kept = prepared[sql] {
            sqlite3_reset(kept)
            made = kept
        } else {
            do {
                made = try connection.prepare(sql)
            } catch {
                failure = error.description
                return false
            }
            prepared[sql] = made
        }
        for (index, value) in values.enumerated() { sqlite3_bind_int64(made, Int32(index + 1), value) }
        statement = made
        return true
    }

    /// The row the statement is on, columns `first..<first + count`: integers in decimal,
    /// reals in the shortest text that reads back the same, text as it is, a short blob as
    /// an SQL literal (`x'0A1B'`), NULL empty. A text longer than `cellLimit` keeps its
    /// first `cellLimit` bytes, and the row says it was cut and how long it is.
    static func row(_ statement: OpaquePointer, from first: Int32, count: Int, cellLimit: Int? = nil) -> Row {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var clipped: [Int] = [], clippedLengths: [Int] = []
        ends.reserveCapacity(count)
        for column in first..<(first + Int32(count)) {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                bytes.append(contentsOf: String(sqlite3_column_int64(statement, column)).utf8)
            case SQLITE_FLOAT:
                bytes.append(contentsOf: QueryAnswer.text(of: sqlite3_column_double(statement, column)).utf8)
            case SQLITE_NULL:
                break
            case SQLITE_BLOB:
                let length = Int(sqlite3_column_bytes(statement, column))
                let digits = Array("0123456789ABCDEF".utf8)
                bytes.append(contentsOf: "x'".utf8)
                if length > 0, let blob = sqlite3_column_blob(statement, column) {
                    for byte in UnsafeRawBufferPointer(start: blob, count: length) {
                        bytes.append(digits[Int(byte >> 4)])
                        bytes.append(digits[Int(byte & 15)])
                    }
                }
                bytes.append(0x27)
            default:
                let length = Int(sqlite3_column_bytes(statement, column))
                if length > 0, let text = sqlite3_column_text(statement, column) {
                    var kept = length
                    if let cellLimit, length > cellLimit {
                        kept = cellLimit
                        clipped.append(Int(column - first))
                        clippedLengths.append(length)
                    }
                    bytes.append(contentsOf: UnsafeRawBufferPointer(start: text, count: kept))
                }
            }
            ends.append(bytes.count)
        }
        var row = Row(bytes: bytes, ends: ends, clipped: clipped)
        row.clippedLengths = clippedLengths
        return row
    }
}
