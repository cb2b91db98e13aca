#if canImport(Glibc)
import Glibc
#endif
import CSQLite

/// Makes SQLite database files for tests and the benchmark, through SQLite itself (no
/// committed binaries, no Python): a script of statements run on a new file.
package enum DatabaseFixture {
    /// What went wrong making a fixture.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Creates (or replaces) the database at `path` and runs `script` on it, in one
    /// transaction, without a journal left behind.
    package static func make(at path: String, _ script: String) throws {
        unlink(path)
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db = handle else {
            sqlite3_close_v2(handle)
            throw Failure(description: "cannot create \(path)")
        }
        defer { sqlite3_close_v2(db) }
        try run(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN; " + script + "; COMMIT")
    }

    /// Creates the database at `path` as a program that has it open in WAL mode leaves it:
    /// `before` in the file, then `script` committed to `path-wal` only, none of it
    /// checkpointed into `path` (the files are copied while a connection to another
    /// database still holds them), with the `-shm` file beside them or not (a copy of the
    /// two, or a crash that took it).
    package static func makeWithPendingLog(at path: String, before: String? = nil, _ script: String, sharedMemory: Bool = true) throws {
        let source = path + ".source"
        for name in [path, path + "-wal", path + "-shm", source, source + "-wal", source + "-shm"] { unlink(name) }
        var handle: OpaquePointer?
        guard sqlite3_open_v2(source, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db = handle else {
            sqlite3_close_v2(handle)
            throw Failure(description: "cannot create \(source)")
        }
        defer {
            sqlite3_close_v2(db)
            for name in [source, source + "-wal", source + "-shm"] { unlink(name) }
        }
        try run(db, "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
        if let before { try run(db, "BEGIN; " + before + "; COMMIT; PRAGMA wal_checkpoint(TRUNCATE)") }
        try run(db, "BEGIN; " + script + "; COMMIT")
        try copy(source, to: path)
        try copy(source + "-wal", to: path + "-wal")
        if sharedMemory { try copy(source + "-shm", to: path + "-shm") }
    }

    /// Copies the file at `from` to `to`, replacing it.
    private static func copy(_ from: String, to: String) throws {
        guard let input = fopen(from, "rb") else { throw Failure(description: "cannot read \(from)") }
        defer { fclose(input) }
        guard let output = fopen(to, "wb") else { throw Failure(description: "cannot write \(to)") }
        defer { fclose(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, input) }
            if count == 0 { break }
            guard buffer.withUnsafeBytes({ fwrite($0.baseAddress, 1, count, output) }) == count else {
                throw Failure(description: "cannot write \(to)")
            }
        }
    }

    /// Runs `sql` on the database at `path` as it is (to change a fixture).
    package static func run(at path: String, _ sql: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db = handle else {
            sqlite3_close_v2(handle)
            throw Failure(description: "cannot open \(path)")
        }
        defer { sqlite3_close_v2(db) }
        try run(db, sql)
    }

    /// Runs `sql` on `db`.
    private static func run(_ db: OpaquePointer, _ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw Failure(description: message.map { String(cString: $0) } ?? "SQLite error \(status)")
        }
    }

    /// Inserts rows made by `row` (given 0..<count) into `table` with `columns` values a
    /// row, through one prepared statement: `row` returns each value as an Int64, a
    /// Double, a String, an [UInt8] (a blob) or nil (NULL).
    package static func insert(at path: String, table: String, columns: Int, count: Int, row: (Int) -> [Any?]) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db = handle else {
            sqlite3_close_v2(handle)
            throw Failure(description: "cannot open \(path)")
        }
        defer { sqlite3_close_v2(db) }
        try run(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN")
        let marks = Array(repeating: "?", count: columns).joined(separator: ", ")
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "INSERT INTO \"\(table)\" VALUES (\(marks))", -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for index in 0..<count {
            for (column, value) in row(index).prefix(columns).enumerated() {
                let place = Int32(column + 1)
                switch value {
                case let value as Int64: sqlite3_bind_int64(statement, place, value)
                case let value as Int: sqlite3_bind_int64(statement, place, Int64(value))
                case let value as Double: sqlite3_bind_double(statement, place, value)
                case let value as String: sqlite3_bind_text(statement, place, value, -1, transient)
                case let value as [UInt8] where value.isEmpty: sqlite3_bind_zeroblob(statement, place, 0)
                case let value as [UInt8]:
                    value.withUnsafeBytes { raw in _ = sqlite3_bind_blob(statement, place, raw.baseAddress, Int32(raw.count), transient) }
                default: sqlite3_bind_null(statement, place)
                }
            }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw Failure(description: String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(statement)
        }
        try run(db, "COMMIT")
    }
}
