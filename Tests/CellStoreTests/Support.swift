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

/// Every record of a store, read through its on-demand path.
func allRows(of store: CellStore) -> [[String]] {
    (0..<store.rowCount).compactMap { store.row($0)?.strings }
}


/// Random CSV-ish bytes full of the hard cases: quotes, doubled quotes, CR, LF, CRLF,
/// delimiters, blank lines, malformed quotes and non-ASCII text.
func hostileCSV(length: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    let pieces: [[UInt8]] = [
        Array("a".utf8), Array("bc".utf8), Array(",".utf8), Array(",".utf8), Array("\"".utf8),
        Array("\"\"".utf8), Array("\n".utf8), Array("\r\n".utf8), Array("\r".utf8), Array(" ".utf8),
        Array("é".utf8), Array("中".utf8), Array("\"x,\ny\"".utf8), Array("\n\n".utf8), [0xFF], Array("\t".utf8),
    ]
    var bytes: [UInt8] = []
    while bytes.count < length {
        bytes.append(contentsOf: pieces[Int(generator.next() % UInt64(pieces.count))])
    }
    return bytes
}
