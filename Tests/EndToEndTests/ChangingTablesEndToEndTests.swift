import Foundation
import Testing

/// Several tables on screen through the real binary in tmux, on 80 columns: the stack
/// entered with `S` shows compressed tables, `}` passes over a table whose file was
/// deleted, the stack and `T` notice files that changed, and Ctrl-S in the stack refuses on
/// one line without running what is typed after it.
@Suite("Several tables as their files change, end to end", .serialized, .timeLimit(.minutes(30)))
struct ChangingTablesEndToEndTests {
    let binary = Paths.binary

    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// `a.csv`, `b.csv.gz`, `c.csv.zst` and `d.csv`, two or three rows each.
    func tables() throws -> URL {
        let dir = try Paths.temporaryDirectory()
        try Data("id,name\n1,Ann\n2,Bo\n3,Cy\n".utf8).write(to: dir.appendingPathComponent("a.csv"))
        try Data("x,y\n11,12\n13,14\n".utf8).write(to: dir.appendingPathComponent("d.csv"))
        let made = try run(["/bin/sh", "-c", "cd \(shellQuote(dir.path)) && printf 'k,v\\n9,8\\n7,6\\n' | gzip -c > b.csv.gz"
                            + " && printf 'p,q\\n55,44\\n33,22\\n' | zstd -q -c > c.csv.zst"])
        try #require(made.status == 0, "\(made.stderr)")
        return dir
    }

    @Test("S, after every table is counted, shows the gzip and zstd tables' rows without the cursor going there")
    func compressedInStack() throws {
        let dir = try tables()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) --bounce none a.csv b.csv.gz c.csv.zst d.csv",
                                width: 80, height: 20)
        try pane.waitFor("the first table") { self.status($0).contains("a.csv 1/4") }
        try pane.send("T")
        try pane.waitFor("every table counted") { lines in
            lines.contains { $0.contains("c.csv.zst") && $0.contains("zstd") && $0.contains(" 2 ") }
                && lines.contains { $0.contains("b.csv.gz") && $0.contains(" 2 ") }
        }
        try pane.send("Escape")
        try pane.waitFor("the first table again") { self.status($0).contains("a.csv 1/4") }
        try pane.send("S")
        let lines = try pane.waitFor("the compressed tables' rows in the stack") { lines in
            lines.contains { $0.contains("9") && $0.contains("8") } && lines.contains { $0.contains("55") && $0.contains("44") }
        }
        #expect(self.status(lines).contains("a.csv 1/4 stacked"), "the cursor stayed in the first table")
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("} passes over a table whose file was deleted: the arriving table's name and why, on 80 columns")
    func passOverDeleted() throws {
        let dir = try tables()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) --bounce none ./a.csv ./b.csv.gz ./c.csv.zst ./d.csv",
                                width: 80, height: 8)
        try pane.waitFor("the first table") { self.status($0).contains("a.csv 1/4") }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("b.csv.gz"))
        try pane.send("}")
        let lines = try pane.waitFor("the next table that can be shown") { self.status($0).contains("c.csv.zst 3/4") }
        #expect(status(lines).contains("skipped b.csv.gz: no such file"), "\(status(lines))")
        try pane.send("{")
        try pane.waitFor("back past it") { self.status($0).contains("a.csv 1/4") && self.status($0).contains("skipped b.csv.gz") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("Ctrl-S in the stack: one line of 80 columns saying what to do; a path typed after it runs nothing")
    func saveInStack() throws {
        let dir = try tables()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) --stack --bounce none a.csv d.csv", width: 80, height: 10)
        try pane.waitFor("the stack") { self.status($0).contains("a.csv 1/2 stacked  row 1/3") }
        try pane.send("C-s")
        var lines = try pane.waitFor("the refusal") { self.status($0).contains("Ctrl-S") }
        #expect(status(lines) == "Ctrl-S writes one table: S leaves the stack, then Ctrl-S there  (Esc)", "\(status(lines))")
        try pane.send("-l", "jjGout.csv")
        try pane.send("Enter")
        lines = try pane.waitFor("the stack again") { self.status($0).contains("stacked") }
        #expect(status(lines).contains("a.csv 1/2 stacked  row 1/3"), "nothing typed moved the cursor: \(status(lines))")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.csv").path))
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("the stack and T notice a file made shorter and one deleted: said at the next key, counted again, no old rows")
    func stackNoticesChanges() throws {
        let dir = try tables()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) --stack --bounce none a.csv d.csv c.csv.zst",
                                width: 80, height: 16)
        try pane.waitFor("every table in the stack") { lines in lines.contains { $0.contains("55") && $0.contains("44") } }
        let shorter = try run(["/bin/sh", "-c", "printf 'x,y\\n11,12\\n' > \(shellQuote(dir.appendingPathComponent("d.csv").path))"])
        #expect(shorter.status == 0)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("c.csv.zst"))
        try pane.send("j")
        var lines = try pane.waitFor("the changes said") { self.status($0).contains("changed: counted again") }
        #expect(status(lines).contains("d.csv and c.csv.zst changed: counted again"), "\(status(lines))")
        lines = try pane.waitFor("the tables as they are now") { lines in
            !lines.contains { $0.contains("13") && $0.contains("14") } && !lines.contains { $0.contains("55") }
                && lines.contains { $0.contains("11") && $0.contains("12") }
        }
        #expect(lines.contains { $0.contains("11") && $0.contains("12") })
        try pane.send("T")
        lines = try pane.waitFor("the list") { lines in lines.contains { $0.contains("c.csv.zst") && $0.contains("cannot be read") } }
        #expect(lines.contains { $0.contains("d.csv") && $0.contains("10 B") && $0.contains(" 1 ") }, "\(lines)")
        try pane.send("Escape")
        try pane.waitFor("the stack again") { self.status($0).contains("stacked") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }
}
