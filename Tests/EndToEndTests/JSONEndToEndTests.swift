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
    }

    @Test("--output jsonl of a .jsonl gives back the same objects, byte for byte")
    func roundTrip() throws {
        let path = Self.fixture("roundtrip.jsonl")
        let result = try run([Paths.binary, "--output", "jsonl", path])
        #expect(result.status == 0)
        #expect(result.stdout == (try Data(contentsOf: URL(fileURLWithPath: path))))
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
}
