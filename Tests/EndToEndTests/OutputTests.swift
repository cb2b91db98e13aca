import Foundation
import Testing

/// The binary with no terminal: output modes and errors.
@Suite("Without a terminal", .timeLimit(.minutes(30)))
struct OutputTests {
    let binary = Paths.binary

    @Test("the binary is built")
    func built() {
        #expect(FileManager.default.isExecutableFile(atPath: binary), "run `swift build` (or `make test`) first")
    }

    @Test("stdout not a terminal: an aligned table, and `| head` ends it quietly")
    func tablePipedToHead() throws {
        let file = Paths.sampleData.appendingPathComponent("people.csv").path
        let result = try run(["/bin/sh", "-c", "\(shellQuote(binary)) \(shellQuote(file)) | head -3"])
        let lines = result.text.components(separatedBy: "\n")
        #expect(lines[0].hasPrefix("id "))
        #expect(lines[0].contains("  first_name  "))
        #expect(lines[1].hasPrefix("────"))
        #expect(lines[2].trimmingCharacters(in: .whitespaces).hasPrefix("1  "))
        #expect(lines.count == 4 && lines[3].isEmpty, "exactly three lines")
        #expect(result.stderr.isEmpty)
        // Columns line up: "first_name" starts where the first row's first name starts.
        let header = lines[0], row = lines[2]
        let nameColumn = header.distance(from: header.startIndex, to: header.range(of: "first_name")!.lowerBound)
        #expect(row.prefix(nameColumn).hasSuffix("  "))
        #expect(row.dropFirst(nameColumn).first != " ")
    }

    @Test("into a pipe or a file the table loses no text: long cells whole, a cell of several MiB too; --max-width cuts")
    func tableWritesWholeCells() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("whole-\(getpid()).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let note = String(repeating: "word ", count: 30) + "end"
        let giant = String(repeating: "abcdefgh", count: 300_000)
        try Data("id,note\n1,\(note)\n2,\"\(giant)\"\n3,\"two\nlines\"\n".utf8).write(to: url)
        let piped = try run(["/bin/sh", "-c", "\(shellQuote(binary)) \(shellQuote(url.path)) | cat"])
        #expect(piped.status == 0)
        let lines = piped.text.components(separatedBy: "\n")
        #expect(lines.count == 6, "\(lines.count) lines")
        #expect(lines[2] == " 1  " + note)
        #expect(lines[3] == " 2  " + giant)
        #expect(lines[4] == " 3  two↵lines")
        #expect(!piped.text.contains("…"))
        let cut = try run([binary, "--max-width", "8", "--output", "table", url.path])
        #expect(cut.text.components(separatedBy: "\n")[2] == " 1  word wo…")
        #expect(cut.text.components(separatedBy: "\n")[3] == " 2  abcdefg…")
        let wrong = try run([binary, "--max-width", "8", "--output", "csv", url.path])
        #expect(wrong.status == 64 && wrong.stderr.contains("--max-width cuts cells of table output only"), "\(wrong.stderr)")
    }

    @Test("--output streams a cell of several MiB whole and reads endless input a piece at a time")
    func giantCell() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("giant-\(getpid()).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let cell = String(repeating: "ab\"\"c,d\n", count: 600_000)
        try Data(("id,text\n1,\"" + cell + "\"\n2,x\n").utf8).write(to: url)
        let csv = try run([binary, "--output", "csv", url.path])
        #expect(csv.status == 0)
        #expect(csv.stdout == (try Data(contentsOf: url)))
        let json = try run([binary, "--output", "json", url.path])
        let parsed = try JSONSerialization.jsonObject(with: json.stdout) as? [[String]]
        #expect(parsed?.count == 3)
        #expect(parsed?[1][1] == cell.replacingOccurrences(of: "\"\"", with: "\""))
        #expect(parsed?[2] == ["2", "x"])
        // A record that never ends still streams, and `| head` ends it.
        let endless = try run(["/bin/sh", "-c", "\(shellQuote(binary)) --output csv /dev/zero | head -c 100 | wc -c"])
        #expect(endless.text.trimmingCharacters(in: .whitespacesAndNewlines) == "100")
    }

    @Test("the screen and --output take the same line for the header; CSV writes the preamble back as it was")
    func preambleAgrees() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let notes = directory.appendingPathComponent("notes.csv")
        let text = "# exported today\r\n# by \"ops\", 2024\r\nid,name\r\n1,x\r\n"
        try Data(text.utf8).write(to: notes)
        #expect(try run([binary, "--output", "csv", notes.path]).stdout == Data(text.utf8))
        #expect(try run([binary, "--output", "jsonl", notes.path]).text == "{\"id\":\"1\",\"name\":\"x\"}\n")
        #expect(try run([binary, "--output", "json", "--no-preamble", notes.path]).text.contains("[\"# exported today\"]"))
        let table = try run([binary, "--output", "table", notes.path]).text.components(separatedBy: "\n")
        #expect(table[0] == "# exported today" && table[2].hasPrefix("id") && table[3].hasPrefix("──"))
        let hashHeader = directory.appendingPathComponent("hash.csv")
        try Data("#id,name\n1,x\n".utf8).write(to: hashHeader)
        #expect(try run([binary, "--output", "jsonl", hashHeader.path]).text == "{\"#id\":\"1\",\"name\":\"x\"}\n")
        let pane = try TmuxPane("\(shellQuote(binary)) \(shellQuote(hashHeader.path))", width: 40, height: 6)
        let lines = try pane.waitFor("the first screen") { $0.last(where: { !$0.isEmpty })?.contains("row 1/1") == true }
        #expect(lines[0].contains("#id"), "the screen's header is #id too: \(lines[0])")
    }

    @Test("--output csv reproduces well-formed files byte for byte", arguments: ["people.csv", "wide.csv", "sensors.tsv"])
    func csvRoundTrip(name: String) throws {
        let url = Paths.sampleData.appendingPathComponent(name)
        let format = name.hasSuffix(".tsv") ? "tsv" : "csv"
        let result = try run([binary, "--output", format, url.path])
        #expect(result.status == 0)
        #expect(result.stdout == (try Data(contentsOf: url)))
    }

    @Test("--output csv round-trips a generated file with quotes, CRLF and no final newline")
    func generatedRoundTrip() throws {
        var text = "id,text,n\r\n"
        for index in 0..<5000 {
            text += "\(index),\"a, \"\"quoted\"\"\r\nvalue \(index)\",\(index * 3)\r\n"
        }
        text += "last,row,end"
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("generated.csv")
        try Data(text.utf8).write(to: url)
        let result = try run([binary, "--output", "csv", url.path])
        #expect(result.stdout == Data(text.utf8))
        let piped = try run([binary, "--output", "csv"], stdin: Data(text.utf8))
        #expect(piped.stdout == Data(text.utf8))
    }

    @Test("--output csv and tsv keep a leading byte-order mark, from a file and from a pipe")
    func byteOrderMarkRoundTrip() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in [("bom.csv", "\u{FEFF}id,name\r\n1,\"Zoë, \"\"Z\"\"\"\r\n"), ("bom.tsv", "\u{FEFF}a\tb\n1\t2"),
                             ("only.csv", "\u{FEFF}")] {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            let format = name.hasSuffix(".tsv") ? "tsv" : "csv"
            #expect(try run([binary, "--output", format, url.path]).stdout == Data(text.utf8), "\(name)")
            #expect(try run([binary, "--output", format, "-d", format == "tsv" ? "tab" : ","], stdin: Data(text.utf8)).stdout
                    == Data(text.utf8), "\(name) piped")
        }
        // JSON never starts with one: the mark is not part of the first cell either.
        let json = try run([binary, "--output", "json"], stdin: Data("\u{FEFF}a\n1\n".utf8))
        #expect(json.text == "[\n  [\"a\"],\n  [\"1\"]\n]\n")
    }

    @Test("the csv-spectrum suite through --output json", arguments: [
        "comma_in_quotes", "empty", "empty_crlf", "escaped_quotes", "json", "newlines", "newlines_crlf",
        "quotes_and_newlines", "simple", "simple_crlf", "utf8", "location_coordinates",
    ])
    func spectrum(name: String) throws {
        let directory = Paths.conformance.appendingPathComponent("csv-spectrum")
        let result = try run([binary, "--output", "json", directory.appendingPathComponent("csvs/\(name).csv").path])
        #expect(result.status == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String]])
        if name == "location_coordinates" { return }   // faulty upstream: must only not crash
        let expected = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: directory.appendingPathComponent("json/\(name).json"))) as? [[String: String]])
        let header = rows[0]
        let records = rows.dropFirst().map { row in
            Dictionary(uniqueKeysWithValues: header.enumerated().map { ($0.element, $0.offset < row.count ? row[$0.offset] : "") })
        }
        #expect(records == expected)
    }

    @Test("json: ragged rows keep their length, invalid UTF-8 becomes U+FFFD, empty input is []")
    func json() throws {
        let ragged = try run([binary, "--output", "json"], stdin: Data("a,b\n1\n2,3,4\n".utf8))
        #expect(ragged.text == "[\n  [\"a\",\"b\"],\n  [\"1\"],\n  [\"2\",\"3\",\"4\"]\n]\n")
        let invalid = try run([binary, "--output", "json"], stdin: Data([0x61, 0xFF, 0x0A]))
        #expect(invalid.text == "[\n  [\"a\u{FFFD}\"]\n]\n")
        let empty = try run([binary, "--output", "json", "/dev/null"])
        #expect(empty.status == 0)
        #expect(empty.text == "[]\n")
    }

    @Test("-d takes a delimiter or 'tab'; a bad one is a usage error")
    func delimiterOption() throws {
        let semicolon = try run([binary, "-d", ";", "--output", "json"], stdin: Data("a;b\n1;2\n".utf8))
        #expect(semicolon.text.contains("[\"a\",\"b\"]"))
        let tab = try run([binary, "-d", "tab", "--output", "csv"], stdin: Data("a\tb,c\n".utf8))
        #expect(tab.text == "a,\"b,c\"\n")
        let bad = try run([binary, "-d", "ab", "--output", "csv", "/dev/null"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--delimiter"))
    }

    @Test("bad paths: one line on stderr naming the path, a non-zero exit, nothing on stdout", arguments: [
        ("/nonexistent/data.csv", "csvfreeze: /nonexistent/data.csv: no such file"),
        ("/etc/passwd/data.csv", "csvfreeze: /etc/passwd/data.csv: no such file"),
    ])
    func badPaths(path: String, message: String) throws {
        for extra in [[], ["--output", "json"]] {
            let result = try run([binary] + extra + [path])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == message + "\n")
        }
    }

    @Test("--help lists every option and key; --version prints the version")
    func help() throws {
        let help = try run([binary, "--help"]).text
        for option in ["--delimiter", "--no-header", "--freeze-rows", "--freeze-cols", "--no-row-numbers", "--output", "--version", "--help"] {
            #expect(help.contains(option), "\(option)")
        }
        for key in ["PageDown", "Home", "G", "q, Ctrl-C"] { #expect(help.contains(key)) }
        #expect(try run([binary, "--version"]).text.hasPrefix("csvfreeze "))
    }
}
