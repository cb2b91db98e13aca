#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// A database, a workbook and a JSON array arriving on standard input (`cat shop.db |
/// csvfreeze`): told by their first bytes as a file of theirs is, the database and the
/// workbook read from a private copy that is gone when the command ends.
@Suite("Formats on standard input, end to end", .serialized, .timeLimit(.minutes(30)))
struct StandardInputFormatsTests {
    let binary = Paths.binary

    /// A folder with shop.db (two tables) and a temporary folder of its own for the copy.
    func shop() throws -> URL {
        let dir = try Paths.temporaryDirectory()
        try DatabaseFixture.make(at: dir.appendingPathComponent("shop.db").path, """
            CREATE TABLE orders(id INTEGER PRIMARY KEY, item TEXT, qty INTEGER);
            INSERT INTO orders(item, qty) VALUES ('pen', 2), ('ink', 1), ('pen, blue', 5);
            CREATE TABLE people(name TEXT);
            INSERT INTO people VALUES ('Ada')
            """)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        return dir
    }

    /// Runs `command` in sh in `dir`, `TMPDIR` its `tmp` folder.
    func shell(_ command: String, in dir: URL) throws -> Completed {
        try run(["/bin/sh", "-c", "cd \(shellQuote(dir.path)) || exit 1; " + command],
                environment: ["TMPDIR": dir.appendingPathComponent("tmp").path])
    }

    /// Shell lines that wait (60 s at most) until the copy of standard input is made.
    static let untilCopied = "n=0; until [ -e tmp/*/stdin ] || [ $n -gt 1200 ]; do n=$((n+1)); sleep 0.05; done; "

    /// What is left in the test's temporary folder.
    func leftovers(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("tmp").path)
    }

    @Test("a database on standard input, from a file or through a pipe, is its tables; --table chooses one")
    func database() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = "id,item,qty\n1,pen,2\n2,ink,1\n3,\"pen, blue\",5\n"
        for feed in ["\(binary) --table orders --output csv < shop.db", "cat shop.db | \(binary) --table orders --output csv"] {
            let done = try shell(feed, in: dir)
            #expect(done.status == 0 && done.stderr == "", "\(feed): \(done.stderr)")
            #expect(done.text == expected, "\(feed)")
            #expect(try leftovers(dir) == [], "\(feed)")
        }
        let people = try shell("cat shop.db | \(binary) --table people --output tsv", in: dir)
        #expect(people.text == "name\nAda\n")
        let missing = try shell("cat shop.db | \(binary) --table nope --output csv", in: dir)
        #expect(missing.status == 1 && missing.stderr.hasPrefix("csvfreeze: stdin: ")
                && missing.stderr.contains("no table or view named 'nope' (tables: orders, people)"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("tmp/"), "the copy's path is not shown: \(missing.stderr)")
        #expect(try leftovers(dir) == [])
    }

    @Test("past the spool limit, a database on a pipe is refused in one line and no copy is left")
    func spoolLimit() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let done = try shell("cat shop.db | \(binary) --spool-limit 1K --table orders --output csv", in: dir)
        #expect(done.status == 1)
        #expect(done.stderr == "csvfreeze: stdin: a SQLite database is read from a copy in a file, and this one is more than --spool-limit 1K\n")
        #expect(done.text == "")
        #expect(try leftovers(dir) == [])
    }

    /// Shell lines that start the binary with `arguments` reading the FIFO `in` (its pid
    /// in `$pid`), fed shop.db and then whatever comes to the FIFO `hold` (`: > hold`
    /// ends it), and wait until the copy of standard input is made.
    func holding(_ arguments: String, in dir: URL) throws -> String {
        #expect(mkfifo(dir.appendingPathComponent("in").path, 0o600) == 0)
        #expect(mkfifo(dir.appendingPathComponent("hold").path, 0o600) == 0)
        return "\(binary) \(arguments) < in > out & pid=$!; (cat shop.db; cat hold) > in & feeder=$!; " + Self.untilCopied
    }

    @Test("a signal while the copy is made removes it")
    func signalRemovesTheCopy() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let command = try holding("--table orders --output csv", in: dir)
            + "ls tmp/*/ > listed; kill -TERM $pid; wait $pid; echo \"exit=$?\"; : > hold; wait $feeder"
        let done = try shell(command, in: dir)
        #expect(done.text.contains("exit=143"), "\(done.text) \(done.stderr)")
        #expect(try String(contentsOf: dir.appendingPathComponent("listed"), encoding: .utf8) == "stdin\n")
        #expect(try leftovers(dir) == [])
    }

    @Test("the copy is private: its folder 0700 and the file 0600")
    func copyIsPrivate() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let command = try holding("--table orders --output csv", in: dir)
            + "stat -c %a tmp/* tmp/*/stdin; : > hold; wait $pid; echo \"exit=$?\"; wait $feeder"
        let done = try shell(command, in: dir)
        #expect(done.text == "700\n600\nexit=0\n", "\(done.stderr)")
        #expect(try String(contentsOf: dir.appendingPathComponent("out"), encoding: .utf8).hasPrefix("id,item,qty\n1,pen,2\n"))
        #expect(try leftovers(dir) == [])
    }

    @Test("a workbook through a pipe reads as the file does")
    func workbook() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let book = Paths.package.appendingPathComponent("Tests/Fixtures/xlsx/values.xlsx").path
        let fromFile = try shell("\(binary) --output csv --table 'Second sheet' \(shellQuote(book))", in: dir)
        #expect(fromFile.status == 0 && !fromFile.text.isEmpty)
        let piped = try shell("cat \(shellQuote(book)) | \(binary) --output csv --table 'Second sheet'", in: dir)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.text == fromFile.text)
        #expect(try leftovers(dir) == [])
    }

    @Test("--sql over a database or a workbook piped in queries its tables, as over the file (not its bytes as text)")
    func sqlOverPipedTables() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let query = "select item, qty from orders order by id"
        let fromFile = try shell("\(binary) --output csv --sql '\(query)' shop.db", in: dir)
        #expect(fromFile.status == 0 && fromFile.text == "item,qty\npen,2\nink,1\n\"pen, blue\",5\n", "\(fromFile.stderr)")
        let piped = try shell("cat shop.db | \(binary) --output csv --sql '\(query)'", in: dir)
        #expect(piped.status == 0 && piped.stderr == "", "\(piped.stderr)")
        #expect(piped.text == fromFile.text)
        // `t` is the table --table names; a join with a file given beside it.
        let joined = try shell("cat shop.db | \(binary) --output csv --table people --sql 'select t.name, count(*) from t, shop.orders' - shop.db",
                               in: dir)
        #expect(joined.status == 0 && joined.text == "name,count(*)\nAda,3\n", "\(joined.stderr)")
        let missing = try shell("cat shop.db | \(binary) --output csv --table nope --sql 'select 1'", in: dir)
        #expect(missing.status == 1 && missing.stderr.hasPrefix("csvfreeze: stdin: ") && !missing.stderr.contains("tmp/"),
                "\(missing.stderr)")
        let book = Paths.package.appendingPathComponent("Tests/Fixtures/xlsx/shared.xlsx").path
        let sheet = try shell("\(binary) --output csv --table Values --sql 'select count(*) from t' \(shellQuote(book))", in: dir)
        let pipedSheet = try shell("cat \(shellQuote(book)) | \(binary) --output csv --table Values --sql 'select count(*) from t'", in: dir)
        #expect(sheet.status == 0 && pipedSheet.status == 0 && pipedSheet.stderr == "", "\(pipedSheet.stderr)")
        #expect(pipedSheet.text == sheet.text)
        // Its three sheets without --table: refused, naming them (and stdin, not the copy).
        let several = try shell("cat \(shellQuote(book)) | \(binary) --output csv --sql 'select count(*) from t'", in: dir)
        #expect(several.status == 2 && several.stderr == "csvfreeze: stdin holds 3 sheets: --table NAME writes one (Values, Second sheet, Header only)\n",
                "\(several.stderr)")
        #expect(try leftovers(dir) == [])
    }

    @Test("a JSON array through a pipe is a table, as a .json file is; a line of text starting with [ stays text")
    func jsonArray() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = "  [ {\"id\": 1, \"name\": \"Ada\"},\n {\"id\": 2, \"name\": \"Bo, B\"} ]\n"
        try Data(json.utf8).write(to: dir.appendingPathComponent("a.json"))
        let fromFile = try shell("\(binary) --output csv a.json", in: dir)
        #expect(fromFile.text == "id,name\n1,Ada\n2,\"Bo, B\"\n")
        let piped = try shell("cat a.json | \(binary) --output csv", in: dir)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.text == fromFile.text)
        let text = try shell("printf '[x] a,b\\n1,2\\n' | \(binary) --output csv", in: dir)
        #expect(text.text == "[x] a,b\n1,2\n")
    }

    @Test("on screen: a producer silent at first is said to be waited for, then its table shows")
    func silentProducer() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gate = dir.appendingPathComponent("gate").path
        mkfifo(gate, 0o600)
        let producer = "{ cat \(shellQuote(gate)) > /dev/null; printf 'name,n\\nfirst,1\\n'; }"
        let pane = try TmuxPane("\(producer) | \(binary)", width: 80, height: 10)
        _ = try pane.waitFor("the note") { $0.contains { $0.contains("csvfreeze: waiting for input on stdin (Ctrl-C stops)") } }
        let writer = open(gate, O_WRONLY)
        close(writer)
        let lines = try pane.waitFor("the table") { $0.contains { $0.contains("first") } && !$0.contains { $0.contains("waiting") } }
        #expect(lines.contains { $0.contains("name") })
        try pane.send("q")
        _ = try pane.waitForExit()
    }

    @Test("on screen: a database piped in shows its tables named stdin")
    func onScreen() throws {
        let dir = try shop()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && cat shop.db | \(binary)", width: 100, height: 10)
        let lines = try pane.waitFor("the first table") { ($0.last(where: { !$0.isEmpty }) ?? "").contains("stdin:orders 1/2") }
        #expect(lines[1].contains("pen") && lines[1].contains("2"))
        try pane.send("q")
        _ = try pane.waitForExit()
    }
}
