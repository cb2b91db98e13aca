import CellStore
import CSQLite

/// One table or view of a database file, as the list of tables shows it.
package struct DatabaseTable: Sendable, Equatable {
    /// Its name, as the schema spells it.
    package let name: String
    /// True for a view (read by position: it has no rowid).
    package let isView: Bool

    package init(name: String, isView: Bool) {
        self.name = name
        self.isView = isView
    }
}

/// The tables and views of a database file, in the order they were made (the schema's).
package enum DatabaseCatalog {
    /// Every table and view of the database at `path`, SQLite's own (`sqlite_…`) left out;
    /// one line naming the file when it cannot be read as a database.
    package static func tables(path: String) throws(CellStoreError) -> [DatabaseTable] {
        try tables(in: DatabaseConnection(path: path))
    }

    static func tables(in connection: DatabaseConnection) throws(CellStoreError) -> [DatabaseTable] {
        let statement = try connection.prepare(
            "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        defer { sqlite3_finalize(statement) }
        var tables: [DatabaseTable] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw connection.error(status) }
            guard let name = sqlite3_column_text(statement, 0), let type = sqlite3_column_text(statement, 1) else { continue }
            tables.append(DatabaseTable(name: String(cString: name), isView: String(cString: type) == "view"))
        }
        return tables
    }

    /// The table of `tables` named `name`: the one spelled so, else the one SQLite would
    /// take for it (names are compared ignoring ASCII case); nil when none is.
    package static func table(named name: String, in tables: [DatabaseTable]) -> DatabaseTable? {
        tables.first { $0.name == name } ?? tables.first { SQLNames.folded($0.name) == SQLNames.folded(name) }
    }

    /// `path: no table named 'x' (tables: a, b, c)`: the names on one line (the first 20).
    package static func missing(_ name: String, path: String, tables: [DatabaseTable]) -> CellStoreError {
        let names = tables.prefix(20).map(\.name).joined(separator: ", ") + (tables.count > 20 ? ", … (\(tables.count) in all)" : "")
        return .unreadable(path, "no table or view named '\(name)'" + (tables.isEmpty ? "; it has none" : " (tables: \(names))"))
    }
}

extension InputSpec {
    /// The tables an input holds, by name, when its format holds several (a database's
    /// tables and views, a workbook's sheets); nil for a format with one table (CSV, JSON).
    /// A database with none gives `[]`: the caller says so.
    package func tableNames() throws(CellStoreError) -> [String]? {
        switch format {
        case .sqlite:
            guard let path = try readablePathForTables() else { return nil }
            return try DatabaseCatalog.tables(path: path).map(\.name)
        case .xlsx:
            guard let path = try readablePathForTables() else { return nil }
            return try Workbook.sheetNames(path: path)
        case .csv, .jsonLines, .jsonArray:
            return nil
        }
    }

    /// The path of a file input; a database on standard input cannot be read at random.
    private func readablePathForTables() throws(CellStoreError) -> String? {
        switch location {
        case .file(let path): return path
        case .standardInput: throw .unreadable("stdin", "a SQLite database must be a file, not standard input")
        case .url(let url): throw .unreadable(url, "reading a URL is not supported yet")
        }
    }
}
