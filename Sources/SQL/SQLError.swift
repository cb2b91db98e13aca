/// What can go wrong with SQL over the open inputs, in words a user can act on.
package enum SQLError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The query is not valid SQL, names something that does not exist, or fails as it
    /// runs (SQLite's own message, on one line).
    case query(String)
    /// An input could not be read as the query needed (a record too long to read whole).
    case input(String)
    /// SQLite itself failed (out of memory, a temporary file that cannot be written).
    case engine(String)
    /// The query would write, create, attach or change a setting: SQL may only read.
    /// Holds what was refused (`ATTACH`, `CREATE TEMP TABLE`, `PRAGMA cache_size`).
    case refused(String)
    /// The query was stopped by its owner.
    case cancelled

    package var description: String {
        switch self {
        case .query(let message), .input(let message), .engine(let message): message
        case .refused(let what): "SQL may only read: \(what) is refused"
        case .cancelled: "query cancelled"
        }
    }

    /// True when the query itself is at fault (the command line exits with 65 for it).
    package var isQueryError: Bool {
        switch self {
        case .query, .refused: true
        case .input, .engine, .cancelled: false
        }
    }
}
