#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Export
import SQL
import Table
import Terminal
import Viewer


/// What the session opens and judges before the terminal is taken.
extension Session {
    /// Opens a database's table, which `input` names.
    static func openTable(_ input: TableInput, wake: @escaping @Sendable () -> Void) throws(CellStoreError) -> any RowSource {
        guard let path = input.path, let table = input.table else { throw .unreadable(input.name, "not a database's table") }
        return try DatabaseRows(path: path, table: table, wake: wake)
    }

    /// Takes `index`, kept for the file `store` reads (opened without its loader): as the
    /// whole index, or, for a file that only grew, as the index of what was there, the
    /// rest indexed on. One that does not fit is dropped and the file indexed afresh.
    static func take(_ index: IndexSnapshot, grew: Bool, into store: CellStore) {
        if grew {
            _ = store.adoptGrown(index)
            store.startLoading()
        } else if store.adopt(index) {
            store.announceIndex()
        } else {
            store.startLoading()
        }
    }

    /// The command line's filters, sort and columns, named against `store`'s header (read
    /// first: this waits for it).
    static func resolve(_ query: QueryOptions, for store: CellStore, headerRows: Int) throws(QueryOptions.Problem) -> QueryOptions.Resolved {
        store.waitForIndex { store.rowCount >= max(1, headerRows) }
        let header = headerRows > 0 ? store.row(0) : nil
        return try query.resolve(names: ColumnNames(header: header), columnCount: max(store.columnCount, header?.count ?? 0))
    }

    /// Why `store` is not followed although `--follow` asks it: it is read once.
    static func followNotice(_ store: CellStore, options: ViewerOptions) -> String? {
        guard options.follows else { return nil }
        if let compression = store.compressionName {
            return "\(compression == "xz" ? "an" : "a") \(compression) file is read once, not followed (R reads it again)"
        }
        if store.format == .jsonArray { return "a JSON array is read once, not followed (R reads it again)" }
        if store.isConverted { return "text converted to UTF-8 is read once, not followed (R reads it again)" }
        return nil
    }
}
