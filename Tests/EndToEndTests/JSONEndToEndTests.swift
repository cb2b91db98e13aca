import Foundation
import Testing

/// JSON lines and JSON arrays through the real binary: on screen (a file, a pipe, gzip),
/// and through --output, --sql, --diff and --frequency.
@Suite("JSON end to end", .serialized, .timeLimit(.minutes(30)))
struct JSONEndToEndTests {
    let binary = shellQuote(Paths.binary)
    static let fixtures = Paths.package.appendingPathComponent("Tests/Fixtures/json")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// The grid once the whole table is read: the header line and the first rows.
    func grid(_ command: String, rows: String) throws -> [String] {
        let pane = try TmuxPane(command, width: 120, height: 12)
        let lines = try pane.waitFor("the whole table") { status($0).contains("row 1/\(rows) ") }
        try pane.send("q")
        return Array(lines[..<11])
    }

    @Test("a .jsonl opens with its keys as the header and its values in the cells; a pipe and gzip show the same")
    func onScreen() throws {
        let path = Self.fixture("roundtrip.jsonl")
        let plain = try grid("\(binary) \(shellQuote(path))", rows: "4")
        #expect(plain[0].contains("id") && plain[0].contains("name") && plain[0].contains("price") && plain[0].contains("meta"))
        #expect(plain[1].contains("Ann") && plain[1].contains("12.5") && plain[1].contains("true") && plain[1].contains("[\"a\",\"b\"]"))
        #expect(plain[4].contains("12345678901234567890") && plain[4].contains("1e+300"))
        let piped = try grid("cat \(shellQuote(path)) | \(binary)", rows: "4")
        #expect(piped == plain)
        let directory = try Paths.temporaryDirectory()
        let gzipped = directory.appendingPathComponent("roundtrip.jsonl.gz").path
        _ = try run(["/bin/sh", "-c", "gzip -c < \(shellQuote(path)) > \(shellQuote(gzipped))"])
        #expect(try grid("\(binary) \(shellQuote(gzipped))", rows: "4") == plain)
    }

    @Test("--output jsonl and json of JSON piped in give back what the file gives: numbers, true/false and nested values bare, null and \"\" apart; a compressed pipe streams, strings, null still null")
    func pipedJSONKeepsTypes() throws {
        let text = "{\"a\":1,\"b\":null,\"c\":\"x\",\"d\":\"\",\"e\":{\"k\":[1,2]}}\n{\"a\":2.5,\"b\":true,\"c\":\"z\",\"d\":\"y\",\"e\":null}\n"
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("t.jsonl")
        try Data(text.utf8).write(to: file)
        let fromFile = try run([Paths.binary, "--output", "jsonl", file.path])
        #expect(fromFile.status == 0 && fromFile.text == text, "\(fromFile.text)")
        let piped = try run([Paths.binary, "--output", "jsonl"], stdin: Data(text.utf8))
        #expect(piped.status == 0 && piped.text == text, "\(piped.text)")
        let array = try run([Paths.binary, "--output", "json"], stdin: Data(text.utf8))
        #expect(array.text == "[\n  [\"a\",\"b\",\"c\",\"d\",\"e\"],\n  [1,null,\"x\",\"\",{\"k\":[1,2]}],\n  [2.5,true,\"z\",\"y\",null]\n]\n",
                "\(array.text)")
        // Streamed (its types known only at its end): strings, but a null is no "".
        let streamed = try run(["/bin/sh", "-c", "gzip -c < \(shellQuote(file.path)) | \(shellQuote(Paths.binary)) --output jsonl"])
        #expect(streamed.status == 0)
        #expect(streamed.text == "{\"a\":\"1\",\"b\":null,\"c\":\"x\",\"d\":\"\",\"e\":\"{\\\"k\\\":[1,2]}\"}\n"
                + "{\"a\":\"2.5\",\"b\":\"true\",\"c\":\"z\",\"d\":\"y\",\"e\":null}\n", "\(streamed.text)")
    }

    @Test("keys met late name their columns on screen, and the status line counts them")
    func lateColumns() throws {
        let pane = try TmuxPane("\(binary) \(shellQuote(Self.fixture("late.jsonl")))", width: 100, height: 12)
        try pane.waitFor("the whole table") { status($0).contains("row 1/1,005 ") }
        try pane.send("G")
        // The count can come before G's rows are drawn: wait for both.
        let lines = try pane.waitFor("the late columns and the last rows") { screen in
            status(screen).contains("2 columns found late") && screen.contains { $0.contains("1003") && $0.contains("L") }
        }
        #expect(lines[0].contains("late") && lines[0].contains("later"))
        #expect(lines.contains { $0.contains("1003") && $0.contains("L") })
        try pane.send("q")
    }

    @Test("a .json holding one object says so in one line, exit 65; a broken array says where")
    func shapes() throws {
        let directory = try Paths.temporaryDirectory()
        let object = directory.appendingPathComponent("object.json")
        try Data("{\n  \"a\": 1\n}\n".utf8).write(to: object)
        let result = try run([Paths.binary, "--output", "csv", object.path])
        #expect(result.status == 65)
        #expect(result.stderr == "csvfreeze: \(object.path): holds one JSON object, not an array of objects (nor one object per line)\n")
        let cut = directory.appendingPathComponent("cut.json")
        try Data("[{\"a\":1},\n{\"a\":2},\n{\"a\":".utf8).write(to: cut)
        let broken = try run([Paths.binary, "--output", "csv", cut.path])
        #expect(broken.text == "a\n1\n2\n")
        #expect(broken.status == 1 && broken.stderr.contains("JSON array broken at line 3"))
        // Text after the array's end is left out: said in one line, exit 1, as a break is.
        let trailing = directory.appendingPathComponent("trailing.json")
        try Data("[{\"a\":1}]\n[{\"a\":2}]\n".utf8).write(to: trailing)
        for format in ["csv", "jsonl"] {
            let after = try run([Paths.binary, "--output", format, trailing.path])
            #expect(after.text == (format == "csv" ? "a\n1\n" : "{\"a\":1}\n"), "\(after.text)")
            #expect(after.status == 1, "\(after.status)")
            #expect(after.stderr == "csvfreeze: \(trailing.path): text after the JSON array's end (byte 11) left out\n", "\(after.stderr)")
        }
    }

    @Test("--output jsonl of a .jsonl gives back the same objects, byte for byte")
    func roundTrip() throws {
        let path = Self.fixture("roundtrip.jsonl")
        let result = try run([Paths.binary, "--output", "jsonl", path])
        #expect(result.status == 0)
        #expect(result.stdout == (try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test("--output jsonl keeps null apart from \"\" (a key a record lacks before its last is null), with --sort, --columns and filters too")
    func nullApartFromEmpty() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("n.jsonl").path
        try Data("""
            {"a":1,"s":"","t":"x","n":null,"o":{"k":null}}
            {"a":2,"t":""}
            {"a":3,"s":"y","n":null,"t":null}

            """.utf8).write(to: URL(fileURLWithPath: path))
        let expected = [
            #"{"a":1,"s":"","t":"x","n":null,"o":{"k":null}}"#,
            #"{"a":2,"s":null,"t":""}"#,
            #"{"a":3,"s":"y","t":null,"n":null}"#,
        ]
        let plain = try run([Paths.binary, "--output", "jsonl", path])
        #expect(plain.status == 0 && plain.text == expected.joined(separator: "\n") + "\n", "\(plain.text)")
        let sorted = try run([Paths.binary, "--output", "jsonl", "--sort", "a:desc", path])
        #expect(sorted.text == expected.reversed().joined(separator: "\n") + "\n", "\(sorted.text)")
        let chosen = try run([Paths.binary, "--output", "jsonl", "--columns", "t,s", path])
        #expect(chosen.text == #"{"t":"x","s":""}\#n{"t":"","s":null}\#n{"t":null,"s":"y"}\#n"#, "\(chosen.text)")
        let filtered = try run([Paths.binary, "--output", "jsonl", "--filter-column", "a=[12]", path])
        #expect(filtered.text == expected[0...1].joined(separator: "\n") + "\n", "\(filtered.text)")
    }

    @Test("--output csv, --sql, --frequency over JSON; --diff against a CSV of the same records finds no change")
    func features() throws {
        let late = Self.fixture("late.jsonl")
        let csv = try run([Paths.binary, "--output", "csv", late])
        #expect(csv.status == 0)
        let lines = csv.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "n,s,late,later")
        #expect(lines[1004] == "1003,,L")
        #expect(lines[1005] == "1004,,,[1]")
        let sql = try run([Paths.binary, "--sql", "select count(*), sum(n), max(late), json_extract(max(later), '$[0]') from late",
                           "--output", "csv", late])
        #expect(sql.text == "count(*),sum(n),max(late),\"json_extract(max(later), '$[0]')\"\n1005,504510,L,1\n")
        let frequency = try run([Paths.binary, "--frequency", "late", "--output", "csv", late])
        #expect(frequency.status == 0 && frequency.text.contains("L,1,"))
        let directory = try Paths.temporaryDirectory()
        let copy = directory.appendingPathComponent("late.csv")
        try csv.stdout.write(to: copy)
        let diff = try run([Paths.binary, "--diff", copy.path, late])
        #expect(diff.status == 0, "\(diff.text)")
        // A directory's JSON lines stack with its CSV; its .json files are left to be named.
        let folder = directory.appendingPathComponent("tables")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("id,name\n1,Ann\n".utf8).write(to: folder.appendingPathComponent("a.csv"))
        try Data("{\"id\":2,\"name\":\"Bo\"}\n".utf8).write(to: folder.appendingPathComponent("b.jsonl"))
        try Data("{\"x\":1}".utf8).write(to: folder.appendingPathComponent("package.json"))
        let stacked = try run([Paths.binary, "--output", "csv", "--no-source-column", folder.path])
        #expect(stacked.text == "id,name\n1,Ann\n2,Bo\n")
        #expect(stacked.stderr.contains("skipped package.json"))
        // Through a pipe too.
        let piped = try run([Paths.binary, "--output", "csv"], stdin: try Data(contentsOf: URL(fileURLWithPath: Self.fixture("roundtrip.jsonl"))))
        #expect(piped.text.hasPrefix("id,name,price,ok,tags,meta\n1,Ann,12.5,true,\"[\"\"a\"\",\"\"b\"\"]\",\"{\"\"k\"\":1}\"\n"))
    }

    /// About 12 MB of JSON lines (`events.jsonl` in `directory`), every record with an array
    /// (minified through simdjson), so the conversion runs on for a while after the first
    /// records; `last`, when given, is its last line.
    static func events(in directory: URL, last: String? = nil) throws -> String {
        let path = directory.appendingPathComponent("events.jsonl").path
        var text = ""
        text.reserveCapacity(12 << 20)
        for n in 0..<100_000 {
            text += "{\"id\": \(n), \"name\": \"user\(n)\", \"tags\": [\"a\", \"b\", \(n % 7)], \"meta\": {\"k\": [1, 2]}, \"note\": \"\(String(repeating: "x", count: n % 50))\"}\n"
        }
        if let last { text += last + "\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("--sql over a large JSON lines file sees a key first met on its last line, as --output does")
    func sqlSeesLateKeys() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.events(in: directory, last: #"{"id": -1, "level": "warn"}"#)
        let counted = try run([Paths.binary, "--sql", "select count(*), count(level), max(level) from events", "--output", "csv", path])
        #expect(counted.status == 0, "\(counted.stderr)")
        #expect(counted.text == "count(*),count(level),max(level)\n100001,1,warn\n", "\(counted.text)")
        let all = try run([Paths.binary, "--sql", "select * from events where id = -1", "--output", "jsonl", path])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.text == #"{"id":-1,"name":null,"tags":null,"meta":null,"note":null,"level":"warn"}"# + "\n", "\(all.text)")
        // A pipe that never ends is not waited for: the answer comes from its first records.
        let endless = try run(["/bin/sh", "-c", "yes '{\"a\":1}' | timeout 30 \(binary) --sql 'select a from t limit 2' --output csv"])
        #expect(endless.status == 0 && endless.text == "a\n1\n1\n", "\(endless.status) \(endless.text) \(endless.stderr)")
    }

    @Test("leaving while a large JSON file is still being converted (a refused query) never aborts at exit")
    func exitWhileConverting() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.events(in: directory)
        // Through a pipe the query runs once the first records are read, and is refused while
        // the rest is converted: exit races the converter's thread. Before the fix most runs
        // aborted ("pure virtual method called", status 134); many runs make it all but certain.
        var aborted: [String] = []
        for _ in 0..<40 {
            let refused = try run(["/bin/sh", "-c", "cat \(shellQuote(path)) 2>/dev/null | \(binary) --sql 'select nosuch from t'"])
            if refused.status != 65 || refused.stderr.split(separator: "\n").count != 1 {
                aborted.append("status \(refused.status): \(refused.stderr.prefix(300))")
            }
        }
        #expect(aborted.isEmpty, "\(aborted.count) runs of 40 did not end with one line and status 65: \(aborted.first ?? "")")
    }

    @Test("SQL over JSON: null is NULL, \"\" is '' (each way SQL reads a table); over CSV an empty cell is NULL, quoted or not")
    func nullInSQL() throws {
        func sql(_ query: String, _ path: String) throws -> String {
            let result = try run([Paths.binary, "--sql", query, "--output", "csv", path])
            #expect(result.status == 0, "\(result.stderr)")
            return result.text
        }
        // The fixture, as Python's json module reads it (nulls.jsonl.marks.json): k is null
        // in 4 records (1 lacks it), "" in 4; s null in 8 (3 lines are not objects).
        let nulls = Self.fixture("nulls.jsonl")
        #expect(try sql("select count(*) from nulls where k is null", nulls) == "count(*)\n4\n")
        #expect(try sql("select count(*) from nulls where k = ''", nulls) == "count(*)\n4\n")
        #expect(try sql("select count(*) from nulls where s is null", nulls) == "count(*)\n8\n")
        // Large enough for every path: pieces split whole, searched for a literal, grouped.
        let directory = try Paths.temporaryDirectory()
        let big = directory.appendingPathComponent("big.jsonl")
        var text = ""
        for index in 0..<30_000 {
            let k = index % 3 == 0 ? "null" : index % 3 == 1 ? "\"\"" : "\"v\\\"\(index)\""
            text += "{\"i\":\(index),\"k\":\(k),\"s\":\"x\(index % 7)\"}\n"
        }
        try Data(text.utf8).write(to: big)
        let path = big.path
        #expect(try sql("select count(*) from big where k is null", path) == "count(*)\n10000\n")
        #expect(try sql("select count(*) from big where k = ''", path) == "count(*)\n10000\n")
        // x3 in every 7th record: i % 7 == 3; of those, i % 3 == 0 are null.
        let hits = (0..<30_000).filter { $0 % 7 == 3 }
        let expected = "\(hits.count),\(hits.filter { $0 % 3 == 0 }.count),\(hits.filter { $0 % 3 == 1 }.count)"
        #expect(try sql("select count(*), sum(k is null), sum(k = '') from big where s like '%x3%'", path)
                == "count(*),sum(k is null),sum(k = '')\n\(expected)\n")
        #expect(try sql("select k is null, k = '', count(*) from big group by k is null, k = '' order by 1, 2", path)
                == "k is null,k = '',count(*)\n0,0,10000\n0,1,10000\n1,,10000\n")
        // CSV as before: an empty cell is NULL whether it is written "" or not at all.
        let csv = directory.appendingPathComponent("t.csv")
        try Data("a,b\n\"\",x\n,y\nz,\"\"\n".utf8).write(to: csv)
        #expect(try sql("select count(*), sum(a is null), sum(b is null) from t", csv.path) == "count(*),sum(a is null),sum(b is null)\n3,2,1\n")
    }

    @Test("a JSON line that is not an object: shown whole in the first column, marked `!`, the status line names the line")
    func notAnObject() throws {
        let pane = try TmuxPane("\(binary) \(shellQuote(Self.fixture("nulls.jsonl")))", width: 200, height: 16)
        let lines = try pane.waitFor("the whole table") { status($0).contains("row 1/12 ") }
        #expect(status(lines).contains("line 8 is not a JSON object: shown whole in the first column, marked ! (+2 more)"), "\(lines)")
        let row = try #require(lines.first { $0.contains("[1,2]") })
        #expect(row.hasPrefix("! 8│"), "\(row)")
        #expect(lines.filter { $0.hasPrefix("!") }.count == 3)
        try pane.send("q")
    }

    @Test("--follow on a .jsonl shows appended lines as they end, keys met late as columns; a .json array is read once, and says so")
    func follow() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("app.jsonl")
        try Data((1...3).map { "{\"n\":\($0),\"msg\":\"old \($0)\"}\n" }.joined().utf8).write(to: file)
        let pane = try TmuxPane("\(binary) -f \(shellQuote(file.path))", width: 120, height: 12)
        var lines = try pane.waitFor("following") { status($0).contains("/3+") && status($0).contains("following") }
        #expect(lines[0].contains("n") && lines[0].contains("msg"))
        #expect(lines.contains { $0.contains("old 3") })
        let appender = try FileHandle(forWritingTo: file)
        try appender.seekToEnd()
        // A line shows once it ends; a key not met before is a column found late.
        try appender.write(contentsOf: Data("{\"n\":4,\"msg\":\"new 4\"}\n{\"n\":5,\"msg\":\"new 5\",\"level\":\"warn\"}\n{\"n\":6,".utf8))
        lines = try pane.waitFor("the new lines") { status($0).contains("/5+") && $0.contains { $0.contains("new 5") } }
        #expect(lines[0].contains("level"))
        #expect(lines.contains { $0.contains("new 5") && $0.contains("warn") })
        try appender.write(contentsOf: Data("\"msg\":\"new 6\"}\n".utf8))
        try appender.close()
        lines = try pane.waitFor("the line once ended") { status($0).contains("/6+") && $0.contains { $0.contains("new 6") } }
        try pane.send("q")
        #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]")
        // A JSON array is not followed: read once, said.
        let array = directory.appendingPathComponent("list.json")
        try Data("[{\"a\":1}]\n".utf8).write(to: array)
        let once = try TmuxPane("\(binary) -f \(shellQuote(array.path))", width: 120, height: 8)
        try once.waitFor("the notice") { status($0).contains("a JSON array is read once, not followed") }
        try once.send("q")
    }
}
