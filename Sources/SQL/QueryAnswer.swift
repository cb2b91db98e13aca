import CellStore
import CSQLite

/// The answer to a query, stepped in batches of rows by its owner, who may stop it.
///
/// The rows are made as they are asked for: SQLite runs the statement as far as the next
/// batch needs, reading the inputs through their virtual tables. Cells are text as a
/// table shows it: an integer in decimal, a real in the shortest form that reads back as
/// the same number, NULL as an empty cell.
package final class QueryAnswer {
    /// The answer's column names.
    package let columns: [String]
    private var statement: OpaquePointer?
    private let database: SQLDatabase

    init(statement: OpaquePointer, database: SQLDatabase) {
        self.statement = statement
        self.database = database
        columns = (0..<sqlite3_column_count(statement)).map { index in
            sqlite3_column_name(statement, index).map { String(cString: $0) } ?? "column \(index + 1)"
        }
    }

    deinit { sqlite3_finalize(statement) }

    /// The first column of the answer that is the rowid of one of the tables `names`
    /// (SQLite's column metadata: `select rowid, …` gives one, `rowid + 0` does not).
    func rowidColumn(ofTables names: [String]) -> Int? {
        guard let statement else { return nil }
        let tables = Set(names.map(SQLNames.folded))
        for index in 0..<Int32(columns.count) {
            guard let origin = sqlite3_column_origin_name(statement, index),
                  let table = sqlite3_column_table_name(statement, index) else { continue }
            if SQLNames.folded(String(cString: origin)) == "rowid" && tables.contains(SQLNames.folded(String(cString: table))) {
                return Int(index)
            }
        }
        return nil
    }

    /// Up to `batch` more rows, or nil when there are no more.
    package func next(batch: Int) throws(SQLError) -> [Row]? {
        var types: [ValueType]?
        return try step(batch: batch, types: &types)
    }

    /// Up to `batch` more rows and each cell's type (row after row), or nil when there are
    /// no more: what JSON writes as a number, a string or null.
    package func nextTyped(batch: Int) throws(SQLError) -> (rows: [Row], types: [ValueType])? {
        var types: [ValueType]? = []
        guard let rows = try step(batch: batch, types: &types) else { return nil }
        return (rows, types ?? [])
    }

    /// The rows of `next(batch:)`; when `types` is not nil, each cell's type is added to it.
    private func step(batch: Int, types: inout [ValueType]?) throws(SQLError) -> [Row]? {
        guard let statement else { return nil }
        var rows: [Row] = []
        let width = Int32(columns.count)
        while rows.count < max(1, batch) {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE {
                finish()
                break
            }
            guard status == SQLITE_ROW else {
                let failure = database.error(status: status)
                finish()
                throw failure
            }
            var bytes: [UInt8] = []
            var ends: [Int] = []
            ends.reserveCapacity(Int(width))
            for column in 0..<width {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER:
                    bytes.append(contentsOf: String(sqlite3_column_int64(statement, column)).utf8)
                    types?.append(.number)
                case SQLITE_FLOAT:
                    let value = sqlite3_column_double(statement, column)
                    bytes.append(contentsOf: QueryAnswer.text(of: value).utf8)
                    // JSON has no infinity and no NaN: those stay the text shown.
                    types?.append(value.isFinite ? .number : .text)
                case SQLITE_NULL:
                    types?.append(.null)
                default:
                    // Text and blobs, as their bytes.
                    types?.append(.text)
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if count > 0, let blob = sqlite3_column_blob(statement, column) {
                        bytes.append(contentsOf: UnsafeRawBufferPointer(start: blob, count: count))
                    }
                }
                ends.append(bytes.count)
            }
            rows.append(Row(bytes: bytes, ends: ends))
        }
        return rows.isEmpty && self.statement == nil ? nil : rows
    }

    /// Stops the statement: the next `next(batch:)` throws `.cancelled` (the current one
    /// soon, when another thread calls `cancellation.cancel()`).
    package func cancel() {
        database.control.cancel()
    }

    /// A handle that stops this answer from any thread.
    package var cancellation: QueryCancellation { QueryCancellation(control: database.control) }

    private func finish() {
        sqlite3_finalize(statement)
        statement = nil
    }

    /// A real as text, as every computed number is written (`CellValue.text(of:)`: the
    /// shortest that reads back the same), `1.0` for a whole one (so it still reads as a real).
    static func text(of value: Double) -> String {
        value.isFinite ? CellValue.text(of: value) : (value < 0 ? "-Inf" : value > 0 ? "Inf" : "NaN")
    }
}

/// Stops a running answer from any thread (SQLite's progress handler and the tables' read-
/// ahead threads see it within a few milliseconds).
package struct QueryCancellation: Sendable {
    let control: QueryControl

    package func cancel() { control.cancel() }
}
