import Foundation
import Testing

/// `--sql` with the real binary may only read: every statement that would write, create,
/// attach or change a setting is refused with one line and exit 65, and nothing beside
/// the inputs appears or changes; SQLite's memory is bounded; values come back as written.
@Suite("SQL may only read", .timeLimit(.minutes(30)))
struct SQLSafetyEndToEndTests {
    let binary = Paths.binary

    static let small = "id,code,amount,city\n1,2e7591323090,50,Oslo\n2,1E10, 150,Bergen\n3,0e5,  7 ,Alta\n4,a3f9,1200,Oslo\n"

    /// Every file in `directory`, with its bytes and modification time.
    func contents(of directory: URL) throws -> [String: String] {
        var all: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let path = directory.appendingPathComponent(name).path
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            all[name] = "\(bytes.base64EncodedString()) \(modified?.timeIntervalSince1970 ?? 0)"
        }
        return all
    }

    @Test("each kind of statement that would write is refused by name, exit 65; the directory and every input stay as they were")
    func refusals() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("small.csv").path
        try Data(Self.small.utf8).write(to: URL(fileURLWithPath: path))
        let other = dir.appendingPathComponent("rates.csv").path
        try Data("city,rate\nOslo,1\n".utf8).write(to: URL(fileURLWithPath: other))
        // An empty file beside the data (a log just rotated): ATTACH would make it a database.
        try Data().write(to: dir.appendingPathComponent("empty.csv"))
        let before = try contents(of: dir)
        let d = dir.path
        let statements: [(String, String)] = [
            ("ATTACH DATABASE '\(d)/x.db' AS x; CREATE TABLE x.t2 AS SELECT * FROM t; SELECT 1", "ATTACH"),
            ("attach '\(d)/empty.csv' as e", "ATTACH"),
            ("attach 'file:\(d)/u.db?mode=rwc' as u", "ATTACH"),
            ("detach temp", "DETACH"),
            ("VACUUM INTO '\(d)/v.db'", "VACUUM"),
            ("vacuum", "VACUUM"),
            ("drop table t; select 1", "DROP TABLE"),
            ("drop table if exists rates", "DROP TABLE"),
            ("create table c(a)", "CREATE TABLE"),
            ("create temp table c as select * from t", "CREATE TEMP TABLE"),
            ("select 1; create temporary view v as select 1", "CREATE TEMPORARY VIEW"),
            ("create virtual table z using csvfreeze(0)", "CREATE VIRTUAL TABLE"),
            ("insert into t (id) values (9)", "INSERT"),
            ("alter table t rename to u", "ALTER TABLE"),
            ("analyze", "ANALYZE"),
            ("PRAGMA temp_store_directory = '\(d)'", "PRAGMA temp_store_directory"),
            ("pragma cache_size = 5", "PRAGMA cache_size"),
            ("pragma writable_schema = on", "PRAGMA writable_schema"),
            ("select load_extension('\(d)/x')", "load_extension()"),
        ]
        for (statement, refused) in statements {
            let result = try run([binary, "--sql", statement, path, other])
            #expect(result.status == 65, "\(statement): \(result.stderr)")
            #expect(result.stderr == "csvfreeze: SQL may only read: \(refused) is refused\n", "\(statement)")
            #expect(result.stdout.isEmpty || statement.hasPrefix("select 1;"), "\(statement): \(result.text)")
        }
        // Statements SQLite itself turns away for a virtual table: its message, exit 65.
        for statement in ["delete from t", "update t set amount = 0", "create index i on t(id)"] {
            let result = try run([binary, "--sql", statement, path])
            #expect(result.status == 65, "\(statement): \(result.stderr)")
            #expect(result.stderr.components(separatedBy: "\n").count == 2, "\(result.stderr)")
        }
        #expect(try contents(of: dir) == before)
        // Reading still works, pragma table_info among it.
        let types = try run([binary, "--sql", "select name, type from pragma_table_info('t')", "--output", "csv", path])
        #expect(types.status == 0, "\(types.stderr)")
        #expect(types.text == "name,type\nid,INTEGER\ncode,TEXT\namount,INTEGER\ncity,TEXT\n")
        let info = try run([binary, "--sql", "pragma table_info(t)", "--output", "csv", path])
        #expect(info.text.hasPrefix("cid,name,type,notnull,dflt_value,pk\n0,id,INTEGER,0,,0\n1,code,TEXT,0,,0\n"), "\(info.text)")
        #expect(try contents(of: dir) == before)
    }

    @Test("a query whose memory grows without end stops at SQLite's bound with one line, exit 65")
    func memoryBound() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("small.csv").path
        try Data(Self.small.utf8).write(to: URL(fileURLWithPath: path))
        let endless = try run([binary, "--sql", "with recursive r(n) as (select 1 union all select n + 1 from r) "
                               + "select length(group_concat('xxxxxxxxxx')) from r", path])
        #expect(endless.status == 65, "\(endless.stderr)")
        #expect(endless.stderr == "csvfreeze: the query needs more than 128 MiB of memory in SQLite, the most SQL may take\n")
        let doubling = try run([binary, "--sql", "with recursive r(n, s) as (select 1, 'x' union all select n + 1, s || s from r "
                                + "where n < 40) select max(length(s)) from r", "--output", "csv", path])
        #expect(doubling.status == 65)
        #expect(doubling.stderr == "csvfreeze: the query needs more than 128 MiB of memory in SQLite, the most SQL may take\n")
    }

    @Test("values come back as written: a text column's cells byte for byte, a number column's numbers with spaces around them")
    func valuesAsWritten() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("codes.csv").path
        var csv = "code,id,amount,price\n"
        let codes = ["2e7591323090", "1E10", "0e5", "a3f9", "ffe1", "09ab", "7d3e", "b0b0"]
        for row in 0..<40 {
            csv += "\(codes[row % codes.count]),\(12345678901234567890 + UInt64(row)),\(row == 2 ? " 50" : String(100 + row)),"
                + "\(row % 2 == 0 ? "1.10" : "2")\n"
        }
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
        let all = try run([binary, "--sql", "select code, id from t", "--output", "csv", path])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.text == "code,id\n" + (0..<40).map { "\(codes[$0 % codes.count]),\(12345678901234567890 + UInt64($0))\n" }.joined())
        let found = try run([binary, "--sql", "select count(*) from t where code = '2e7591323090' and id like '12345678901234567%'",
                             "--output", "csv", path])
        #expect(found.text == "count(*)\n5\n")
        let padded = try run([binary, "--sql", "select amount, typeof(amount) from t where amount > 100 and rowid <= 4", "--output", "csv", path])
        #expect(padded.text == "amount,typeof(amount)\n101,integer\n103,integer\n")
        let json = try run([binary, "--sql", "select code, amount, price from t where rowid <= 3", "--output", "jsonl", path])
        #expect(json.text == "{\"code\":\"2e7591323090\",\"amount\":100,\"price\":1.1}\n{\"code\":\"1E10\",\"amount\":101,\"price\":2}\n"
                + "{\"code\":\"0e5\",\"amount\":50,\"price\":1.1}\n")
        // Reals, read or computed, in the shortest text that reads back the same double.
        let reals = dir.appendingPathComponent("reals.csv").path
        try Data("x\n0.1\n0.2\n0.30000000000000004\n".utf8).write(to: URL(fileURLWithPath: reals))
        let sums = try run([binary, "--sql", "select x, typeof(x), sum(x) over (order by rowid) from t", "--output", "csv", reals])
        #expect(sums.text == "x,typeof(x),sum(x) over (order by rowid)\n0.1,real,0.1\n0.2,real,0.30000000000000004\n"
                + "0.30000000000000004,real,0.6000000000000001\n", "\(sums.text)")
    }
}
