#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Several files in one viewer with the real binary in tmux: switching, the list of
/// tables, a directory, standard input among them, and the errors before the screen.
@Suite("Several tables, end to end", .serialized, .timeLimit(.minutes(30)))
struct SeveralTablesEndToEndTests {
    let binary = Paths.binary

    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// A directory with a CSV, a TSV, a gzip CSV, a note and a subdirectory.
    func exports() throws -> URL {
        let dir = try Paths.temporaryDirectory()
        try Data("id,name\n1,Ann\n2,Bo\n3,Cy\n".utf8).write(to: dir.appendingPathComponent("a.csv"))
        try Data("x\ty\tz\n1\t2\t3\n".utf8).write(to: dir.appendingPathComponent("b.tsv"))
        let gzip = try run(["/bin/sh", "-c", "printf 'k;v\\n9;8\\n7;6\\n' | gzip -c > " + shellQuote(dir.appendingPathComponent("c.csv.gz").path)])
        try #require(gzip.status == 0)
        try Data("not a table\n".utf8).write(to: dir.appendingPathComponent("notes.md"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("old"), withIntermediateDirectories: true)
        return dir
    }

    @Test("a directory opens its tables; } { switch, T lists them, Enter shows one; skipped entries are said")
    func directory() throws {
        let dir = try exports()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) .", width: 100, height: 10)
        var lines = try pane.waitFor("the first table") { $0.first?.contains("id") == true }
        #expect(status(lines).contains("skipped") && status(lines).contains("notes.md"))
        try pane.send("}")
        lines = try pane.waitFor("the TSV") { self.status($0).contains("./b.tsv 2/3") }
        #expect(lines[0].contains("x") && lines[0].contains("z") && status(lines).contains("tab"))
        try pane.send("}")
        // The dialect shows once the table's first bytes are read.
        lines = try pane.waitFor("the gzip file and its dialect") {
            self.status($0).contains("c.csv.gz 3/3") && self.status($0).contains("semicolon")
        }
        #expect(status(lines).contains("gzip"), "\(lines)")
        try pane.send("T")
        lines = try pane.waitFor("the list, counted") { lines in
            lines.contains { $0.contains("a.csv") && $0.contains(" 3 ") } && lines.contains { $0.contains("c.csv.gz") && $0.contains("gzip") }
        }
        #expect(lines[0].contains("table") && lines[0].contains("size") && lines[0].contains("dialect"))
        try pane.send("g", "Enter")
        lines = try pane.waitFor("the first table again") { self.status($0).contains("a.csv 1/3") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("standard input among files: read as it arrives, shown with the others")
    func standardInputAmongFiles() throws {
        let dir = try exports()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = shellQuote(dir.appendingPathComponent("a.csv").path)
        let pane = try TmuxPane("printf 'p,q\\n5,6\\n' | \(binary) \(a) -", width: 80, height: 8)
        try pane.waitFor("the file") { self.status($0).contains("a.csv 1/2") }
        try pane.send("}")
        let lines = try pane.waitFor("standard input") { self.status($0).contains("stdin 2/2") }
        #expect(lines[0].contains("p") && lines[1].contains("5"))
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("a file that cannot be read among several: one line, exit 1, nothing drawn; --skip-bad shows the rest")
    func badAmongSeveral() throws {
        let dir = try exports()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.csv").path
        let missing = dir.appendingPathComponent("missing.csv").path
        let failed = try run([binary, a, missing])
        #expect(failed.status == 1)
        #expect(failed.stderr == "csvfreeze: \(missing): no such file\n")
        #expect(failed.stdout.isEmpty)
        let empty = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: empty) }
        try Data("x".utf8).write(to: empty.appendingPathComponent("readme.md"))
        let none = try run([binary, empty.path])
        #expect(none.status == 1)
        #expect(none.stderr == "csvfreeze: \(empty.path): no delimited files in it (1 other entry: readme.md)\n")
        let pane = try TmuxPane("\(binary) --skip-bad \(shellQuote(a)) \(shellQuote(missing))", width: 120, height: 8)
        let lines = try pane.waitFor("the table, and the note") { self.status($0).contains("left out") }
        #expect(status(lines).contains("missing.csv: no such file"))
        #expect(lines[0].contains("id"))
        try pane.send("q")
        _ = try pane.waitForExit()
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data("id,name\n1,Ann\n2,Bo\n3,Cy\n".utf8), "nothing altered")
    }

    @Test("--stack: every table in one scroll, the next header taking the pinned place; G, :table:row, S back to a table")
    func stacked() throws {
        let dir = try exports()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) --stack --bounce none .", width: 80, height: 6)
        // The next table comes into the scroll once the census has counted the first.
        var lines = try pane.waitFor("the stack, the second table's header in the scroll") {
            self.status($0).contains("row 1/3") && self.status($0).contains("skipped") && $0.count > 4
                && $0[4].contains("x") && $0[4].contains("z")
        }
        #expect(lines[0].contains("id") && lines[0].contains("name"), "the first table's header pinned")
        try pane.send(":", "b.tsv:1", "Enter")
        lines = try pane.waitFor("the TSV") { self.status($0).contains("./b.tsv 2/3 stacked  row 1/1") }
        // At the end, the second table's header has scrolled up and taken the pinned place.
        try pane.send("G")
        lines = try pane.waitFor("the last row of the last table") { self.status($0).contains("c.csv.gz 3/3 stacked  row 2/2") }
        #expect(lines[0].contains("x") && lines[0].contains("z"), "b.tsv's header pinned: \(lines[0])")
        #expect(lines.contains { $0.contains("k") && $0.contains("v") } && lines.contains { $0.contains("7") && $0.contains("6") })
        try pane.send("S")
        lines = try pane.waitFor("the table under the cursor") { self.status($0).contains("c.csv.gz 3/3  row 2/2") }
        #expect(lines[0].contains("k") && lines[0].contains("v"))
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }
}
