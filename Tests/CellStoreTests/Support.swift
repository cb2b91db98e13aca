import Foundation
@testable import CellStore

/// Where the shared test data lives in the repository.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
    static var conformance: URL { root.appendingPathComponent("conformance") }
}

/// Parses `text` fully with libcsv and the project's rules: the reference the store must match.
func parseAll(_ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ",")) throws -> [[String]] {
    var body = bytes
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body.removeFirst(3) }
    return try RecordParser.records(in: body, dialect: Dialect(delimiter: delimiter)).map(\.strings)
}

func parseAll(_ text: String) throws -> [[String]] { try parseAll(Array(text.utf8)) }

/// Feeds `bytes` to `parser` `chunk` bytes at a time, finishes it, and hands over its records.
func parsed(_ bytes: [UInt8], by parser: RecordParser, chunk: Int) -> [Row] {
    var index = 0
    while index < bytes.count {
        parser.parse(bytes[index..<min(bytes.count, index + chunk)])
        index += chunk
    }
    parser.finish()
    return parser.takeRecords()
}

/// Every record of a store, read through its on-demand path.
func allRows(of store: CellStore) -> [[String]] {
    (0..<store.rowCount).compactMap { store.row($0)?.strings }
}
