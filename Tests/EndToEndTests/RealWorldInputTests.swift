import Foundation
import Testing

/// Files as real exports and tools write them, through the real binary.
@Suite("Real-world input", .timeLimit(.minutes(30)))
struct RealWorldInputTests {
    let binary = Paths.binary

    /// A temporary directory with `name` holding `bytes`; the path to it.
    func file(_ name: String, _ bytes: [UInt8], in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test("a TSV with '# Name:' lines and a blank line: the header is the real one on screen, in every output, in the summary")
    func preambleWithBlankLine() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = "# Name: stations\n# Source: https://example.org/stations\n\nid\tname\tlat\n1\tOslo\t59.91\n2\tBergen\t60.39\n"
        let path = try file("stations.tsv", Array(text.utf8), in: directory)
        #expect(try run([binary, "--output", "tsv", path]).stdout == Data(text.utf8), "written back as it was")
        #expect(try run([binary, "--output", "jsonl", path]).text
                == "{\"id\":\"1\",\"name\":\"Oslo\",\"lat\":\"59.91\"}\n{\"id\":\"2\",\"name\":\"Bergen\",\"lat\":\"60.39\"}\n")
        let json = try run([binary, "--output", "json", path]).text
        #expect(json.hasPrefix("[\n  [\"id\",\"name\",\"lat\"],"))
        let summary = try run([binary, "--summary", "--output", "csv", path]).text.split(separator: "\n")
        #expect(summary.dropFirst().map { $0.split(separator: ",").first.map(String.init) ?? "" } == ["id", "name", "lat"])
        let sorted = try run([binary, "--sort", "lat:desc", "--output", "csv", path]).text
        #expect(sorted.hasSuffix("\nid,name,lat\n2,Bergen,60.39\n1,Oslo,59.91\n"), "\(sorted)")
        let pane = try TmuxPane("\(shellQuote(binary)) \(shellQuote(path))", width: 50, height: 8)
        let lines = try pane.waitFor("the first screen") { $0.contains { $0.contains("row 1/2") } }
        #expect(lines.contains { $0.contains("id") && $0.contains("name") && $0.contains("lat") })
        #expect(lines.contains { $0.contains("# Source:") })
    }

    @Test("spreadsheet exports with error values in the first row, a comma file with tab-led lines in a cell, pipe lines with text after quotes: read as they are")
    func exportsAndQuirks() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let errors = try file("errors.csv", Array("#NAME?,#NAME?,#NAME?,#NAME?\n#NAME?,#NAME?,#NAME?,#NAME?\n".utf8), in: directory)
        #expect(try run([binary, "--output", "json", errors]).text
                == "[\n  [\"#NAME?\",\"#NAME?\",\"#NAME?\",\"#NAME?\"],\n  [\"#NAME?\",\"#NAME?\",\"#NAME?\",\"#NAME?\"]\n]\n")
        let missing = try file("missing.csv", Array("#N/A\nFoo\nBar\n".utf8), in: directory)
        #expect(try run([binary, "--output", "json", missing]).text == "[\n  [\"#N/A\"],\n  [\"Foo\"],\n  [\"Bar\"]\n]\n")
        let lines = (0..<5).map { "\tline \($0)\n" }.joined()
        let cell = try file("cell.csv", Array("a,b,c\n1,2,\"x\ty\n\(lines)end\"\n3,4,5\n".utf8), in: directory)
        #expect(try run([binary, "--output", "jsonl", cell]).text
                == "{\"a\":\"1\",\"b\":\"2\",\"c\":\"x\\ty\\n\\tline 0\\n\\tline 1\\n\\tline 2\\n\\tline 3\\n\\tline 4\\nend\"}\n"
                + "{\"a\":\"3\",\"b\":\"4\",\"c\":\"5\"}\n")
        let pipes = try file("pipes.txt", Array("\"x\" y| |1\n\"z\" w|q|2\n".utf8), in: directory)
        #expect(try run([binary, "--output", "tsv", "--no-header", pipes]).text == "x y\t \t1\nz w\tq\t2\n")
    }

    @Test("--follow follows the name, as tail -F: after a rotation by renaming, the new file is read and the status line says so")
    func followRenamed() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("app.log")
        try Data((1...30).map { "old \($0)\n" }.joined().utf8).write(to: log)
        let pane = try TmuxPane("\(shellQuote(binary)) -f --no-header \(shellQuote(log.path))", width: 100, height: 8)
        try pane.waitFor("following") { $0.contains { $0.contains("row 1/30+") && $0.contains("following") } }
        // logrotate without copytruncate: the file is renamed, the writer starts a new one.
        try FileManager.default.moveItem(at: log, to: directory.appendingPathComponent("app.log.1"))
        try Data("new 1\nnew 2\n".utf8).write(to: log)
        var lines = try pane.waitFor("the new file") {
            $0.contains { $0.contains("file replaced: following the new file") && $0.contains("row 2/2+") }
        }
        #expect(lines.contains { $0.contains("new 2") })
        #expect(!lines.contains { $0.contains("old ") })
        let appender = try FileHandle(forWritingTo: log)
        try appender.seekToEnd()
        try appender.write(contentsOf: Data((3...12).map { "new \($0)\n" }.joined().utf8))
        try appender.close()
        lines = try pane.waitFor("growth of the new file") { $0.contains { $0.contains("row 12/12+") } }
        #expect(lines.contains { $0.contains("new 12") })
    }

    @Test("a Latin-1 export from Excel with sep=; : --encoding converts it, the sep= line sets the delimiter and is no record")
    func excelLatin1() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = "sep=;\r\nNom;Ville;Montant\r\nJosé;Zürich;12,50\r\nFrançoise;København;7,00\r\nEuro;€;1\r\n"
        // Windows-1252: one byte a character (the euro sign is 0x80).
        let bytes = text.unicodeScalars.map { $0.value == 0x20AC ? UInt8(0x80) : UInt8($0.value) }
        let path = try file("export.csv", bytes, in: directory)
        let csv = try run([binary, "--encoding", "windows-1252", "--output", "csv", path])
        #expect(csv.status == 0)
        #expect(csv.text == "Nom,Ville,Montant\r\nJosé,Zürich,\"12,50\"\r\nFrançoise,København,\"7,00\"\r\nEuro,€,1\r\n")
        let summary = try run([binary, "--encoding", "cp1252", "--summary", "--output", "csv", path]).text
        #expect(summary.contains("\nVille,text,3,0,3,"))
        let pane = try TmuxPane("\(shellQuote(binary)) --encoding windows-1252 \(shellQuote(path))", width: 80, height: 7)
        // The status line can name the dialect a frame before the converted rows are drawn.
        let lines = try pane.waitFor("the first screen with its rows") { screen in
            screen.contains { $0.contains("semicolon, WINDOWS-1252") } && screen.contains { $0.contains("København") }
        }
        #expect(lines.contains { $0.contains("Françoise") && $0.contains("København") })
    }

    @Test("Excel's 'Unicode text' (UTF-16LE with a byte-order mark) is found without --encoding, shown and written as UTF-8")
    func excelUnicodeText() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = "id\tname\tcity\r\n1\tJosé\tZürich\r\n2\t北京\tSøborg\r\n"
        let bytes: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let path = try file("export.txt", bytes, in: directory)
        let tsv = try run([binary, "--output", "tsv", path])
        #expect(tsv.status == 0)
        #expect(tsv.stdout == Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)), "UTF-8, with UTF-8's byte-order mark")
        let piped = try run([binary, "--output", "jsonl"], stdin: Data(bytes))
        #expect(piped.text == "{\"id\":\"1\",\"name\":\"José\",\"city\":\"Zürich\"}\n{\"id\":\"2\",\"name\":\"北京\",\"city\":\"Søborg\"}\n")
        let pane = try TmuxPane("\(shellQuote(binary)) \(shellQuote(path))", width: 80, height: 7)
        let lines = try pane.waitFor("the first screen") { $0.contains { $0.contains("tab, UTF-16LE") } }
        #expect(lines.contains { $0.contains("北京") && $0.contains("Søborg") })
    }

    @Test("bytes not valid in the named encoding: everything is written, then one line says where, exit 1; a name iconv does not know is refused")
    func invalidEncoding() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try file("bad.csv", Array("a;b\r\n".utf8) + [0x78, 0x81, 0x79, 0x3B, 0x7A, 0x0D, 0x0A], in: directory)
        let result = try run([binary, "--encoding", "windows-1252", "--output", "csv", path])
        #expect(result.status == 1)
        #expect(result.text == "a,b\r\nx\u{FFFD}y,z\r\n")
        #expect(result.stderr == "csvfreeze: \(path): bytes not valid in WINDOWS-1252 on line 2 (byte 7), shown as \u{FFFD}\n")
        let unknown = try run([binary, "--encoding", "klingon", path])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown encoding 'klingon'"))
    }

    @Test("--quote none: a TSV with literal quotes reads as its lines say, in every output and on screen")
    func noQuote() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = "id\tsize\tnote\n1\t12\" screen\tok\n2\t\"quoted\" word\t\n\n3\t\"unclosed\tx\n4\t12\" screen\t\"\n"
        let path = try file("sizes.tsv", Array(text.utf8), in: directory)
        let json = try run([binary, "--quote", "none", "--output", "json", path]).text
        #expect(json == "[\n  [\"id\",\"size\",\"note\"],\n  [\"1\",\"12\\\" screen\",\"ok\"],\n  [\"2\",\"\\\"quoted\\\" word\",\"\"],\n"
                + "  [\"\"],\n  [\"3\",\"\\\"unclosed\",\"x\"],\n  [\"4\",\"12\\\" screen\",\"\\\"\"]\n]\n")
        let frequency = try run([binary, "--quote", "none", "--frequency", "size", "--output", "csv", path]).text
        #expect(frequency.hasPrefix("value,count,percent\n\"12\"\" screen\",2,40.00\n"), "\(frequency)")
        let sorted = try run([binary, "--quote", "none", "--sort", "id:desc", "--output", "tsv", path]).text
        #expect(sorted.hasPrefix("id\tsize\tnote\n4\t\"12\"\" screen\"\t\"\"\"\"\n3\t\"\"\"unclosed\"\tx\n"), "\(sorted)")
        let filtered = try run([binary, "--quote", "none", "--filter", "^\"quoted\"", "--output", "jsonl", path]).text
        #expect(filtered == "{\"id\":\"2\",\"size\":\"\\\"quoted\\\" word\",\"note\":\"\"}\n")
        let pane = try TmuxPane("\(shellQuote(binary)) --quote none \(shellQuote(path))", width: 60, height: 9)
        let lines = try pane.waitFor("the first screen") { $0.contains { $0.contains("tab, no quotes") } }
        #expect(lines.contains { $0.contains("\"unclosed") && $0.contains("x") })
    }
}
