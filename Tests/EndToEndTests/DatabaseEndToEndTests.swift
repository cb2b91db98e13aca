#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// SQLite databases with the real binary: tables on screen (T, }, {, --table), output,
/// --sql beside a CSV file, damaged files, and a folder left as it was. The databases are
/// made here through SQLite; the expected text is written out by hand.
@Suite("SQLite databases, end to end", .serialized, .timeLimit(.minutes(30)))
struct DatabaseEndToEndTests {
    let binary = Paths.binary

    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// A folder with shop.db (people, places, a view of both) and city.csv.
    func shop() throws -> URL {
        let dir = try Paths.temporaryDirectory()
        let path = dir.appendingPathComponent("shop.db").path
        try DatabaseFixture.make(at: path, """
            CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, score REAL, photo BLOB, city_id INTEGER);
            INSERT INTO people VALUES (1, 'Ann', 1.5, x'0A1B', 10), (2, 'Bo, "the" second', NULL, NULL, 20), (3, 'Cy', 0.1, zeroblob(100), 10);
            CREATE TABLE places(city_id INTEGER PRIMARY KEY, country TEXT) WITHOUT ROWID;
            INSERT INTO places VALUES (10, 'France'), (20, 'Peru');
            CREATE VIEW who AS SELECT name, country FROM people JOIN places USING (city_id)
            """)
        try Data("city_id,city\n10,Lyon\n20,Lima\n".utf8).write(to: dir.appendingPathComponent("city.csv"))
        return dir
    }

    @Test("every table and view of a database is a table: } { switch, T lists them with their rows, Enter shows one")
    func tablesOnScreen() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try contents(of: dir)
        // Named as no database is: the header says what it is.
        try FileManager.default.moveItem(at: dir.appendingPathComponent("shop.db"), to: dir.appendingPathComponent("shop.data"))
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) shop.data", width: 100, height: 10)
        var lines = try pane.waitFor("the first table") { self.status($0).contains("shop.data:people 1/3") }
        #expect(lines[0].contains("id") && lines[0].contains("name") && lines[0].contains("photo"))
        #expect(lines[1].contains("Ann") && lines[1].contains("1.5") && lines[1].contains("x'0A1B'"))
        #expect(lines[3].contains("<blob 100 bytes>"))
        try pane.send("}")
        lines = try pane.waitFor("the table without rowid") { self.status($0).contains("shop.data:places 2/3") }
        #expect(lines[1].contains("10") && lines[1].contains("France"))
        try pane.send("}")
        lines = try pane.waitFor("the view") { self.status($0).contains("shop.data:who 3/3") }
        #expect(lines.contains { $0.contains("Bo, \"the\" second") && $0.contains("Peru") })
        try pane.send("T")
        lines = try pane.waitFor("the list, counted") { lines in
            lines.contains { $0.contains("shop.data:people") && $0.contains(" 3 ") && $0.contains("SQLite table") }
                && lines.contains { $0.contains("shop.data:places") && $0.contains(" 2 ") }
                && lines.contains { $0.contains("shop.data:who") && $0.contains("SQLite view") }
        }
        try pane.send("g", "Enter")
        try pane.waitFor("the first table again") { self.status($0).contains("shop.data:people 1/3") }
        try pane.send("{")
        try pane.waitFor("back to the last") { self.status($0).contains("shop.data:who 3/3") }
        // Q asks SQLite: t is the table on screen, the others are there by name.
        try pane.send("Q")
        try pane.send("select count(*) || ' of ' || (select count(*) from people) from t")
        try pane.send("Enter")
        try pane.waitFor("the answer") { $0.contains { $0.contains("3 of 3") } }
        // Escape alone, and back on the table, before Q: Escape and Q in one burst read as Alt-Q.
        try pane.send("Escape")
        try pane.waitFor("the table again") { !$0.contains { $0.contains("3 of 3") } }
        try pane.send("Q", "delete from people", "Enter")
        try pane.waitFor("the write refused") { self.status($0).contains("SQL may only read: DELETE is refused") }
        // Ctrl-S over the database itself is refused; to another name it writes CSV.
        try pane.send("C-s", "C-u", "shop.data", "Enter")
        try pane.waitFor("the save refused") { self.status($0).contains("not written: that file is open here") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
        try FileManager.default.moveItem(at: dir.appendingPathComponent("shop.data"), to: dir.appendingPathComponent("shop.db"))
        // Reading wrote nothing: no journal, no WAL, no shared memory, no byte changed.
        #expect(try contents(of: dir) == before)
    }

    @Test("search, filter and the frequency sheet read a database's table through its rows")
    func passes() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("many.db").path
        try DatabaseFixture.make(at: db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
        let cities = ["Lyon", "Oslo", "Rome"]
        try DatabaseFixture.insert(at: db, table: "t", columns: 3, count: 30_000) { [$0 + 1, "name\($0 + 1)", cities[$0 % 3]] }
        let pane = try TmuxPane("\(binary) \(shellQuote(db))", width: 80, height: 10)
        try pane.waitFor("the table, counted") { self.status($0).contains("row 1/30,000 ") }
        try pane.send("/", "^name29999$", "Enter")
        try pane.waitFor("the row found") { self.status($0).contains("row 29,999/30,000") }
        try pane.send("g", "Right", "Right", "|", "Rome", "Enter")
        var lines = try pane.waitFor("the rows kept") { self.status($0).contains("/10,000") }
        #expect(lines.dropFirst().prefix(3).allSatisfy { $0.contains("Rome") }, "\(lines)")
        // The frequency of the column under the cursor, over the rows the filter keeps.
        try pane.send("#")
        lines = try pane.waitFor("the counts") { self.status($0).contains("1 distinct value in 10,000 rows") }
        #expect(lines.contains { $0.contains("Rome") && $0.contains("10000") })
        try pane.send("q", "q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("--table opens one table; a name not there is one line with the names, exit 1")
    func oneTable() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("shop.db").path
        let pane = try TmuxPane("\(binary) --table PLACES \(shellQuote(db))", width: 80, height: 6)
        let lines = try pane.waitFor("the one table") { self.status($0).contains("shop.db:places") }
        #expect(!status(lines).contains("places 1/"))
        try pane.send("}")
        try pane.waitFor("no other table") { self.status($0).contains("only one table is open") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
        let missing = try run([binary, "--table", "nobody", db])
        #expect(missing.status == 1)
        #expect(missing.stderr == "csvfreeze: \(db): cannot read (no table or view named 'nobody' (tables: people, places, who))\n")
        let csv = try run([binary, "--table", "x", dir.appendingPathComponent("city.csv").path])
        #expect(csv.status == 64)
    }

    @Test("--output writes a table as SQLite reads it; several need --table")
    func output() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("shop.db").path
        let written = try run([binary, "--output", "csv", "--table", "people", db])
        #expect(written.status == 0)
        #expect(written.text == "id,name,score,photo,city_id\n1,Ann,1.5,x'0A1B',10\n2,\"Bo, \"\"the\"\" second\",,,20\n3,Cy,0.1,<blob 100 bytes>,10\n")
        let sorted = try run([binary, "--output", "csv", "--table", "who", "--sort", "country", "--columns", "country", db])
        #expect(sorted.text == "country\nFrance\nFrance\nPeru\n")
        let several = try run([binary, "--output", "csv", db])
        #expect(several.status == 2)
        #expect(several.stderr == "csvfreeze: \(db) holds 3 tables: --table NAME writes one (people, places, who)\n")
        // Beside a text file, a database's table is not stacked, and the line says so
        // (it said "holds 1 tables: --table NAME writes one" though --table was given).
        let csv = dir.appendingPathComponent("city.csv").path
        let stacked = try run([binary, "--output", "csv", "--table", "people", csv, db])
        #expect(stacked.status == 2 && stacked.text == "")
        #expect(stacked.stderr == "csvfreeze: several inputs are written as one table from text files, not a database's tables (\(db):people): --sql can join them\n")
    }

    @Test("a database whose write-ahead log holds changes not yet in the file shows them; no file beside it changes or is made")
    func pendingLog() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("app.db").path
        try DatabaseFixture.makeWithPendingLog(at: db, "CREATE TABLE events(id INTEGER PRIMARY KEY, what TEXT); INSERT INTO events VALUES (1, 'start'), (2, 'stop')")
        let files = [db, db + "-wal", db + "-shm"]
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        // Everything is in the log: read immutable, the file alone has no table at all.
        let written = try run([binary, "--output", "csv", db])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.text == "id,what\n1,start\n2,stop\n", "\(written.text)")
        let counted = try run([binary, "--sql", "select count(*) from events", "--output", "csv", db])
        #expect(counted.text == "count(*)\n2\n", "\(counted.text) \(counted.stderr)")
        let pane = try TmuxPane("\(shellQuote(binary)) \(shellQuote(db))", width: 80, height: 8)
        try pane.waitFor("the table") { status($0).contains("row 1/2") && $0.contains { $0.contains("stop") } }
        try pane.send("q")
        #expect(try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["app.db", "app.db-shm", "app.db-wal"])
    }

    @Test("a log left without its -shm file is not read, as reading it would make one beside the database: said on stderr and the status line")
    func pendingLogWithoutSharedMemory() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("app.db").path
        try DatabaseFixture.makeWithPendingLog(at: db, before: "CREATE TABLE events(id INTEGER PRIMARY KEY, what TEXT); INSERT INTO events VALUES (1, 'start')",
                                               "INSERT INTO events VALUES (2, 'stop')", sharedMemory: false)
        let written = try run([binary, "--output", "csv", db])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.text == "id,what\n1,start\n", "\(written.text)")
        #expect(written.stderr == "csvfreeze: app.db-wal holds changes not shown: without its -shm file they cannot be read without writing one\n")
        let pane = try TmuxPane("\(shellQuote(binary)) \(shellQuote(db))", width: 120, height: 8)
        try pane.waitFor("the note") { status($0).contains("app.db-wal holds changes not shown") }
        try pane.send("q")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["app.db", "app.db-wal"])
    }

    @Test("--diff compares a database's table (--table, or its only one) with a CSV file, named shop.db:TABLE")
    func diff() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try contents(of: dir)
        let db = dir.appendingPathComponent("shop.db").path
        let places = dir.appendingPathComponent("places.csv").path
        try Data("city_id,country\n10,France\n20,Peru\n".utf8).write(to: URL(fileURLWithPath: places))
        let same = try run([binary, "--diff", places, "--table", "places", "--output", "csv", db])
        #expect(same.status == 0 && same.stderr == "", "\(same.stderr)")
        #expect(same.text == "@@,city_id,country\n")
        try Data("city_id,country\n10,France\n20,Chile\n".utf8).write(to: URL(fileURLWithPath: places))
        let changed = try run([binary, "--diff", places, "--table", "places", "--output", "csv", db])
        #expect(changed.status == 1 && changed.text == "@@,city_id,country\n,10,France\n->,20,Peru->Chile\n", "\(changed.text)")
        // Messages name the table, not the copy its rows were read from.
        try Data("city_id,country\n10,France\n10,Peru\n".utf8).write(to: URL(fileURLWithPath: places))
        let keyed = try run([binary, "--diff", db, "--table", "places", "--key", "city_id", "--output", "csv", places])
        #expect(keyed.stderr.contains("\(places): 1 record repeats a key"), "\(keyed.stderr)")
        let repeated = try run([binary, "--diff", db, "--table", "who", "--key", "country", "--output", "csv", places])
        #expect(repeated.stderr.contains("\(db):who: 1 record repeats a key") && !repeated.stderr.contains("/proc/"),
                "\(repeated.stderr)")
        let several = try run([binary, "--diff", places, "--output", "csv", db])
        #expect(several.status == 2 && several.stderr == "csvfreeze: \(db) holds 3 tables: --table NAME writes one (people, places, who)\n")
        let missing = try run([binary, "--diff", places, "--table", "nope", "--output", "csv", db])
        #expect(missing.status == 2 && missing.stderr.contains("no table or view named 'nope'"), "\(missing.stderr)")
        #expect(try contents(of: dir).filter { $0.key != "places.csv" } == before.filter { $0.key != "places.csv" })
    }

    @Test("--sql reads a database's tables by name, joined with a CSV file beside it; writes are refused")
    func sql() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try contents(of: dir)
        let db = dir.appendingPathComponent("shop.db").path, csv = dir.appendingPathComponent("city.csv").path
        let joined = try run([binary, "--output", "csv", "--sql",
                              "select p.name, c.city, w.country from people p join city c using (city_id) join shop.who w using (name) order by p.id",
                              db, csv])
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.text == "name,city,country\nAnn,Lyon,France\n\"Bo, \"\"the\"\" second\",Lima,Peru\nCy,Lyon,France\n")
        // t is the table --table names, when the database comes first.
        let counted = try run([binary, "--output", "csv", "--table", "places", "--sql", "select count(*) as n from t", db, csv])
        #expect(counted.text == "n\n2\n", "\(counted.stderr)")
        for write in ["delete from people", "drop table places", "attach 'x.db' as x", "create table shop.x(a)", "vacuum"] {
            let refused = try run([binary, "--sql", write, db])
            #expect(refused.status == 65, "\(write): \(refused.stderr)")
            #expect(refused.stderr.hasPrefix("csvfreeze: SQL may only read:"), "\(write): \(refused.stderr)")
        }
        #expect(try contents(of: dir) == before)
    }

    @Test("damaged, empty and hostile databases: one line and a non-zero exit, never a crash")
    func badDatabases() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The header, then bytes no database has (a seeded mix, the same each run).
        var noise = Array("SQLite format 3".utf8) + [0]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            noise.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        let noisy = dir.appendingPathComponent("noise.db").path
        try Data(noise).write(to: URL(fileURLWithPath: noisy))
        let empty = dir.appendingPathComponent("empty.db").path
        try DatabaseFixture.make(at: empty, "CREATE TABLE x(a); DROP TABLE x")
        let whole = dir.appendingPathComponent("whole.db").path
        try DatabaseFixture.make(at: whole, "CREATE TABLE t(id INTEGER PRIMARY KEY, note TEXT)")
        try DatabaseFixture.insert(at: whole, table: "t", columns: 2, count: 20_000) { [$0, String(repeating: "x", count: $0 % 300)] }
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.appendingPathComponent("cut.db").path
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: cut))
        let wide = dir.appendingPathComponent("wide.db").path
        let columns = (1...2000).map { "c\($0)" }.joined(separator: ", ")
        try DatabaseFixture.make(at: wide, "CREATE TABLE w(\(columns)); INSERT INTO w(c1, c2000) VALUES ('first', 'last')")
        // A schema that names 2,001 columns, past what SQLite takes.
        let over = dir.appendingPathComponent("over.db").path
        try DatabaseFixture.make(at: over, "CREATE TABLE w(a)")
        try DatabaseFixture.run(at: over, "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE TABLE w("
                                + (1...2001).map { "c\($0)" }.joined(separator: ", ") + ")' WHERE name = 'w'")
        for (path, expected) in [(noisy, "not a SQLite database"), (empty, "the database has no tables"), (over, "too many columns")] {
            // A database with no tables is one SQL can still ask `select 1`.
            for arguments in [[binary, "--output", "csv", path]] + (path == empty ? [] : [[binary, "--sql", "select * from w", path]]) {
                let failed = try run(arguments)
                #expect(failed.status == 1, "\(arguments): \(failed.stderr)")
                #expect(failed.stderr.hasPrefix("csvfreeze: \(path)"), "\(arguments): \(failed.stderr)")
                #expect(failed.stderr.filter { $0 == "\n" }.count == 1, "\(failed.stderr)")
                #expect(arguments.contains("--sql") || failed.stderr.contains(expected), "\(failed.stderr)")
            }
        }
        // Cut short: what can be read, or one line; never a signal.
        let short = try run([binary, "--output", "csv", cut])
        #expect(short.status == 0 || short.status == 1)
        #expect(short.status == 0 || short.stderr.filter { $0 == "\n" }.count == 1, "\(short.stderr)")
        let widest = try run([binary, "--output", "csv", wide])
        #expect(widest.status == 0)
        let last = widest.text.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("first,") && last.hasSuffix(",last") && last.filter { $0 == "," }.count == 1999)
        // Compressed: said in one line, not shown as its pages' bytes (it was, with exit 0).
        let packed = dir.appendingPathComponent("whole.db.gz").path
        #expect(try run(["/bin/sh", "-c", "gzip -c \(shellQuote(whole)) > \(shellQuote(packed))"]).status == 0)
        for arguments in [["--output", "csv"], ["--summary"], ["--sql", "select count(*) from t"]] {
            let refused = try run([binary] + arguments + [packed])
            #expect(refused.status == 1 && refused.text.isEmpty, "\(arguments)")
            #expect(refused.stderr == "csvfreeze: \(packed): holds a SQLite database, compressed: decompress it first (its tables are read from the file itself)\n",
                    "\(arguments): \(refused.stderr)")
        }
    }

    @Test("--set, --delete-row and --in-place never touch a database: one line, exit 64, every byte of its folder the same")
    func neverEdited() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("shop.db").path
        let before = try contents(of: dir)
        for arguments in [["--set", "1:1=x", "--in-place"], ["--delete-row", "1", "--in-place"], ["--set", "1:1=x", "--output", "csv"],
                          ["--table", "people", "--set", "1:1=x", "--in-place"]] {
            let refused = try run([binary] + arguments + [db])
            #expect(refused.status == 64, "\(arguments)")
            #expect(refused.stderr == "csvfreeze: --set, --delete-row and --recover edit text, not a database: \(db) is read only\n")
            #expect(refused.text.isEmpty)
        }
        #expect(try contents(of: dir) == before)
    }

    /// Every file of `dir` with its bytes.
    func contents(of dir: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            result[name] = try Data(contentsOf: dir.appendingPathComponent(name))
        }
        return result
    }
}
