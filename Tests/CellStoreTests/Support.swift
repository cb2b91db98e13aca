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


/// The parsing rules written out plainly, a byte at a time: the reference that both the
/// parser (libcsv plus the project's own rules) and the scanner are held to. Nothing is
/// trimmed; CR, LF and CRLF end a record; a blank line is a record with one empty cell; a
/// quote opens a quoted field only as a field's first byte; after a closing quote, text up
/// to the next delimiter or line end is appended (quotes in it literal); an unclosed quote
/// runs to the end.
func referenceRecords(_ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8 = UInt8(ascii: "\"")) -> [[[UInt8]]] {
    enum State { case rowStart, fieldStart, unquoted, quoted, quoteInQuoted }
    var records: [[[UInt8]]] = []
    var fields: [[UInt8]] = []
    var field: [UInt8] = []
    var state = State.rowStart
    var lastTerminator: UInt8 = 0
    func endField() { fields.append(field); field = [] }
    func endRecord(_ terminator: UInt8) {
        records.append(fields)
        fields = []
        lastTerminator = terminator
        state = .rowStart
    }
    for byte in bytes {
        let isTerminator = byte == 0x0A || byte == 0x0D
        switch state {
        case .rowStart, .fieldStart:
            if isTerminator {
                if state == .fieldStart {
                    endField(); endRecord(byte)
                } else if byte == 0x0A && lastTerminator == 0x0D {
                    lastTerminator = byte
                } else {
                    endField(); endRecord(byte)
                }
            } else if byte == delimiter {
                endField(); state = .fieldStart
            } else if byte == quote {
                state = .quoted
            } else {
                field.append(byte); state = .unquoted
            }
        case .unquoted:
            if byte == delimiter { endField(); state = .fieldStart }
            else if isTerminator { endField(); endRecord(byte) }
            else { field.append(byte) }
        case .quoted:
            if byte == quote { state = .quoteInQuoted } else { field.append(byte) }
        case .quoteInQuoted:
            if byte == quote { field.append(byte); state = .quoted }
            else if byte == delimiter { endField(); state = .fieldStart }
            else if isTerminator { endField(); endRecord(byte) }
            else { field.append(byte); state = .unquoted }
        }
    }
    if state != .rowStart { endField(); endRecord(0) }
    return records
}

/// The same, as strings (invalid UTF-8 as U+FFFD), to compare with `parseAll`.
func referenceStrings(_ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ",")) -> [[String]] {
    referenceRecords(bytes, delimiter: delimiter).map { $0.map { String(decoding: $0, as: UTF8.self) } }
}
