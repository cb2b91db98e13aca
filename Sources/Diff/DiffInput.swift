import CellStore
import Query
import Table

/// One side of a diff, as a pass on another thread sees it: the store's input once its
/// index is complete, and its columns' names.
package struct DiffInput: Sendable {
    /// What the input is called in messages (the path as given, or `stdin`).
    package let name: String
    let reader: RecordReader
    /// One name per column (`ColumnNames`), as every other part of the program names them.
    package let names: [String]
    package let headerRows: Int
    /// Records in the input, header records included.
    package let recordCount: Int
    /// The kind each of the first 256 columns sorts as (judged from its first thousand
    /// values), for the order of keys; a later column is text.
    let kinds: [ColumnKind]

    /// The input of `store`, whose index must be complete (nil before).
    package init?(store: CellStore, headerRows: Int) {
        guard store.isComplete, let reader = store.recordReader() else { return nil }
        name = store.name
        self.reader = reader
        self.headerRows = headerRows
        recordCount = store.rowCount
        let columns = store.columnCount
        names = ColumnNames(header: headerRows > 0 ? store.row(0) : nil, longest: 1024).names(count: columns)
        // Only the first columns: a key is rarely past them, and a wide file would pay for all.
        kinds = (0..<min(names.count, 256)).map { ColumnKind.judge(column: $0, in: store, headerRows: headerRows) }
    }

    /// Data records (after the header).
    package var dataRecords: Int { max(0, recordCount - headerRows) }

    /// Where the first record (the header, if any) starts.
    var start: Int64 { reader.checkpoints.first?.offset ?? 0 }

    /// Bytes a diff reads of it.
    var byteCount: Int64 { max(0, reader.end - start) }
}

/// Why a diff could not be made, in words a user can act on.
package enum DiffError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key column that one of the tables does not have.
    case unknownKey(String)
    /// A temporary file could not be made or written, or an input could not be read.
    case failed(String)

    package var description: String {
        switch self {
        case .unknownKey(let why), .failed(let why): return why
        }
    }
}
