import CSQLite

/// SQLite's authorizer for a connection that may only read: statements are allowed or
/// refused by what SQLite says they do (its action codes), never by reading their text.
///
/// Allowed: reading tables (`SELECT`, recursive CTEs), calling functions (but
/// `load_extension`), transactions (they change nothing here), and the pragmas that only
/// describe tables and functions (`pragma table_info(t)`). Everything else is refused:
/// ATTACH and DETACH, every write (INSERT, UPDATE, DELETE), CREATE and DROP of anything,
/// temporary or not, ALTER, ANALYZE, REINDEX, any other pragma. A statement SQLite does
/// not ask about (VACUUM) is caught by `sqlite3_stmt_readonly` (`SQLDatabase.prepare`).
///
/// The guard notes what it refused while a statement is prepared, so that the error names
/// it (`SQL may only read: ATTACH is refused`). It lives as long as its connection and is
/// touched on that connection's thread only.
final class ReadOnlyGuard {
    /// The actions refused since `reset()`, with their arguments, in order.
    private(set) var refusals: [(action: Int32, first: String?, second: String?)] = []

    /// Pragmas that only describe (and so need no argument to be harmless).
    static let describingPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "function_list",
        "collation_list", "module_list", "pragma_list",
    ]

    /// Functions refused by name (a call is allowed otherwise).
    static let refusedFunctions: Set<String> = ["load_extension", "fts3_tokenizer"]

    /// True when something was refused since `reset()`.
    var hasRefused: Bool { !refusals.isEmpty }

    func reset() { refusals.removeAll() }

    /// Installs the guard on `db` (after the connection's own setup, which it would refuse).
    func install(on db: OpaquePointer) {
        sqlite3_set_authorizer(db, ReadOnlyGuard.authorize, Unmanaged.passUnretained(self).toOpaque())
    }

    private static let authorize: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                  UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32 = { context, action, first, second, _, _ in
        guard let context else { return SQLITE_DENY }
        let firstText = first.map { String(cString: $0) }
        let secondText = second.map { String(cString: $0) }
        guard !isAllowed(action, firstText, secondText) else { return SQLITE_OK }
        let owner = Unmanaged<ReadOnlyGuard>.fromOpaque(context).takeUnretainedValue()
        if owner.refusals.count < 8 { owner.refusals.append((action, firstText, secondText)) }
        return SQLITE_DENY
    }

    /// True for what a reading statement may do.
    static func isAllowed(_ action: Int32, _ first: String?, _ second: String?) -> Bool {
        switch action {
        case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE, SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
            return true
        case SQLITE_FUNCTION:
            return !refusedFunctions.contains(SQLNames.folded(second ?? ""))
        case SQLITE_PRAGMA:
            return describingPragmas.contains(SQLNames.folded(first ?? ""))
        default:
            return false
        }
    }

    /// What was refused, in words: the first action refused that names what the statement
    /// does (SQLite asks to write its schema tables before it asks to `DROP TABLE`), else
    /// `statement` (the statement's first word).
    func refusedWhat(statement: String) -> String {
        for refusal in refusals {
            if let what = Self.name(refusal) { return what }
        }
        return statement
    }

    /// An action in words; nil for a write to SQLite's schema tables or an action with no
    /// name of its own.
    static func name(_ refusal: (action: Int32, first: String?, second: String?)) -> String? {
        switch refusal.action {
        case SQLITE_ATTACH: return "ATTACH"
        case SQLITE_DETACH: return "DETACH"
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
            let verb = refusal.action == SQLITE_INSERT ? "INSERT" : refusal.action == SQLITE_UPDATE ? "UPDATE" : "DELETE"
            return SQLNames.folded(refusal.first ?? "").hasPrefix("sqlite_") ? nil : verb
        case SQLITE_CREATE_TABLE: return "CREATE TABLE"
        case SQLITE_CREATE_TEMP_TABLE: return "CREATE TEMP TABLE"
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TEMP_INDEX: return "CREATE INDEX"
        case SQLITE_CREATE_VIEW, SQLITE_CREATE_TEMP_VIEW: return "CREATE VIEW"
        case SQLITE_CREATE_TRIGGER, SQLITE_CREATE_TEMP_TRIGGER: return "CREATE TRIGGER"
        case SQLITE_CREATE_VTABLE: return "CREATE VIRTUAL TABLE"
        case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VTABLE: return "DROP TABLE"
        case SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX: return "DROP INDEX"
        case SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW: return "DROP VIEW"
        case SQLITE_DROP_TRIGGER, SQLITE_DROP_TEMP_TRIGGER: return "DROP TRIGGER"
        case SQLITE_ALTER_TABLE: return "ALTER TABLE"
        case SQLITE_REINDEX: return "REINDEX"
        case SQLITE_ANALYZE: return "ANALYZE"
        case SQLITE_PRAGMA: return "PRAGMA " + (refusal.first ?? "")
        case SQLITE_FUNCTION: return (refusal.second ?? "a function") + "()"
        default: return nil
        }
    }

    /// Words that lead a statement which makes or drops something.
    static let definingWords: Set<String> = ["CREATE", "DROP", "TEMP", "TEMPORARY", "UNIQUE", "VIRTUAL", "TABLE", "VIEW",
                                             "INDEX", "TRIGGER"]

    /// The first word of the statement at `start` (past blanks and comments), in capitals,
    /// with the words that follow it when it makes or drops something (`DROP TABLE`,
    /// `CREATE TEMP VIEW`): what a refusal is called when no action names it (`VACUUM`).
    static func firstWord(at start: UnsafePointer<CChar>) -> String {
        var pointer = SQLDatabase.skippingBlanks(from: start)
        var words: [String] = []
        while words.count < 4 {
            var word: [UInt8] = []
            while word.count < 32 {
                let byte = UInt8(bitPattern: pointer.pointee)
                guard (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F else { break }
                word.append((0x61...0x7A).contains(byte) ? byte - 0x20 : byte)
                pointer += 1
            }
            let text = String(decoding: word, as: UTF8.self)
            guard !word.isEmpty, words.isEmpty || definingWords.contains(text) else { break }
            words.append(text)
            guard definingWords.contains(text) else { break }
            while pointer.pointee == 0x20 || pointer.pointee == 0x09 || pointer.pointee == 0x0A || pointer.pointee == 0x0D { pointer += 1 }
        }
        return words.isEmpty ? "the statement" : words.joined(separator: " ")
    }
}
