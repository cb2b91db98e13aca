import Foundation
import Testing
import TestSupport

/// `--frequency`, `--histogram` and `--summary` of a database's table: counted in the test
/// from the rows put in, and the same as the same rows written as a CSV file give.
@Suite("Counts of a database's table, end to end", .serialized, .timeLimit(.minutes(30)))
struct DatabaseInsightEndToEndTests {
    let binary = Paths.binary

    /// The rows of `orders`: item (NULL once), quantity, price.
    static let rows: [(item: String?, qty: Int, price: Double)] = [
        ("pen", 2, 1.5), ("ink", 1, 7.25), ("pen", 5, 1.5), (nil, 3, 0.5),
        ("pen", 1, 2.0), ("ink, blue", 4, 8.0), ("pen", 10, 1.25), ("ink, blue", 2, 8.0),
    ]

    /// A folder with shop.db (orders, and people) and orders.csv holding orders' rows.
    func shop() throws -> URL {
        let dir = try Paths.temporaryDirectory()
        let values = Self.rows.map { row in
            "(\(row.item.map { "'\($0)'" } ?? "NULL"), \(row.qty), \(row.price))"
        }.joined(separator: ", ")
        try DatabaseFixture.make(at: dir.appendingPathComponent("shop.db").path, """
            CREATE TABLE orders(id INTEGER PRIMARY KEY, item TEXT, qty INTEGER, price REAL);
            INSERT INTO orders(item, qty, price) VALUES \(values);
            CREATE TABLE people(name TEXT); INSERT INTO people VALUES ('Ada')
            """)
        var csv = "id,item,qty,price\n"
        for (index, row) in Self.rows.enumerated() {
            csv += "\(index + 1),\(row.item.map { $0.contains(",") ? "\"\($0)\"" : $0 } ?? ""),\(row.qty),\(row.price)\n"
        }
        try Data(csv.utf8).write(to: dir.appendingPathComponent("orders.csv"))
        return dir
    }

    @Test("--frequency counts a table's values, NULL as the empty value, as counted here")
    func frequency() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let done = try run([binary, "--frequency", "item", "--output", "csv", "--table", "orders",
                            dir.appendingPathComponent("shop.db").path])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stderr == "")
        // Counted here: most frequent first (ties in the order first met).
        var counts: [(String, Int)] = []
        for row in Self.rows {
            let value = row.item ?? ""
            if let index = counts.firstIndex(where: { $0.0 == value }) { counts[index].1 += 1 } else { counts.append((value, 1)) }
        }
        let ordered = counts.enumerated().sorted { $0.element.1 != $1.element.1 ? $0.element.1 > $1.element.1 : $0.offset < $1.offset }
        var expected = "value,count,percent\n"
        for (_, (value, count)) in ordered {
            let shown = value.contains(",") ? "\"\(value)\"" : value
            expected += "\(shown),\(count),\(String(format: "%.2f", Double(count) * 100 / Double(Self.rows.count)))\n"
        }
        #expect(done.text == expected)
    }

    @Test("--summary and --histogram of a table are those of its rows written as CSV")
    func sameAsCSV() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("shop.db").path
        let csv = dir.appendingPathComponent("orders.csv").path
        for mode in [["--summary"], ["--histogram", "qty", "--bins", "3"], ["--frequency", "price"],
                     ["--summary", "--filter", "pen", "--columns", "qty,price"]] {
            for format in ["csv", "json"] {
                let table = try run([binary] + mode + ["--output", format, "--table", "orders", db])
                let file = try run([binary] + mode + ["--output", format, csv])
                #expect(table.status == 0 && file.status == 0, "\(mode): \(table.stderr) \(file.stderr)")
                #expect(!table.text.isEmpty && table.text == file.text, "\(mode) \(format):\n\(table.text)\n\(file.text)")
                #expect(table.stderr == file.stderr.replacingOccurrences(of: csv, with: db + ":orders"), "\(mode)")
            }
        }
    }

    @Test("without --table, a database of several tables is refused in one line naming them; of one table, counted")
    func severalNeedTable() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("shop.db").path
        let refused = try run([binary, "--frequency", "item", db])
        #expect(refused.status == 2 && refused.text.isEmpty)
        #expect(refused.stderr == "csvfreeze: \(db) holds 2 tables: --table NAME writes one (orders, people)\n")
        let one = dir.appendingPathComponent("one.db").path
        try DatabaseFixture.make(at: one, "CREATE TABLE t(name TEXT); INSERT INTO t VALUES ('a'), ('b'), ('a')")
        let counted = try run([binary, "--frequency", "name", "--output", "csv", one])
        #expect(counted.status == 0)
        #expect(counted.text == "value,count,percent\na,2,66.67\nb,1,33.33\n")
        let missing = try run([binary, "--frequency", "nope", "--output", "csv", one])
        #expect(missing.status == 2 && missing.stderr.hasPrefix("csvfreeze: --frequency 'nope'"), "\(missing.stderr)")
    }
}
