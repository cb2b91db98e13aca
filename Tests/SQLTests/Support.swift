import CellStore
import Foundation
@testable import SQL
import TestSupport

/// A database over inputs held in memory, each indexed at once.
func database(_ inputs: [(name: String, text: String)], headerRows: Int = 1, spacing: Int64 = 64,
              settings: SQLSettings = SQLSettings()) throws -> SQLDatabase {
    let names = SQLNames.tableNames(forPaths: inputs.map { $0.name + ".csv" })
    var tables: [SQLInput] = []
    for (input, names) in zip(inputs, names) {
        let store = CellStore(bytes: Array(input.text.utf8), name: input.name, delimiter: UInt8(ascii: ","), checkpointSpacing: spacing)
        guard let table = SQLInput(store: store, name: names[0], headerRows: headerRows) else { throw SQLError.engine("no input") }
        tables += names.map { table.named($0) }
    }
    return try SQLDatabase(inputs: tables, settings: settings)
}

/// Every row of the answer to `sql`, as strings.
func rows(_ database: SQLDatabase, _ sql: String, batch: Int = 7) throws -> [[String]] {
    let answer = try database.prepare(sql)
    var all: [[String]] = []
    while let some = try answer.next(batch: batch) { all += some.map(\.strings) }
    return all
}

/// A CSV field as a writer quotes it.
func quoted(_ field: String) -> String {
    field.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D })
        ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
}

/// Seeded rows of sales: id, country, city, price (sometimes empty), note (quoted, with
/// commas, doubled quotes and line breaks).
struct Sales {
    struct Sale {
        var id: Int
        var country: String
        var city: String
        var price: Double?
        var priceText: String
        var note: String
    }

    static let places = [("Kenya", ["Nairobi", "Mombasa"]), ("France", ["Paris", "Lyon"]), ("Japan", ["Tokyo"]),
                         ("Brazil", ["São Paulo", "Rio"]), ("Peru", ["Lima"]), ("Zürich, CH", ["Zürich"])]
    static let notes = ["", "ok", "late, again", "said \"fine\"", "line one\nline two", "\"\"", "a\r\nb"]

    var sales: [Sale] = []

    init(count: Int, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for id in 1...max(1, count) {
            let (country, cities) = Sales.places[Int(generator.next() % UInt64(Sales.places.count))]
            let city = cities[Int(generator.next() % UInt64(cities.count))]
            let cents = Int(generator.next() % 50_000)
            let roll = generator.next() % 10
            let price: Double? = roll == 0 ? nil : Double(cents) / 100
            let priceText = roll == 0 ? "" : roll == 1 ? String(cents / 100) : String(format: "%.2f", Double(cents) / 100)
            sales.append(Sale(id: id, country: country, city: city, price: roll == 1 ? Double(cents / 100) : price,
                              priceText: priceText, note: Sales.notes[Int(generator.next() % UInt64(Sales.notes.count))]))
        }
    }

    var csv: String {
        "id,country,city,price,note\n" + sales.map { sale in
            [String(sale.id), sale.country, sale.city, sale.priceText, sale.note].map(quoted).joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }
}

/// Numbers as the answer writes a real, for comparing with a computation in Swift.
func close(_ text: String, _ value: Double) -> Bool {
    guard let read = Double(text) else { return false }
    return abs(read - value) <= 1e-9 * max(1, abs(value))
}

/// A cell of a column of the type `isNumber` says as the answer writes it once SQL has
/// typed it: NULL empty, a number column's numbers as numbers, the rest as written.
func rendered(_ cell: ArraySlice<UInt8>, isNumber: Bool) -> String {
    Array(cell).withUnsafeBytes { bytes in
        let (kind, bits) = SQLTyping.type(bytes, isNumber: isNumber)
        switch kind {
        case .null: return ""
        case .integer: return String(Int64(bitPattern: bits))
        case .real: return QueryAnswer.text(of: Double(bitPattern: bits))
        case .text: return String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// Random well-quoted CSV (plain and quoted fields with delimiters, doubled quotes and line
/// breaks; LF, CRLF and CR; blank lines; ragged rows; numbers of every form), so the raw
/// readers are used.
func wellQuotedCSV(records: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    let plain = ["a", "bc", "", "1", "2.5", "-3", "é", "中文", "x y", "2024-01-02", "007", "1e3", "$5", "1,5", "Nairobi", "nairobi"]
    let quoted = ["\"\"", "\"a,b\"", "\"say \"\"hi\"\"\"", "\"line\nbreak\"", "\"cr\r\nlf\"", "\"\"\"\"", "\"1\"", "\"Nairobi, KE\"", "\"1,000\""]
    let ends = ["\n", "\r\n", "\r"]
    var text = ""
    for _ in 0..<records {
        if generator.next() % 25 == 0 {
            text += ends[Int(generator.next() % 3)]   // a blank line
            continue
        }
        let fields = 1 + Int(generator.next() % 5)
        var cells: [String] = []
        for _ in 0..<fields {
            cells.append(generator.next() % 3 == 0 ? quoted[Int(generator.next() % UInt64(quoted.count))]
                         : plain[Int(generator.next() % UInt64(plain.count))])
        }
        text += cells.joined(separator: ",") + ends[Int(generator.next() % 3)]
    }
    if generator.next() % 2 == 0, !text.isEmpty { text.removeLast() }   // sometimes no final line end
    return Array(text.utf8)
}

/// Random well-quoted CSV whose columns are mostly numbers of every form the summary
/// reads (signs, points, exponents, spaces around, thousands separators, currency, %),
/// with a few cells that are not numbers SQL can hold (`007`, `N/A`, 20 digits, `1e400`).
func numericCSV(records: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    let numbers = ["1", "-3", "2.5", ".5", "5.", " 7 ", "1e3", "1E10", "0e5", "-0", "$5", "\"1,000\"", "12%", "0.1",
                   "9223372036854775807", "-9223372036854775808", "123456789012345678", "1.10", "+4", "3.0"]
    let odd = ["007", "N/A", "12345678901234567890", "1e400", "1e-400", "", "x"]
    var text = ""
    for _ in 0..<records {
        var cells: [String] = []
        for _ in 0..<4 {
            cells.append(generator.next() % 50 == 0 ? odd[Int(generator.next() % UInt64(odd.count))]
                         : numbers[Int(generator.next() % UInt64(numbers.count))])
        }
        text += cells.joined(separator: ",") + "\n"
    }
    return Array(text.utf8)
}

/// The columns' types as `pragma table_info` shows them.
func columnTypes(_ database: SQLDatabase, table: String = "t") throws -> [SQLColumnType] {
    try rows(database, "pragma table_info(\(table))").map { row in
        guard let type = SQLColumnType(rawValue: row[2]) else { throw SQLError.engine("type \(row[2])") }
        return type
    }
}

/// The reference: every record as the parser reads it.
func referenceRows(_ bytes: [UInt8]) -> [Row] {
    (try? RecordParser.records(in: bytes, dialect: Dialect(delimiter: UInt8(ascii: ",")))) ?? []
}

/// A database over raw bytes (no header row), indexed with small checkpoints.
func database(bytes: [UInt8], spacing: Int64 = 32, settings: SQLSettings = SQLSettings()) throws -> SQLDatabase {
    let store = CellStore(bytes: bytes, name: "random", delimiter: UInt8(ascii: ","), checkpointSpacing: spacing)
    guard let input = SQLInput(store: store, name: "t", headerRows: 0) else { throw SQLError.engine("no input") }
    return try SQLDatabase(inputs: [input], settings: settings)
}
