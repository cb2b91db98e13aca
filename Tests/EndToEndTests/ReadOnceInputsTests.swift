import Foundation
import Testing

/// What can be read only once (a pipe given by name, `/dev/stdin`, a process substitution,
/// a FIFO) among several inputs: read once, spooled, and every pass (the count, the
/// header, the table) reads the spool, so no row is lost and nothing waits for a writer
/// that has gone.
@Suite("Inputs read once among several", .serialized, .timeLimit(.minutes(30)))
struct ReadOnceInputsTests {
    let binary = Paths.binary

    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// A directory holding `a.csv` (two rows) and a FIFO `g.csv`.
    func directory() throws -> URL {
        let directory = try Paths.temporaryDirectory()
        try Data("id,city\n1,Lyon\n2,Oslo\n".utf8).write(to: directory.appendingPathComponent("a.csv"))
        try #require(mkfifo(directory.appendingPathComponent("g.csv").path, 0o600) == 0)
        return directory
    }

    /// Runs `command` with bash in `directory`, bounded, so a hang fails instead of waiting;
    /// a writer left waiting on the FIFO is ended.
    func bash(_ command: String, in directory: URL) throws -> Completed {
        try run(["/usr/bin/env", "bash", "-c", "cd \(shellQuote(directory.path)) && { \(command) ; }; status=$?; "
                 + "jobs -p | xargs -r kill 2>/dev/null; exit $status"])
    }

    @Test("a process substitution, /dev/stdin and a FIFO among several inputs give all their rows, in every writing mode",
          arguments: [
              ["--output", "csv"], ["--output", "tsv"], ["--output", "jsonl"], ["--sort", "city", "--output", "csv"],
              ["--filter", "a|o", "--output", "csv"], ["--columns", "city", "--output", "csv"],
          ])
    func writing(mode: [String]) throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let options = mode.map(shellQuote).joined(separator: " ")
        let bin = shellQuote(binary)
        let kinds: [(command: String, name: String)] = [
            ("timeout 30 \(bin) \(options) a.csv <(printf 'id,city\\n9,Pisa\\n')", "/dev/fd/"),
            ("printf 'id,city\\n9,Pisa\\n' | timeout 30 \(bin) \(options) a.csv /dev/stdin", "/dev/stdin"),
            ("(printf 'id,city\\n9,Pisa\\n' > g.csv) & timeout 30 \(bin) \(options) a.csv g.csv", "g.csv"),
        ]
        for (command, name) in kinds {
            let result = try bash(command, in: dir)
            #expect(result.status == 0, "\(command): \(result.status) \(result.stderr)")
            let lines = result.text.split(separator: "\n").map(String.init)
            let data = lines.filter { $0.contains("Lyon") || $0.contains("Oslo") || $0.contains("Pisa") }
            #expect(data.count == 3, "\(command): every row of both inputs, got:\n\(result.text)")
            #expect(lines.contains { $0.contains(name) && $0.contains("Pisa") }, "\(command): the read-once input's row, named")
            #expect(result.stderr.isEmpty, "\(command): \(result.stderr)")
        }
    }

    @Test("--sql over several reads a FIFO and a process substitution once each")
    func sql() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bin = shellQuote(binary)
        let result = try bash("(printf 'id,city\\n7,Nice\\n' > g.csv) & timeout 30 \(bin) --output csv "
                              + "--sql 'select city from a union all select city from g order by city' a.csv g.csv", in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "city\nLyon\nNice\nOslo\n")
    }

    @Test("on screen, a process substitution among files shows its rows, not an empty input")
    func processSubstitutionOnScreen() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && bash -c \(shellQuote("\(binary) a.csv <(printf 'id,city\\n9,Pisa\\n')"))",
                                width: 80, height: 8)
        try pane.waitFor("the first table") { self.status($0).contains("a.csv 1/2") }
        try pane.send("}")
        let lines = try pane.waitFor("the second table's row") { lines in
            self.status(lines).contains("2/2") && lines.contains { $0.contains("9") && $0.contains("Pisa") }
        }
        #expect(!lines.joined().contains("empty input"), "\(lines)")
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("on screen, a FIFO whose writer came and went shows its rows; one with no writer yet says it waits only until one comes")
    func fifoOnScreen() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let later = dir.appendingPathComponent("h.csv").path
        try #require(mkfifo(later, 0o600) == 0)
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && (printf 'id,city\\n7,Nice\\n' > g.csv) & "
                                + "cd \(shellQuote(dir.path)) && \(binary) a.csv g.csv h.csv", width: 80, height: 8)
        try pane.waitFor("the first table") { self.status($0).contains("a.csv 1/3") }
        try pane.send("}")
        var lines = try pane.waitFor("the first FIFO's row") { lines in
            self.status(lines).contains("g.csv 2/3") && lines.contains { $0.contains("7") && $0.contains("Nice") }
        }
        #expect(!status(lines).contains("waiting"), "\(status(lines))")
        try pane.send("}")
        try pane.waitFor("the wait for a writer") { self.status($0).contains("waiting for a writer to open h.csv") }
        // csvfreeze holds the reading end, so the writer does not wait.
        let written = try run(["/usr/bin/env", "timeout", "30", "sh", "-c", "printf 'id,city\\n8,Metz\\n' > \(shellQuote(later))"])
        #expect(written.status == 0)
        lines = try pane.waitFor("the second FIFO's row") { lines in lines.contains { $0.contains("8") && $0.contains("Metz") } }
        #expect(!status(lines).contains("waiting"), "\(status(lines))")
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("--stack shows a process substitution's rows under the file's")
    func stacked() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let command = "\(binary) --stack --bounce none a.csv <(printf 'id,city\\n9,Pisa\\n')"
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && bash -c \(shellQuote(command))", width: 80, height: 10)
        let lines = try pane.waitFor("both tables in the stack") { lines in
            lines.contains { $0.contains("Lyon") } && lines.contains { $0.contains("9") && $0.contains("Pisa") }
        }
        #expect(lines.contains { $0.contains("Oslo") })
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }
}
