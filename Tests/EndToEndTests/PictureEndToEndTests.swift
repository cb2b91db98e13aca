import Foundation
import Testing
import TestSupport

/// The distribution band, histograms and quantiles, through the real binary in tmux.
@Suite("Pictures of columns, end to end", .timeLimit(.minutes(30)))
struct PictureEndToEndTests {
    let binary = Paths.binary
    let people = Paths.sampleData.appendingPathComponent("people.csv").path

    /// A home with `text` as its config file.
    func config(_ text: String) throws -> URL {
        let directory = try Paths.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("csvfreeze"), withIntermediateDirectories: true)
        try text.write(to: directory.appendingPathComponent("csvfreeze/config"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("band = on in the config file shows the band; B hides it; Up and Enter open the column's sheet")
    func band() throws {
        let home = try config("band = on\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let configFile = home.appendingPathComponent("csvfreeze/config").path
        let pane = try TmuxPane("CSVFREEZE_CONFIG=\(shellQuote(configFile)) \(shellQuote(binary)) \(shellQuote(people))",
                                width: 100, height: 12)
        var lines = try pane.waitFor("the band") { $0.count > 1 && $0[1].hasPrefix("▁▃▅█│") }
        #expect(lines[1].contains { "▁▂▃▄▅▆▇█".contains($0) }, "\(lines[1])")
        try pane.send("Up")
        lines = try pane.waitFor("the status line on the band") { $0.contains { $0.contains("numbers from 1 to") } }
        try pane.send("Enter")
        try pane.waitFor("the id column's histogram") { $0.contains { $0.contains("frequency of id") || $0.contains("bins of id") } }
        try pane.send("q")
        try pane.send("B")
        lines = try pane.waitFor("the band gone") { $0.count > 1 && $0[1].hasPrefix("   1│") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("a config line name = value: on and off are a flag and its --no- form; a wrong name is said where it is")
    func settings() throws {
        let good = try config("band = off\nbounce = none\n")
        defer { try? FileManager.default.removeItem(at: good) }
        let path = good.appendingPathComponent("csvfreeze/config").path
        let written = try run([binary, "--output", "csv", people], environment: ["CSVFREEZE_CONFIG": path])
        #expect(written.status == 0, "\(written.stderr)")
        let bad = try config("band = on\nqqqqqq = on\n")
        defer { try? FileManager.default.removeItem(at: bad) }
        let badPath = bad.appendingPathComponent("csvfreeze/config").path
        let refused = try run([binary, "--output", "csv", people], environment: ["CSVFREEZE_CONFIG": badPath])
        #expect(refused.status == 64)
        #expect(refused.stderr == "csvfreeze: \(badPath):2: Unknown option '--qqqqqq'\n", "\(refused.stderr)")
    }

    @Test("a terminal that cannot draw blocks gets ASCII levels")
    func asciiLevels() throws {
        let pane = try TmuxPane("TERM=vt100 \(shellQuote(binary)) --band \(shellQuote(people))", width: 100, height: 12)
        let lines = try pane.waitFor("the band") { $0.count > 1 && $0[1].hasPrefix(".:=#│") }
        #expect(!lines[1].contains { "▁▂▃▄▅▆▇█▓▒░".contains($0) }, "\(lines[1])")
        #expect(lines[1].contains { "#=".contains($0) }, "\(lines[1])")
    }

    @Test("on a pipe the band fills in as rows come, dim until the input ends, then exact")
    func pipe() throws {
        // The writer stops half way until the test has seen the first half pictured.
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = directory.appendingPathComponent("gate").path
        mkfifo(gate, 0o600)
        let producer = "{ echo n,word; seq 1 300 | sed 's/$/,a/'; cat \(shellQuote(gate)) > /dev/null; seq 301 900 | sed 's/$/,b/'; }"
        let pane = try TmuxPane("\(producer) | \(shellQuote(binary)) --band", width: 60, height: 10)
        try pane.waitFor("the first half pictured") { $0.contains { $0.contains("row 1/300") } }
        // Dim (SGR 2) while the input has not ended.
        let dim = try pane.styledScreen().components(separatedBy: "\n")[1]
        #expect(dim.contains("\u{1B}[2m"), "\(dim)")
        try pane.send("Up")
        try pane.waitFor("the first half's picture") { $0.contains { $0.contains("so far: 300 numbers from 1 to 300") } }
        // Open the gate: the writer goes on and ends.
        let writer = open(gate, O_WRONLY)
        close(writer)
        // The status line may say every row's count a frame before the band is drawn exact:
        // wait for both, on screens taken together.
        var lines: [String] = []
        var styled = ""
        let exact = try turn(within: 60, pausing: { usleep(20_000) }, { lines = try pane.screen(); styled = try pane.styledScreen() },
                             until: { lines.contains { $0.contains("900 numbers from 1 to 900") }
                                      && !styled.components(separatedBy: "\n")[1].contains("\u{1B}[2m") })
        #expect(exact, "the band stayed dim or the count never came: \(lines.joined(separator: "\n"))\n\(styled)")
    }

    @Test("--histogram writes low,high,count,percent; --frequency --bins the same; what is in no bin is said apart")
    func histogram() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("h.csv")
        try ("n,d,t\n" + (0..<40).map { "\($0 % 3 == 0 ? "-" : "")\($0).25,2024-0\($0 % 9 + 1)-10,x" }.joined(separator: "\n")
             + "\nn/a,,y\n").write(to: file, atomically: true, encoding: .utf8)
        let csv = try run([binary, "--histogram", "n", "--bins", "4", "--output", "csv", file.path])
        #expect(csv.status == 0)
        #expect(csv.text == "low,high,count,percent\n-40,-20,7,17.07\n-20,0,7,17.07\n0,20,13,31.71\n20,40,13,31.71\n", "\(csv.text)")
        #expect(csv.stderr == "csvfreeze: 1 not numbers: in no bin\n")
        let same = try run([binary, "--frequency", "n", "--bins", "4", "--output", "csv", file.path])
        #expect(same.text == csv.text)
        let dates = try run([binary, "--histogram", "d", "--bins", "3", "--output", "csv", file.path])
        #expect(dates.text == "low,high,count,percent\n2024-01-01,2024-04-01,15,36.59\n2024-04-01,2024-07-01,13,31.71\n"
                + "2024-07-01,2024-10-01,12,29.27\n", "\(dates.text)")
        #expect(dates.stderr == "csvfreeze: 1 empty: in no bin\n")
        let text = try run([binary, "--histogram", "t", file.path])
        #expect(text.status == 2 && text.stderr.contains("the column holds text"))
        // --frequency --bins on text says what --frequency does without --bins.
        let counted = try run([binary, "--frequency", "t", "--bins", "3", file.path])
        #expect(counted.status == 2 && counted.stderr.contains("(without --bins, --frequency counts its values)"), "\(counted.stderr)")
        #expect(try run([binary, "--bins", "3", file.path]).status == 64)
        // A blank column, and a header alone, hold no text: no bin, and how many cells are empty.
        let blank = directory.appendingPathComponent("blank.csv")
        try "n,e\n1,\n2,\n3,\n".write(to: blank, atomically: true, encoding: .utf8)
        let empty = try run([binary, "--histogram", "e", "--output", "csv", blank.path])
        #expect(empty.status == 0 && empty.text == "low,high,count,percent\n", "\(empty.text)")
        #expect(empty.stderr == "csvfreeze: no number to bin, 3 empty\n", "\(empty.stderr)")
        let header = directory.appendingPathComponent("header.csv")
        try "n,e\n".write(to: header, atomically: true, encoding: .utf8)
        let alone = try run([binary, "--histogram", "n", "--output", "csv", header.path])
        #expect(alone.status == 0 && alone.text == "low,high,count,percent\n" && !alone.stderr.contains("text"), "\(alone.stderr)")
        // The summary's shape: in a table, not in csv.
        let table = try run([binary, "--summary", file.path])
        #expect(table.text.components(separatedBy: "\n")[0].hasSuffix("shape"))
        let plain = try run([binary, "--summary", "--output", "csv", file.path])
        #expect(plain.text.components(separatedBy: "\n")[0].hasSuffix(",p95"))
    }
}
