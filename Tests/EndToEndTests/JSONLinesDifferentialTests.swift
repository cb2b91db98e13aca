import Foundation
import Testing

/// Each feature over generated hostile JSON lines, through the real binary, against the
/// same feature over a CSV of the same table that the test writes itself from what it
/// generated (not from the converter): a filter, a sort, the columns, the frequency, the
/// summary, a diff, a stack, SQL's nulls and a jsonl round trip give the same answers. The
/// lines hold escapes of every kind, NUL, paired and lone surrogates, invalid UTF-8,
/// nested values, repeated keys, keys spelled with escapes, lines that are not objects,
/// keys first met past the header's window, CRLF, blank lines and a last line without a
/// line feed: what any other way of reading JSON lines must still get right.
@Suite("JSON lines against a CSV of the same table", .serialized, .timeLimit(.minutes(30)))
struct JSONLinesDifferentialTests {
    /// A generated input: its JSON lines, the CSV of the table they hold, and facts SQL is
    /// held to.
    struct Generated {
        var json: [UInt8] = []
        var csv: [UInt8] = []
        var records = 0
        /// Records whose `price` is there and not null (`""` counts: it is not NULL).
        var pricesNotNull = 0
        /// Records whose `name` is `""` (not null, not missing).
        var emptyNames = 0
    }

    /// Strings as written in JSON, and what they are.
    static let names: [(written: String, value: String)] = [
        ("plain", "plain"), ("with, comma", "with, comma"), ("she said \\\"hi\\\"", "she said \"hi\""),
        ("tab\\there", "tab\there"), ("line\\nbreak", "line\nbreak"), ("cr\\r\\nlf", "cr\r\nlf"),
        ("Z\\u00fcrich", "Zürich"), ("Zürich", "Zürich"), ("北京 œuvre", "北京 œuvre"), ("\\ud83d\\ude00", "😀"),
        ("", ""), ("a\\u0000b", "a\u{0}b"), ("back\\\\slash", "back\\slash"), ("\\/", "/"), ("  pad  ", "  pad  "),
        ("-12.5", "-12.5"), ("\\u00e9t\\u00e9", "été"), ("\\\"", "\""), ("\\\\\\\"", "\\\""),
    ]
    /// Values of `price`: as written, and the cell (a string's text, a number as written,
    /// null empty); whether it is not null.
    static let prices: [(written: String, cell: String, notNull: Bool)] = [
        ("12.5", "12.5", true), ("-0.001", "-0.001", true), ("1e+300", "1e+300", true),
        ("12345678901234567890", "12345678901234567890", true), ("0", "0", true), ("null", "", false),
        ("\"3.5\"", "3.5", true), ("\"\"", "", true),
    ]
    /// Nested values as written, and as shown (minified).
    static let nested: [(written: String, cell: String)] = [
        ("{\"a\":[1,2,{\"b\":null}]}", "{\"a\":[1,2,{\"b\":null}]}"), ("[ \"x\" , 1 ]", "[\"x\",1]"), ("{}", "{}"),
        ("[]", "[]"), ("{ \"k\" : \"v,w\" }", "{\"k\":\"v,w\"}"), ("[\"q\\\"\"]", "[\"q\\\"\"]"),
    ]
    /// Lines that are not one JSON object (or not UTF-8): shown whole in the first column.
    static let wholeLines: [[UInt8]] = [
        Array("[1,2,\"not, an object\"]".utf8), Array("42".utf8), Array("{\"id\":1}{\"id\":2}".utf8),
        Array("{\"id\":7,\"name\":\"bad ".utf8) + [0xFF] + Array("\"}".utf8), Array("\"just a string\"".utf8),
    ]

    /// SplitMix64: the same seed makes the same bytes.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func generate(seed: UInt64, lines count: Int = 1_300) -> Generated {
        var random = Random(state: seed)
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        var generated = Generated()
        var columns: [String] = []
        var rows: [[String: [UInt8]]] = []
        for number in 0..<count {
            var line: [UInt8]
            if number > 0 && chance(3) {
                line = [Array("".utf8), Array("   ".utf8), Array("\t".utf8)].randomElement(using: &random)!
            } else if number > 0 && chance(2) {
                line = wholeLines.randomElement(using: &random)!
                rows.append([columns[0]: line])
                generated.records += 1
            } else {
                // Keys in order of writing: id, name, price always, then the others.
                var fields: [(key: String, written: String, cell: [UInt8])] = []
                fields.append(("id", "\(number)", Array("\(number)".utf8)))
                let name = names.randomElement(using: &random)!
                fields.append(("name", "\"\(name.written)\"", Array(name.value.utf8)))
                let price = prices.randomElement(using: &random)!
                fields.append(("price", price.written, Array(price.cell.utf8)))
                if price.notNull { generated.pricesNotNull += 1 }
                if number > 0 && chance(30) { fields.swapAt(1, 2) }
                if chance(30) {
                    let value = nested.randomElement(using: &random)!
                    fields.append(("meta", value.written, Array(value.cell.utf8)))
                }
                if chance(20) {
                    let flag = ["true", "false", "null"].randomElement(using: &random)!
                    fields.append(("flag", flag, flag == "null" ? [] : Array(flag.utf8)))
                }
                // A lone surrogate: the string kept as written, quotes and all.
                if chance(5) { fields.append(("lone", "\"\\ud800x\"", Array("\"\\ud800x\"".utf8))) }
                if number > 1_100 && chance(50) { fields.append(("late", "\"L\(number)\"", Array("L\(number)".utf8))) }
                if number > 1_200 && chance(50) {
                    let value = names.randomElement(using: &random)!
                    fields.append(("later", "\"\(value.written)\"", Array(value.value.utf8)))
                }
                var emptyName = name.value.isEmpty
                // A key named twice: the last value stands, in the first one's column.
                if chance(8) {
                    let again = names.randomElement(using: &random)!
                    fields.append(("name", "\"\(again.written)\"", Array(again.value.utf8)))
                    emptyName = again.value.isEmpty
                }
                if emptyName { generated.emptyNames += 1 }
                var row: [String: [UInt8]] = [:]
                var text: [UInt8] = chance(10) ? Array(" { ".utf8) : Array("{".utf8)
                for (index, field) in fields.enumerated() {
                    if !columns.contains(field.key) { columns.append(field.key) }
                    row[field.key] = field.cell
                    // The same key spelled with an escape now and then.
                    let key = field.key == "name" && chance(10) ? "n\\u0061me" : field.key
                    text += Array((index > 0 ? (chance(10) ? " , " : ",") : "").utf8)
                    text += Array("\"\(key)\"".utf8) + Array((chance(10) ? " : " : ":").utf8) + Array(field.written.utf8)
                }
                text += Array((chance(10) ? " } " : "}").utf8)
                line = text
                rows.append(row)
                generated.records += 1
            }
            generated.json += line
            if number < count - 1 { generated.json += chance(30) ? [0x0D, 0x0A] : [0x0A] }
        }
        func quoted(_ cell: [UInt8]) -> [UInt8] {
            guard cell.contains(where: { [0x2C, 0x22, 0x0A, 0x0D].contains($0) }) else { return cell }
            var text: [UInt8] = [0x22]
            for byte in cell {
                text.append(byte)
                if byte == 0x22 { text.append(0x22) }
            }
            return text + [0x22]
        }
        generated.csv = columns.map { quoted(Array($0.utf8)) }.joined(separator: [0x2C]) + [0x0A]
        // A record's cells run to the last column it names (outputs keep a short row short).
        for row in rows {
            let width = (columns.lastIndex { row[$0] != nil } ?? 0) + 1
            generated.csv += columns.prefix(width).map { quoted(row[$0] ?? []) }.joined(separator: [0x2C]) + [0x0A]
        }
        return generated
    }

    /// The inputs of `seed` in a directory of their own: `hostile.jsonl` and `hostile.csv`.
    static func inputs(seed: UInt64) throws -> (json: String, csv: String, generated: Generated) {
        let generated = generate(seed: seed)
        let directory = try Paths.temporaryDirectory()
        let json = directory.appendingPathComponent("hostile.jsonl")
        let csv = directory.appendingPathComponent("hostile.csv")
        try Data(generated.json).write(to: json)
        try Data(generated.csv).write(to: csv)
        return (json.path, csv.path, generated)
    }

    /// Runs the binary with `arguments` then the input (or inputs) over the JSON lines and
    /// over the CSV: the same stdout and exit status.
    func same(_ arguments: [String], json: [String], csv: [String], seed: UInt64) throws {
        let overJSON = try run([Paths.binary] + arguments + json)
        let overCSV = try run([Paths.binary] + arguments + csv)
        #expect(overJSON.status == overCSV.status, "seed \(seed) \(arguments): \(overJSON.stderr) | \(overCSV.stderr)")
        #expect(overJSON.stdout == overCSV.stdout,
                "seed \(seed) \(arguments):\n\(overJSON.text.prefix(2_000))\n---\n\(overCSV.text.prefix(2_000))")
    }

    @Test("the table, filters, sorts, columns, frequency and summary: as over the CSV", arguments: [1, 2, 3] as [UInt64])
    func features(seed: UInt64) throws {
        let (json, csv, _) = try Self.inputs(seed: seed)
        let cases: [[String]] = [
            [], ["--filter", "Zürich"], ["--filter", "été"], ["--filter", "\\\\"], ["--filter", "\""], ["--filter", "\\n"],
            ["--filter", "\\x00"], ["--filter", ","], ["--filter", "^$"], ["--filter", "ud800"], ["--filter", "😀"],
            ["--filter", "(?i)ZÜRICH"], ["--filter-out", "a"], ["--filter-column", "name=^$"],
            ["--filter-column", "meta=\\["], ["--filter-out-column", "price=e"], ["--filter-column", "late=."],
            ["--sort", "price"], ["--sort", "name:desc"], ["--sort", "later"], ["--sort", "id:desc"],
            ["--columns", "later,name,id"], ["--columns", "3,1"], ["--filter", "\"", "--sort", "meta", "--columns", "meta,id"],
        ]
        for arguments in cases {
            try same(arguments + ["--output", "tsv"], json: [json], csv: [csv], seed: seed)
        }
        for column in ["name", "price", "meta", "late"] {
            try same(["--frequency", column, "--output", "tsv"], json: [json], csv: [csv], seed: seed)
        }
        try same(["--summary", "--output", "tsv"], json: [json], csv: [csv], seed: seed)
        try same(["--stack", "--no-source-column", "--output", "tsv"], json: [json, json], csv: [csv, csv], seed: seed)
        // Compressed, and through a pipe: the same table.
        _ = try run(["/bin/sh", "-c", "gzip -c < \(shellQuote(json)) > \(shellQuote(json + ".gz"))"])
        try same(["--filter", "\\\\", "--output", "tsv"], json: [json + ".gz"], csv: [csv], seed: seed)
        // A pipe's output does not wait for the end: its header names the keys of the first
        // records only (the later ones are unnamed columns); the rows are the same.
        let piped = try run([Paths.binary, "--output", "tsv"], stdin: try Data(contentsOf: URL(fileURLWithPath: json)))
        let table = try run([Paths.binary, "--output", "tsv", csv])
        let pipedHeader = piped.stdout.prefix { $0 != 0x0A }, header = table.stdout.prefix { $0 != 0x0A }
        #expect(header.starts(with: pipedHeader) && header.count > pipedHeader.count, "seed \(seed)")
        #expect(piped.stdout.dropFirst(pipedHeader.count) == table.stdout.dropFirst(header.count), "seed \(seed)")
    }

    @Test("--diff against the CSV finds no change; --output jsonl reads back as the same table (invalid UTF-8 as U+FFFD)",
          arguments: [1, 2] as [UInt64])
    func diffAndRoundTrip(seed: UInt64) throws {
        let (json, csv, _) = try Self.inputs(seed: seed)
        let diff = try run([Paths.binary, "--diff", csv, json])
        #expect(diff.status == 0, "seed \(seed): \(diff.text.prefix(2_000)) \(diff.stderr)")
        let keyed = try run([Paths.binary, "--diff", csv, "--key", "id", json])
        #expect(keyed.status == 0, "seed \(seed): \(keyed.text.prefix(2_000)) \(keyed.stderr)")
        let lines = try run([Paths.binary, "--output", "jsonl", json])
        let again = URL(fileURLWithPath: json).deletingLastPathComponent().appendingPathComponent("again.jsonl")
        try lines.stdout.write(to: again)
        let table = try run([Paths.binary, "--output", "tsv", json])
        let back = try run([Paths.binary, "--output", "tsv", again.path])
        // Except the line that is not UTF-8: JSON holds no such bytes, its 0xFF is written as
        // U+FFFD (as every JSON output writes them).
        let replaced = table.stdout.reduce(into: Data()) { data, byte in
            if byte == 0xFF { data.append(contentsOf: [0xEF, 0xBF, 0xBD]) } else { data.append(byte) }
        }
        #expect(table.stdout.contains(0xFF), "seed \(seed)")
        #expect(back.stdout == replaced, "seed \(seed)")
        // Written again, the objects are the same bytes.
        #expect(try run([Paths.binary, "--output", "jsonl", again.path]).stdout == lines.stdout, "seed \(seed)")
    }

    @Test("SQL: null and a missing key are NULL, \"\" is '', counted as generated", arguments: [1, 2] as [UInt64])
    func sqlNulls(seed: UInt64) throws {
        let (json, _, generated) = try Self.inputs(seed: seed)
        let query = "select count(*), count(price), sum(name = '') from hostile"
        let answer = try run([Paths.binary, "--sql", query, "--output", "tsv", json])
        #expect(answer.status == 0, "\(answer.stderr)")
        let counts = "\(generated.records)\t\(generated.pricesNotNull)\t\(generated.emptyNames)"
        #expect(answer.text == "count(*)\tcount(price)\tsum(name = '')\n\(counts)\n", "seed \(seed): \(answer.text)")
    }
}
