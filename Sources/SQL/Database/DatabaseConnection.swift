#if canImport(Glibc)
import Glibc
#endif
import CellStore
import CSQLite

/// One connection to a SQLite database file that only reads it: opened read only and
/// immutable (`file:…?mode=ro&immutable=1`), so SQLite takes no lock, makes no journal,
/// WAL or shared-memory file beside it and writes nothing, and `PRAGMA query_only` on top.
///
/// Immutable also means SQLite does not look for changes: a database changed while it is
/// open may read wrong (as a CSV file replaced under its index does); `R` opens it again.
/// And SQLite would not read a write-ahead log: a database with a `-wal` file that holds
/// changes not yet in the file (a program has it open, or was stopped) is opened read only
/// with its `-shm` file read only too (`readonly_shm=1`), so SQLite reads them and still
/// writes nothing. Without a `-shm` file SQLite would make one beside the database: it is
/// then read immutable, without the log's changes, and the user is told (`unreadLog`).
///
/// Safety of `@unchecked Sendable`: a connection is used by one thread at a time: the UI's
/// reader's on the UI thread, the count's on its thread, a pool's readers by the one pass
/// that took one out of the pool (under its lock) until it gives it back. So it is opened
/// `SQLITE_OPEN_NOMUTEX` (a mutex per call cost 6 % of a walk); `interrupt()` is SQLite's
/// one call meant for another thread.
final class DatabaseConnection: @unchecked Sendable {
    let db: OpaquePointer
    let path: String

    /// Opens `path`; a file SQLite cannot open, or that is not a database, fails here with
    /// one line naming it.
    init(path: String) throws(CellStoreError) {
        self.path = path
        _ = SQLDatabase.limitsHeap
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        let status = sqlite3_open_v2(Self.uri(path), &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open it"
            sqlite3_close_v2(handle)
            throw .unreadable(path, message)
        }
        db = handle
        guard cf_sql_lock_down_file(db) == SQLITE_OK else { throw .unreadable(path, "cannot make SQLite read only") }
        // Long enough for any value SQLite stores (1 GB by default), short of what a corrupt
        // length could ask.
        var message: UnsafeMutablePointer<CChar>?
        let pragma = sqlite3_exec(db, "PRAGMA query_only = 1; PRAGMA cache_size = -2048", nil, nil, &message)
        sqlite3_free(message)
        guard pragma == SQLITE_OK else { throw error(pragma) }
    }

    deinit { sqlite3_close_v2(db) }

    /// Stops the statement running on the connection (from any thread).
    func interrupt() { sqlite3_interrupt(db) }

    /// The URI that opens `path` read only and immutable: every byte but the unreserved
    /// ones and `/` percent-encoded, so `?`, `#` and `%` in a name stay the name's.
    static func uri(_ path: String) -> String {
        var text = "file:"
        // `file://x` would name a host: a leading `//` is one `/` (the same directory).
        var bytes = Array(path.utf8)
        while bytes.count > 1 && bytes[0] == 0x2F && bytes[1] == 0x2F { bytes.removeFirst() }
        for byte in bytes {
            let unreserved = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E || byte == 0x2F
            if unreserved {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789ABCDEF".utf8)
                text += "%" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
            }
        }
        let log = LogFiles(path)
        return text + (log.isPending && log.hasSharedMemory ? "?mode=ro&readonly_shm=1" : "?mode=ro&immutable=1")
    }

    /// What the status line and stderr say of a database whose log is not read (see above),
    /// or nil.
    package static func unreadLog(_ path: String) -> String? {
        let log = LogFiles(path)
        guard log.isPending && !log.hasSharedMemory else { return nil }
        let name = String(path.split(separator: "/").last ?? Substring(path))
        return "\(name)-wal holds changes not shown: without its -shm file they cannot be read without writing one"
    }

    /// The write-ahead log and shared-memory files beside the database at `path` (next to
    /// the file a link names).
    private struct LogFiles {
        /// True when the log holds pages: changes the file itself does not have yet.
        let isPending: Bool
        let hasSharedMemory: Bool

        init(_ path: String) {
            let real = realpath(path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? path
            func regular(_ name: String) -> Int64? {
                var info = stat()
                return stat(name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int64(info.st_size) : nil
            }
            isPending = (regular(real + "-wal") ?? 0) > 0
            hasSharedMemory = regular(real + "-shm") != nil
        }
    }

    /// The error for SQLite status `status` on this connection, naming the file.
    func error(_ status: Int32) -> CellStoreError {
        let text = String(cString: sqlite3_errmsg(db)).split(whereSeparator: \.isNewline).joined(separator: " ")
        switch status & 0xFF {
        case SQLITE_NOTADB: return .unreadable(path, "not a SQLite database, or encrypted")
        case SQLITE_CORRUPT: return .unreadable(path, "the database is damaged: " + text)
        default: return .unreadable(path, text)
        }
    }

    /// Prepares `sql`; nil with the error when SQLite refuses it.
    func prepare(_ sql: String) throws(CellStoreError) -> OpaquePointer {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error(status)
        }
        return statement
    }

    /// The first column of the first row `sql` answers, as an integer (nil for NULL or no row).
    func integer(_ sql: String) throws(CellStoreError) -> Int64? {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        let status = sqlite3_step(statement)
        if status == SQLITE_DONE { return nil }
        guard status == SQLITE_ROW else { throw error(status) }
        return sqlite3_column_type(statement, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 0)
    }
}
