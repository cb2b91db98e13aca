#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `--sql`, `--diff` and several inputs leave through the export pipeline: what they write
/// is held byte for byte to what they wrote before it did. Each case's stdout, stderr and
/// exit status were taken from the binary of main at 060ad2d over the inputs made here
/// (the same seed makes the same bytes), kept as an FNV-1a hash each; a change to any
/// byte of any case fails it.
///
/// With `CSVFREEZE_DIFFERENTIAL_CAPTURE=FILE` the test writes each case's hash to FILE
/// instead of comparing (how the table below was made, with `CSVFREEZE_BIN` naming the
/// old binary).
@Suite("Outputs held to what they were", .timeLimit(.minutes(30)))
struct OutputDifferentialTests {
    let binary = Paths.binary

    /// Inputs with quotes, commas, line breaks, non-ASCII text, empty cells and numbers
    /// in several dresses: `a.csv`, `b.csv` (some values changed, rows removed and added,
    /// a column more), `same.csv` (values changed only), `c.csv` (other columns).
    static func makeInputs(in directory: URL) throws {
        var state: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        func quoted(_ cell: String) -> String {
            cell.contains(where: { "\",\n\r".contains($0) }) ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
        }
        let cities = ["Oslo", "oslo", "Bergen", "Lyon", "São Paulo", "", "東京"]
        let notes = ["plain", "with, comma", "say \"hi\"", "two\nlines", "", "Oslo again", "{\"k\": 1}"]
        var rows: [[String]] = []
        for id in 1...3000 {
            let amount: String
            switch next(5) {
            case 0: amount = ""
            case 1: amount = "\(next(1000)).\(next(100))"
            case 2: amount = "-\(next(500))"
            default: amount = "\(next(100_000))"
            }
            rows.append(["\(id)", cities[next(cities.count)], amount, notes[next(notes.count)]])
        }
        func write(_ name: String, _ header: [String], _ rows: [[String]]) throws {
            let text = ([header] + rows).map { $0.map(quoted).joined(separator: ",") }.joined(separator: "\n") + "\n"
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try write("a.csv", ["id", "city", "amount", "note"], rows)
        var changed: [[String]] = []
        for (index, row) in rows.enumerated() {
            var row = row
            if index % 7 == 3 { row[2] = "\(index * 3)" }
            if index % 13 == 5 { row[1] = "Trondheim" }
            if index % 11 == 4 { continue }
            changed.append(row)
        }
        for id in 3001...3040 { changed.append(["\(id)", "Nice", "\(id)", "new"]) }
        try write("same.csv", ["id", "city", "amount", "note"], changed)
        try write("b.csv", ["id", "city", "amount", "note", "extra"], changed.enumerated().map { $0.element + ["x\($0.offset % 4)"] })
        try write("c.csv", ["id", "amount", "region"], (1...700).map { ["\(5000 + $0)", "\(next(9000))", cities[next(cities.count)]] })
    }

    static let formats = ["csv", "tsv", "json", "jsonl", "table"]

    /// Every case: a name and the arguments after the binary (run in the inputs' folder).
    static var cases: [(String, [String])] {
        var cases: [(String, [String])] = []
        let queries = [
            "all": "select * from a",
            "grouped": "select city, count(*) as n, sum(amount) as s, avg(amount) from a group by city order by city",
            "typed": "select id, null as empty_value, amount * 1.5 as more, note from a where id % 3 = 0",
            "joined": "select a.id, b.amount, b.extra from a join b on a.id = b.id where a.amount <> b.amount",
            "unknown": "select nosuch from a",
            "runtime": "select id, json_extract(note, '$') from a",
        ]
        for (name, query) in queries.sorted(by: { $0.key < $1.key }) {
            for format in formats { cases.append(("sql-\(name)-\(format)", ["--sql", query, "--output", format, "a.csv", "b.csv"])) }
        }
        let diffs: [(String, [String])] = [
            ("positional", ["--diff", "same.csv", "a.csv"]),
            ("schema", ["--diff", "b.csv", "a.csv"]),
            ("keyed", ["--diff", "b.csv", "--key", "id", "a.csv"]),
            ("context0", ["--diff", "same.csv", "--context", "0", "a.csv"]),
            ("context3", ["--diff", "same.csv", "--context", "3", "a.csv"]),
            ("summary", ["--diff", "b.csv", "--summary", "a.csv"]),
            ("equal", ["--diff", "a.csv", "a.csv"]),
        ]
        for (name, arguments) in diffs {
            for format in formats { cases.append(("diff-\(name)-\(format)", arguments + ["--output", format])) }
        }
        let stacks: [(String, [String])] = [
            ("plain", []),
            ("sorted", ["--sort", "amount"]),
            ("filtered", ["--filter", "Oslo", "--columns", "id,amount,region"]),
            ("sorted-filtered", ["--sort", "city:desc", "--filter", "o", "--columns", "city,amount"]),
            ("nosource", ["--no-source-column", "--sort", "id"]),
            ("noheader", ["--no-header"]),
        ]
        for (name, arguments) in stacks {
            for format in formats { cases.append(("stack-\(name)-\(format)", arguments + ["--output", format, "a.csv", "c.csv", "b.csv"])) }
        }
        return cases
    }

    /// FNV-1a, 64 bits, over stdout, stderr and the exit status.
    static func hash(_ result: Completed) -> String {
        var value: UInt64 = 0xcbf29ce484222325
        func add<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
            for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100000001b3 }
        }
        add(result.stdout)
        add([0])
        add(Array(result.stderr.utf8))
        add([0])
        add(Array("\(result.status)".utf8))
        return String(value, radix: 16)
    }

    @Test("--sql, --diff and several inputs write the bytes they wrote before, in every format")
    func sameBytes() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.makeInputs(in: directory)
        let capture = ProcessInfo.processInfo.environment["CSVFREEZE_DIFFERENTIAL_CAPTURE"]
        var captured = ""
        for (name, arguments) in Self.cases {
            let line = "cd \(shellQuote(directory.path)) && exec " + ([binary] + arguments).map(shellQuote).joined(separator: " ")
            let result = try run(["/bin/sh", "-c", line])
            let hash = Self.hash(result)
            if capture != nil {
                captured += "        \"\(name)\": \"\(hash)\",\n"
            } else {
                #expect(Self.expected[name] == hash, "\(name): exit \(result.status), \(result.stdout.count) bytes, stderr \(result.stderr)")
            }
        }
        if let capture { try captured.write(toFile: capture, atomically: true, encoding: .utf8) }
        #expect(capture != nil || Self.expected.count == Self.cases.count)
    }

    @Test("An SQL error after the header is written: the header stays, one line says why, the status is not 0")
    func errorAfterHeader() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.makeInputs(in: directory)
        for format in ["csv", "json"] {
            let result = try run([binary, "--sql", "select id, json_extract(note, '$') as j from a", "--output", format,
                                  directory.appendingPathComponent("a.csv").path])
            #expect(result.status != 0)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("malformed JSON"), "\(result.stderr)")
            #expect(result.text.hasPrefix(format == "csv" ? "id,j\n" : "[\n  [\"id\",\"j\"]"), "\(result.text)")
        }
    }

    @Test("--sql writes every row of a long answer: more than the screen's million")
    func uncapped() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.makeInputs(in: directory)
        let query = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 1100000) select i from n"
        let result = try run([binary, "--sql", query, "--output", "csv", directory.appendingPathComponent("a.csv").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.count(where: { $0 == 0x0A }) == 1_100_001)
        #expect(result.text.hasSuffix("\n1100000\n"))
    }

    /// What main at 060ad2d wrote, case by case.
    static let expected: [String: String] = [
        "sql-all-csv": "54900d0dfbd54ad2",
        "sql-all-tsv": "9fab91aef6ccb6f",
        "sql-all-json": "15c387a6ed806f2b",
        "sql-all-jsonl": "3a7001de88e65d21",
        "sql-all-table": "53ff455f7677a922",
        "sql-grouped-csv": "33d44293c3900c6e",
        "sql-grouped-tsv": "96d547c3773210e8",
        "sql-grouped-json": "46397ed279fa2187",
        "sql-grouped-jsonl": "6016c966bb22b115",
        "sql-grouped-table": "6fd7f10f4744c9ce",
        "sql-joined-csv": "a4267937e83fdeec",
        "sql-joined-tsv": "5f54ac58e7c76368",
        "sql-joined-json": "958c4df4917c2ce6",
        "sql-joined-jsonl": "76a8c96e37db669c",
        "sql-joined-table": "d84a6ea65ce0a5a0",
        "sql-runtime-csv": "53f0dabcf9a3df46",
        "sql-runtime-tsv": "15049c87e7ce411b",
        "sql-runtime-json": "8e6e43bac6212170",
        "sql-runtime-jsonl": "cf402472985dae56",
        "sql-runtime-table": "9cd78ae6ea218468",
        "sql-typed-csv": "a46dca6df53a6cf9",
        "sql-typed-tsv": "26e9cc432bd5014c",
        "sql-typed-json": "8d53dc0f7f99c178",
        "sql-typed-jsonl": "25f431992671efbb",
        "sql-typed-table": "f0986a81c122a6f8",
        "sql-unknown-csv": "b29da3871cca478d",
        "sql-unknown-tsv": "b29da3871cca478d",
        "sql-unknown-json": "c671fc28d4b9b615",
        "sql-unknown-jsonl": "b29da3871cca478d",
        "sql-unknown-table": "b29da3871cca478d",
        "diff-positional-csv": "d9f2643d0b7e0fcb",
        "diff-positional-tsv": "6eab512350f68d9d",
        "diff-positional-json": "f66f27fee3c80b17",
        "diff-positional-jsonl": "1f83a56bc4e4e0c5",
        "diff-positional-table": "c39375074d1013be",
        "diff-schema-csv": "38d34292592ee66e",
        "diff-schema-tsv": "5d73c4cac49253fc",
        "diff-schema-json": "d6ef95aab90d770e",
        "diff-schema-jsonl": "614b63c72e15bd88",
        "diff-schema-table": "c058602c18ad5689",
        "diff-keyed-csv": "f22594b19846f8b0",
        "diff-keyed-tsv": "ed0a4c700e07a1bc",
        "diff-keyed-json": "ba0d7ffcbf0fa8a6",
        "diff-keyed-jsonl": "f355e0b70b21d306",
        "diff-keyed-table": "d4e8f5fe6b5a969e",
        "diff-context0-csv": "e0c128d4df370aab",
        "diff-context0-tsv": "1052f84cd988006d",
        "diff-context0-json": "9c5a4432adcd31c3",
        "diff-context0-jsonl": "d1ffafe74c860821",
        "diff-context0-table": "9a85a089d4357d0",
        "diff-context3-csv": "1f326a80c0c9dcca",
        "diff-context3-tsv": "acc8a3b254411a52",
        "diff-context3-json": "97ae72aa05eae8a8",
        "diff-context3-jsonl": "c44d8110c71799d6",
        "diff-context3-table": "716ddb5c703b581",
        "diff-summary-csv": "1a8c66474ebb5b7",
        "diff-summary-tsv": "c4e083f1053267a1",
        "diff-summary-json": "11af620e228a5d5f",
        "diff-summary-jsonl": "ce26a59c5ad8cc03",
        "diff-summary-table": "f8518a5e73e53045",
        "diff-equal-csv": "28c8c8dc29da9b3f",
        "diff-equal-tsv": "f21b2594a0bf24bf",
        "diff-equal-json": "1f85f0125f580aef",
        "diff-equal-jsonl": "d94d02186c0f1487",
        "diff-equal-table": "134885aebc6df5f1",
        "stack-plain-csv": "512408645b3b61a3",
        "stack-plain-tsv": "5269a510f5069a4b",
        "stack-plain-json": "5d89870c81b409bd",
        "stack-plain-jsonl": "a1ec33af86ef6373",
        "stack-plain-table": "65d858fc4e962972",
        "stack-sorted-csv": "f3d3cea137e5331d",
        "stack-sorted-tsv": "b16e21a6b00fc6cd",
        "stack-sorted-json": "354ccda7e0830923",
        "stack-sorted-jsonl": "baa5cccaeb223439",
        "stack-sorted-table": "dd1d4150d7dcd2c6",
        "stack-filtered-csv": "fe9c55b9c6e211ab",
        "stack-filtered-tsv": "c37bb86805a8c212",
        "stack-filtered-json": "62f4c7faee04e6e5",
        "stack-filtered-jsonl": "668189adc22b20ba",
        "stack-filtered-table": "cf4c45c61b444c01",
        "stack-sorted-filtered-csv": "32ddde86e1de5c75",
        "stack-sorted-filtered-tsv": "79745e0e93dd35e1",
        "stack-sorted-filtered-json": "f5c7093785165359",
        "stack-sorted-filtered-jsonl": "71da8c4bd01cbbdd",
        "stack-sorted-filtered-table": "807f06d8ac8e4777",
        "stack-nosource-csv": "4471694215a7b671",
        "stack-nosource-tsv": "a484ec0f5dacdc65",
        "stack-nosource-json": "35e84a156061b031",
        "stack-nosource-jsonl": "99fb4510563097c9",
        "stack-nosource-table": "5b9650181db0c000",
        "stack-noheader-csv": "b868f5d86878e2aa",
        "stack-noheader-tsv": "d40857b46a9f80f1",
        "stack-noheader-json": "a6a9f99828973268",
        "stack-noheader-jsonl": "8af878f449bb2112",
        "stack-noheader-table": "4fa467fc638ae9d",
    ]
}
