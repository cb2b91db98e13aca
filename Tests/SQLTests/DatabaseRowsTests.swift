#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
@testable import SQL
import Table
import Testing
import TestSupport

/// A database table as a row source, against values the test writes itself (through
/// SQLite) and the text each must read as, worked out here independently: integers in
/// decimal, reals as Python's `repr` writes them, text as it is, NULL empty, short blobs
/// as `x'…'`, long ones as `<blob N bytes>`.
@Suite(.timeLimit(.minutes(30)))
struct DatabaseRowsTests {
    /// A folder of its own for each test's databases.
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-db-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Reads `rows` until its background count ends (its wake is `news`).
    static func counted(_ rows: DatabaseRows, news: ChangeSignal) -> Bool {
        turn(within: 60, news: news, { rows.takeNews() }, until: { rows.isComplete })
    }

    @Test func theHeaderMarksADatabaseWhateverItsName() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/data.csv"
        try DatabaseFixture.make(at: path, "CREATE TABLE t(a)")
        #expect(try InputSpec.Format.detect(path: path) == .sqlite)
        #expect(try InputFacts.probe(path: path).format == .sqlite)
        let text = folder + "/plain.db"
        try Data("SQLite format 3 is a header,b\n1,2\n".utf8).write(to: URL(fileURLWithPath: text))
        #expect(try InputFacts.probe(path: text).format == .csv)
    }

    @Test func valuesReadAsSQLiteGivesThem() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/values.sqlite"
        try DatabaseFixture.make(at: path, "CREATE TABLE mixed(id INTEGER PRIMARY KEY, value, note TEXT)")
        let long = [UInt8](repeating: 0xAB, count: 65)
        let values: [(Any?, String)] = [
            (Int64(42), "42"), (Int64.min, "-9223372036854775808"), (0.25, "0.25"), (0.1, "0.1"), (-3.5, "-3.5"),
            (1.0, "1.0"), ("héllo, \"world\"\nnext", "héllo, \"world\"\nnext"), (nil, ""), ("", ""),
            ([UInt8]([0x0A, 0x1B]), "x'0A1B'"), ([UInt8](), "x''"), (long, "<blob 65 bytes>"),
        ]
        try DatabaseFixture.insert(at: path, table: "mixed", columns: 3, count: values.count) { index in
            [Int64(index + 1), values[index].0, "n\(index)"]
        }
        let news = ChangeSignal()
        let rows = try DatabaseRows(path: path, table: "mixed", wake: { news.notify() })
        #expect(rows.row(0)?.strings == ["id", "value", "note"])
        #expect(rows.headerRows == 1)
        #expect(Self.counted(rows, news: news))
        #expect(rows.rowCount == values.count + 1)
        for (index, value) in values.enumerated() {
            #expect(rows.row(index + 1)?.strings == [String(index + 1), value.1, "n\(index)"])
        }
        // A pass reads the same through its snapshot.
        let snapshot = try #require(rows.snapshot())
        #expect(snapshot.rows(in: 0..<snapshot.count).map(\.strings) == (0...values.count).compactMap { rows.row($0)?.strings })
    }

    @Test(arguments: ["plain", "gaps", "view", "without_rowid", "rowid_column"])
    func everyRowInItsPlaceBeforeAndAfterTheCount(kind: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/many.db"
        let count = 20_000
        var script = "CREATE TABLE plain(id INTEGER PRIMARY KEY, name TEXT, amount REAL)"
        script += "; CREATE TABLE without_rowid(id INTEGER PRIMARY KEY, name TEXT, amount REAL) WITHOUT ROWID"
        script += "; CREATE TABLE rowid_column(rowid TEXT, name TEXT, amount REAL)"
        try DatabaseFixture.make(at: path, script)
        for table in ["plain", "without_rowid", "rowid_column"] {
            try DatabaseFixture.insert(at: path, table: table, columns: 3, count: count) { index in
                [table == "rowid_column" ? "r\(index)" : Int64(index + 1), "name\(index)", Double(index) * 0.5]
            }
        }
        var expected: [[String]] = (0..<count).map { index in
            [kind == "rowid_column" ? "r\(index)" : String(index + 1), "name\(index)", QueryAnswer.text(of: Double(index) * 0.5)]
        }
        var table = kind
        if kind == "gaps" {
            try DatabaseFixture.make(at: path, "CREATE TABLE gaps(id INTEGER PRIMARY KEY, name TEXT, amount REAL)")
            try DatabaseFixture.insert(at: path, table: "gaps", columns: 3, count: count) { index in
                [Int64(index + 1), "name\(index)", Double(index) * 0.5]
            }
            // Every other row deleted: the first and last rowids promise twice as many rows.
            try DatabaseFixture.run(at: path, "DELETE FROM gaps WHERE id % 2 = 0")
            expected = expected.filter { Int($0[0])! % 2 == 1 }
        }
        if kind == "view" {
            try DatabaseFixture.run(at: path, "CREATE VIEW view AS SELECT id, name, amount FROM plain WHERE id > 0")
            table = "view"
        }
        let news = ChangeSignal()
        let rows = try DatabaseRows(path: path, table: table, wake: { news.notify() })
        // Before the count: the first rows, and (with a rowid) the last ones.
        #expect(rows.row(1)?.strings == expected[0])
        if kind == "plain" || kind == "rowid_column" {
            #expect(rows.rowCount == count + 1)
            #expect(rows.row(count)?.strings == expected[count - 1])
        }
        #expect(Self.counted(rows, news: news))
        #expect(rows.rowCount == expected.count + 1)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            let index = Int(generator.next() % UInt64(expected.count))
            #expect(rows.row(index + 1)?.strings == expected[index], "row \(index)")
        }
        #expect(rows.row(expected.count)?.strings == expected[expected.count - 1])
        #expect(rows.row(expected.count + 1) == nil)
        let snapshot = try #require(rows.snapshot())
        var seen: [[String]] = []
        snapshot.forEachRow(in: 1..<snapshot.count, batch: 777) { _, row in
            seen.append(row.strings)
            return true
        }
        #expect(seen == expected)
    }

    @Test func hugeValuesAreCutOnScreenAndWholeForPasses() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/huge.db"
        try DatabaseFixture.make(at: path, "CREATE TABLE t(id INTEGER PRIMARY KEY, note TEXT, data BLOB)")
        let text = String(repeating: "é", count: 1_500_000)
        try DatabaseFixture.insert(at: path, table: "t", columns: 3, count: 2) { index in
            [Int64(index + 1), index == 0 ? text : "short", [UInt8](repeating: 7, count: index == 0 ? 10 << 20 : 3)]
        }
        let news = ChangeSignal()
        let rows = try DatabaseRows(path: path, table: "t", wake: { news.notify() })
        let first = try #require(rows.row(1))
        #expect(first.isClipped(1))
        #expect(first.field(1).count == RecordParser.Limits().cell)
        #expect(first.fullLength(ofCell: 1) == text.utf8.count)
        #expect(first.string(2) == "<blob 10485760 bytes>")
        #expect(rows.row(2)?.strings == ["2", "short", "x'070707'"])
        let whole = try #require(rows.snapshot()).rows(in: 1..<2)
        #expect(whole.first?.string(1) == text)
        #expect(whole.first?.isCut == false)
    }

    @Test func aMissingTableIsNamedWithTheOthers() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/two.db"
        try DatabaseFixture.make(at: path, "CREATE TABLE people(a); CREATE TABLE places(b); CREATE VIEW both_ AS SELECT a FROM people")
        #expect(try DatabaseCatalog.tables(path: path) == [DatabaseTable(name: "people", isView: false),
                                                           DatabaseTable(name: "places", isView: false),
                                                           DatabaseTable(name: "both_", isView: true)])
        #expect(throws: CellStoreError.unreadable(path, "no table or view named 'nobody' (tables: people, places, both_)")) {
            try DatabaseRows(path: path, table: "nobody")
        }
        // Names are found as SQLite finds them.
        #expect(try DatabaseRows(path: path, table: "PEOPLE").table.name == "people")
        let empty = folder + "/empty.db"
        try DatabaseFixture.make(at: empty, "CREATE TABLE x(a); DROP TABLE x")
        #expect(try DatabaseCatalog.tables(path: empty).isEmpty)
        #expect(try InputSpec(.file(empty), format: .sqlite).tableNames() == [])
        #expect(try InputSpec(.file(path), format: .csv).tableNames() == nil)
    }

    @Test func damagedDatabasesSayWhyInOneLine() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The header and then noise: not a database.
        let noise = folder + "/noise.db"
        var generator = SeededGenerator(seed: 3)
        var bytes = Array("SQLite format 3".utf8) + [0]
        for _ in 0..<8192 { bytes.append(UInt8(truncatingIfNeeded: generator.next())) }
        try Data(bytes).write(to: URL(fileURLWithPath: noise))
        do {
            _ = try DatabaseCatalog.tables(path: noise)
            Issue.record("noise read as a database")
        } catch {
            #expect(error.description.hasPrefix(noise + ": cannot read ("))
            #expect(!error.description.contains("\n"))
        }
        // A real database cut short: opening or reading it fails with a line, or reads
        // fewer rows; never a crash.
        let whole = folder + "/whole.db"
        try DatabaseFixture.make(at: whole, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
        try DatabaseFixture.insert(at: whole, table: "t", columns: 2, count: 50_000) { [Int64($0), "some text \($0)"] }
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        for cut in [100, 4096, 8192, data.count / 2, data.count - 4096] {
            let short = folder + "/cut\(cut).db"
            try data.prefix(cut).write(to: URL(fileURLWithPath: short))
            let news = ChangeSignal()
            do {
                let rows = try DatabaseRows(path: short, table: "t", wake: { news.notify() })
                #expect(Self.counted(rows, news: news))
                _ = rows.row(rows.rowCount - 1)
                _ = rows.snapshot()?.rows(in: 0..<rows.rowCount)
                #expect(rows.rowCount <= 50_001)
            } catch {
                #expect(!error.description.contains("\n"))
                #expect(error.description.hasPrefix(short + ": "))
            }
        }
    }

    @Test func readingLeavesTheFolderAsItWas() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/wal.db"
        try DatabaseFixture.make(at: path, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
        try DatabaseFixture.insert(at: path, table: "t", columns: 2, count: 3000) { [Int64($0), "x\($0)"] }
        try DatabaseFixture.run(at: path, "PRAGMA journal_mode = WAL")
        let before = try Self.contents(of: folder)
        let news = ChangeSignal()
        do {
            let rows = try DatabaseRows(path: path, table: "t", wake: { news.notify() })
            #expect(Self.counted(rows, news: news))
            _ = rows.row(2000)
            _ = rows.snapshot()?.rows(in: 0..<rows.rowCount)
        }
        #expect(try Self.contents(of: folder) == before)
    }

    /// Every file of `folder` with its bytes.
    static func contents(of folder: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            result[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return result
    }
}
