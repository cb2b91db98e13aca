import Foundation
import Testing

/// `--filter`, `--sort` and `--columns` through the real binary, held to a plain
/// reference written here over the cells the test generated itself.
@Suite("Filter, sort and columns on the command line", .timeLimit(.minutes(30)))
struct QueryEndToEndTests {
    let binary = Paths.binary

    struct Table {
        var header = ["id", "city", "amount", "note"]
        var rows: [[String]] = []

        var csv: String {
            func quoted(_ cell: String) -> String {
                cell.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
            }
            return ([header] + rows).map { $0.map(quoted).joined(separator: ",") }.joined(separator: "\n") + "\n"
        }
    }

    /// Rows with cities, amounts in several dresses, and notes full of quotes, commas and
    /// line breaks.
    static func table(rows: Int) -> Table {
        var table = Table()
        var state: UInt64 = 12345
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let cities = ["Oslo", "oslo", "Bergen", "Lyon", "Oslofjord", "São Paulo", ""]
        let notes = ["plain", "with, comma", "say \"hi\"", "two\nlines", "", "Oslo again", "ünïcode"]
        for index in 1...rows {
            let amount: String
            switch next(4) {
            case 0: amount = "\(next(2000) - 1000)"
            case 1: amount = "\(next(100)).\(next(10))"
            case 2: amount = "\(1 + next(4)),\(100 + next(900))"
            default: amount = next(8) == 0 ? "" : "-\(next(50))"
            }
            table.rows.append(["\(index)", cities[next(cities.count)], amount, notes[next(notes.count)]])
        }
        return table
    }

    /// The amount as a number (the reference's own reading: commas dropped).
    static func amount(_ text: String) -> Double? { Double(text.replacingOccurrences(of: ",", with: "")) }

    func write(_ table: Table) throws -> (URL, URL) {
        let directory = try Paths.temporaryDirectory()
        let file = directory.appendingPathComponent("big.csv")
        try Data(table.csv.utf8).write(to: file)
        return (directory, file)
    }

    func json(_ arguments: [String]) throws -> (Int32, [[String]]) {
        let result = try run([binary] + arguments + ["--output", "json"])
        let parsed = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [[String]]
        return (result.status, parsed ?? [])
    }

    @Test("--output writes unchanged records as their own bytes (line ends, quotes); with --columns a filter looks only at those")
    func ownBytesAndChosenColumns() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("mixed.csv")
        let text = "\u{FEFF}id,city,note\r\n1,\"Oslo\",plain\n2,Lyon,\"Oslo, again\"\r3,\"Bergen\",\"say \"\"hi\"\"\"\r\n"
        try Data(text.utf8).write(to: file)
        #expect(try run([binary, "--output", "csv", file.path]).stdout == Data(text.utf8))
        let filtered = try run([binary, "--filter", "Oslo", "--output", "csv", file.path])
        #expect(filtered.text == "\u{FEFF}id,city,note\r\n1,\"Oslo\",plain\n2,Lyon,\"Oslo, again\"\r")
        let sorted = try run([binary, "--sort", "city", "--output", "csv", file.path])
        #expect(sorted.text == "\u{FEFF}id,city,note\r\n3,\"Bergen\",\"say \"\"hi\"\"\"\r\n2,Lyon,\"Oslo, again\"\r1,\"Oslo\",plain\n")
        let chosen = try run([binary, "--filter", "Oslo", "--columns", "id,note", "--output", "csv", file.path])
        #expect(chosen.text == "\u{FEFF}id,note\r\n2,\"Oslo, again\"\r\n", "the city column is not written, so it is not searched")
    }

    @Test("a header wider than a record keeps: a name past it is said to go by number, and its number works")
    func headerPastTheFieldLimit() throws {
        let count = 1_048_576 + 20
        let path = try Paths.temporaryDirectory().appendingPathComponent("wide.csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = (0..<count).map { "c\($0)" }.joined(separator: ",")
        let record = (0..<count).map { String($0 % 10) }.joined(separator: ",")
        try Data((header + "\n" + record + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let named = try run([binary, "--output", "csv", "--columns", "c\(count - 5)", path])
        #expect(named.status == 2)
        #expect(named.stderr.contains("among the header's first 1048576 names") && named.stderr.contains("up to \(count)"), "\(named.stderr)")
        #expect(named.stderr.split(separator: "\n").count == 1)
        let counted = try run([binary, "--frequency", "c\(count - 5)", path])
        #expect(counted.status == 2 && counted.stderr.contains("--frequency 'c\(count - 5)': no column 'c\(count - 5)' among the header's first"),
                "\(counted.stderr)")
        let numbered = try run([binary, "--output", "csv", "--columns", "\(count - 4)", path])
        #expect(numbered.status == 0 && numbered.text == "c\(count - 5)\n\((count - 5) % 10)\n", "\(numbered.text) \(numbered.stderr)")
    }

    @Test("JSON lines of chosen columns are keyed by the names --columns knows them by, with or without a header")
    func chosenColumnsKeepTheirNames() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("names.csv")
        // Names: a, a_3 (a_2 is the file's own fourth column), column 3, a_2, b, column 6.
        try Data("a,a,,a_2,b,\n1,2,3,4,5,6\n".utf8).write(to: file)
        for (columns, expected) in [("a_3,a", #"{"a_3":"2","a":"1"}"#), ("column 3", #"{"column 3":"3"}"#),
                                    ("a_2,column 6", #"{"a_2":"4","column 6":"6"}"#)] {
            let result = try run([binary, "--output", "jsonl", "--columns", columns, file.path])
            #expect(result.status == 0 && result.text == expected + "\n", "\(columns): \(result.text)")
            let sorted = try run([binary, "--output", "jsonl", "--sort", "b", "--columns", columns, file.path])
            #expect(sorted.text == expected + "\n", "\(columns), sorted: \(sorted.text)")
        }
        let bare = try run([binary, "--output", "jsonl", "--no-header", "--columns", "2,5", file.path])
        #expect(bare.text == #"{"column 2":"a","column 5":"b"}"# + "\n" + #"{"column 2":"2","column 5":"5"}"# + "\n")
    }

    @Test("--filter, --sort :desc and --columns give what the reference gives")
    func filterSortColumns() throws {
        let table = Self.table(rows: 3000)
        let (directory, file) = try write(table)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, got) = try json(["--filter", "Oslo", "--sort", "amount:desc", "--columns", "id,city,amount", file.path])
        #expect(status == 0)
        // Smart case: no capital... "Oslo" has one, so case matters; any cell written may
        // match (the note is not written, so it is not searched).
        let kept = table.rows.enumerated().filter { $0.element[0...2].contains { $0.contains("Oslo") } }
        let sorted = kept.sorted { a, b in
            let x = Self.amount(a.element[2]), y = Self.amount(b.element[2])
            switch (x, y) {
            case (nil, nil): return a.offset < b.offset
            case (nil, _): return false
            case (_, nil): return true
            case let (x?, y?): return x != y ? x > y : a.offset < b.offset
            }
        }
        #expect(got.first == ["id", "city", "amount"])
        #expect(Array(got.dropFirst()) == sorted.map { [$0.element[0], $0.element[1], $0.element[2]] })
    }

    @Test("scoped and inverted filters, two sort keys, numbers for columns")
    func scopedInvertedTwoKeys() throws {
        let table = Self.table(rows: 2000)
        let (directory, file) = try write(table)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, got) = try json(["--filter-column", "city=^oslo$", "--filter-out", "again", "--filter-out-column", "4=lines",
                                      "--sort", "2", "--sort", "amount", "--columns", "4,1", file.path])
        #expect(status == 0)
        let kept = table.rows.enumerated().filter { row in
            row.element[1].lowercased() == "oslo" && !row.element.contains { $0.contains("again") } && !row.element[3].contains("lines")
        }
        let sorted = kept.sorted { a, b in
            if a.element[1].lowercased() != b.element[1].lowercased() { return a.element[1].lowercased() < b.element[1].lowercased() }
            let x = Self.amount(a.element[2]), y = Self.amount(b.element[2])
            if (x == nil) != (y == nil) { return x != nil }
            if let x, let y, x != y { return x < y }
            return a.offset < b.offset
        }
        #expect(got.first == ["note", "id"])
        #expect(Array(got.dropFirst()) == sorted.map { [$0.element[3], $0.element[0]] })
    }

    @Test("CSV output quotes as the writer does and keeps the preamble and the header")
    func csvExact() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("p.csv")
        try Data("# note\r\nname,price\r\n\"b, quoted\",\"1,000\"\r\n\"a \"\"x\"\"\",-2.5\r\nc,5%\r\nd,\r\ne,12e1\r\n".utf8).write(to: file)
        let result = try run([binary, "--sort", "price:desc", "--output", "csv", file.path])
        #expect(result.status == 0)
        #expect(result.text == "# note\r\nname,price\r\n\"b, quoted\",\"1,000\"\r\ne,12e1\r\nc,5%\r\n\"a \"\"x\"\"\",-2.5\r\nd,\r\n")
        for format in ["tsv", "jsonl", "table", "json"] {
            let other = try run([binary, "--filter-column", "name=b", "--columns", "price", "--output", format, file.path])
            #expect(other.status == 0, "\(format)")
            #expect(other.text.contains("1,000"), "\(format)")
            #expect(!other.text.contains("5%"), "\(format)")
        }
    }

    @Test("an unknown column: one line naming the columns, status 2; a bad pattern: one line, status 2")
    func unknownColumn() throws {
        let file = Paths.sampleData.appendingPathComponent("people.csv").path
        let result = try run([binary, "--sort", "nosuch", "--output", "csv", file])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("no column 'nosuch'") && result.stderr.contains("'first_name'"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        let pattern = try run([binary, "--filter", "(", "--output", "csv", file])
        #expect(pattern.status == 2)
        #expect(pattern.stderr.split(separator: "\n").count == 1)
    }

    @Test("a mistake in --filter-column and its kin is one line naming the option as given, the column and the pattern")
    func messagesNameTheOption() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("q.csv")
        try Data("a,b\n1,[x\n".utf8).write(to: file)
        for (arguments, message) in [
            (["--filter-column", "a=["], "csvfreeze: --filter-column 'a=[' (column 'a', pattern '['): invalid pattern at character 2"),
            (["--filter-out-column", "b=("], "csvfreeze: --filter-out-column 'b=(' (column 'b', pattern '('): invalid pattern"),
            (["--filter-column", "zz=x"], "csvfreeze: --filter-column 'zz=x': no column 'zz' (columns: 'a', 'b')"),
            (["--filter-column", "zz"], "csvfreeze: --filter-column 'zz': give COLUMN=REGEX"),
            (["--filter", "["], "csvfreeze: --filter '[': invalid pattern"),
            (["--sort", "zz:desc"], "csvfreeze: --sort 'zz:desc': no column 'zz'"),
            (["--frequency", "a", "--filter-column", "a=["], "csvfreeze: --filter-column 'a=[' (column 'a', pattern '[')"),
        ] {
            let result = try run([binary] + arguments + ["--output", "csv", file.path])
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test("`--sort … | head` prints the first rows and ends cleanly")
    func sortIntoHead() throws {
        let table = Self.table(rows: 20000)
        let (directory, file) = try write(table)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(["/bin/sh", "-c", "\(shellQuote(binary)) --sort amount --output csv \(shellQuote(file.path)) | head -2"])
        let lines = result.text.split(separator: "\n")
        #expect(lines.first == "id,city,amount,note")
        let least = table.rows.compactMap { Self.amount($0[2]) }.min()
        let firstAmount = lines.dropFirst().first.map { String($0.split(separator: ",", omittingEmptySubsequences: false)[2]) }
        #expect(firstAmount.flatMap(Self.amount) == least)
        #expect(result.stderr.isEmpty)
    }

    @Test("the same options from standard input")
    func fromStandardInput() throws {
        let table = Self.table(rows: 500)
        let result = try run([binary, "--filter-column", "city=Bergen", "--columns", "id", "--output", "csv", "-"], stdin: Data(table.csv.utf8))
        #expect(result.status == 0)
        let expected = ["id"] + table.rows.filter { $0[1].contains("Bergen") }.map { $0[0] }
        #expect(result.text == expected.joined(separator: "\n") + "\n")
    }
}
