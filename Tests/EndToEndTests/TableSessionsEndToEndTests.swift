import Foundation
import Testing

/// Sessions of several tables opened together and of a followed file: each file keeps its
/// own, the tables which was shown and whether they were stacked.
@Suite("Sessions of several tables and of a followed file", .serialized, .timeLimit(.minutes(30)))
struct TableSessionsEndToEndTests {
    let binary = shellQuote(Paths.binary)
    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// A folder with `a.csv`, `b.csv` and `c.csv` (50, 40 and 30 rows) and a state folder.
    func setUp() throws -> (directory: String, state: String) {
        let directory = try Paths.temporaryDirectory()
        for (name, rows) in [("a", 50), ("b", 40), ("c", 30)] {
            var text = "id,name,price\n"
            for index in 1...rows { text += "\(index),\(name)\(index % 7),\((index * 7919) % 1000)\n" }
            try text.write(to: directory.appendingPathComponent(name + ".csv"), atomically: true, encoding: .utf8)
        }
        return (directory.path, directory.appendingPathComponent("state").path)
    }

    func open(_ directory: String, state: String, _ arguments: String, width: Int = 120) throws -> TmuxPane {
        try TmuxPane("cd \(shellQuote(directory)) && XDG_STATE_HOME=\(shellQuote(state)) \(binary) \(arguments)", width: width, height: 16)
    }

    @Test("Several tables: each comes back as it was left, the one shown is shown; a changed file opens fresh, the others restore")
    func severalTables() throws {
        let (directory, state) = try setUp()
        let pane = try open(directory, state: state, "a.csv b.csv c.csv")
        try pane.waitFor("the first table") { status($0).contains("a.csv 1/3") && status($0).contains("row 1/50") }
        try pane.send("l", "l", "]")
        try pane.waitFor("a sorted") { status($0).contains("sorted by price ↓") }
        try pane.send("}")
        try pane.waitFor("b") { status($0).contains("b.csv 2/3") && status($0).contains("row 1/40") }
        try pane.send("m", "j", "m", "3", "j")
        let before = try pane.waitFor("b: two marks, row 5") { status($0).contains("row 5/40") && status($0).contains("2 marks") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        let kept = try FileManager.default.contentsOfDirectory(atPath: state + "/csvfreeze")
        // a's and b's own sessions, and the tables': c was never shown, so keeps none (a's
        // sort's order is in a data file of its own, named after its session).
        #expect(kept.filter { $0.hasPrefix("session-") && !$0.contains(".") }.count == 3, "\(kept)")
        #expect(kept.filter { $0.hasPrefix("session-") && $0.contains(".") }.count == 1, "\(kept)")

        let again = try open(directory, state: state, "a.csv b.csv c.csv")
        var lines = try again.waitFor("b shown, restored") {
            status($0).contains("b.csv 2/3") && status($0).contains("restored: 2 marks")
        }
        lines = try again.waitFor("b's marks") { $0.count > 3 && $0[1].hasPrefix("•") && $0[2].hasPrefix("•") }
        #expect(Array(lines[0..<6]) == Array(before[0..<6]), "\(lines.joined(separator: "\n"))")
        try again.send("j")
        try again.waitFor("b's cursor where it was") { status($0).contains("row 6/40") }
        try again.send("{")
        try again.waitFor("a, sorted again") { status($0).contains("a.csv 1/3") && status($0).contains("restored: sorted by price") }
        try again.send("q")
        _ = try again.waitForExit()

        // a changed in place (the same size). It was shown when quit: it is shown, fresh,
        // and says so; b comes back as it was.
        let handle = try #require(FileHandle(forWritingAtPath: directory + "/a.csv"))
        handle.seek(toFileOffset: 20)
        handle.write(Data("9".utf8))
        try handle.close()
        let changed = try open(directory, state: state, "a.csv b.csv c.csv")
        lines = try changed.waitFor("a refused") {
            status($0).contains("a.csv 1/3") && status($0).contains("file changed since last time: view not restored")
        }
        #expect(!status(lines).contains("sorted"))
        try changed.send("}")
        lines = try changed.waitFor("b restored") { status($0).contains("b.csv 2/3") && status($0).contains("restored: 2 marks") }
        lines = try changed.waitFor("b's marks") { $0.count > 3 && $0[1].hasPrefix("•") && $0[2].hasPrefix("•") }
        try changed.send("q")
        _ = try changed.waitForExit()

        // Other inputs (another set of tables): b's own session still comes back, as alone.
        let alone = try open(directory, state: state, "b.csv")
        try alone.waitFor("b alone, restored") { status($0).contains("restored: 2 marks") }
        try alone.send("q")
        _ = try alone.waitForExit()
    }

    @Test("Stacked when quit: stacked again on reopening, --fresh not; standard input among them keeps nothing")
    func stacked() throws {
        let (directory, state) = try setUp()
        let pane = try open(directory, state: state, "a.csv b.csv")
        try pane.waitFor("the first table") { status($0).contains("a.csv 1/2") }
        try pane.send("S")
        try pane.waitFor("stacked") { status($0).contains("stacked") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        let again = try open(directory, state: state, "a.csv b.csv")
        try again.waitFor("stacked again") { status($0).contains("a.csv 1/2 stacked") && status($0).contains("row 1/50") }
        try again.send("q")
        _ = try again.waitForExit()
        let fresh = try open(directory, state: state, "--fresh a.csv b.csv")
        let lines = try fresh.waitFor("not stacked") { status($0).contains("a.csv 1/2") }
        #expect(!status(lines).contains("stacked"))
        try fresh.send("q")
        _ = try fresh.waitForExit()

        let other = try Paths.temporaryDirectory().path
        let piped = try TmuxPane("cd \(shellQuote(directory)) && cat a.csv | XDG_STATE_HOME=\(shellQuote(other)) \(binary) - b.csv",
                                 width: 120, height: 16)
        try piped.waitFor("standard input") { status($0).contains("stdin 1/2") }
        try piped.send("m", "}")
        try piped.waitFor("b") { status($0).contains("b.csv 2/2") }
        try piped.send("m", "q")
        _ = try piped.waitForExit()
        // b's own session only: nothing of standard input, nor of the two together.
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: other + "/csvfreeze")) ?? []
        #expect(kept.filter { $0.hasPrefix("session-") }.count == 1, "\(kept)")
    }

    /// A log of `rows` rows of about 100 bytes: several index checkpoints (64 KiB apart).
    func log(_ rows: ClosedRange<Int>) -> String {
        rows.map { "\($0),2026-11-29T10:00:\(String(format: "%02d", $0 % 60)),\(String(repeating: "x", count: 70)),\($0 % 9)\n" }.joined()
    }

    @Test("--follow: the view and the index of the log come back, the rows added since are read on; at the end, it follows the end")
    func followed() throws {
        let directory = try Paths.temporaryDirectory().path
        let state = directory + "/state"
        let file = directory + "/app.csv"
        try ("n,time,text,level\n" + log(1...3000)).write(toFile: file, atomically: true, encoding: .utf8)
        let pane = try open(directory, state: state, "--follow app.csv")
        try pane.waitFor("following") { status($0).contains("/3,000") && status($0).contains("following") }
        try pane.send("g", "m", "9", "j")
        try pane.waitFor("a mark, row 10") { status($0).contains("row 10/3,000") && status($0).contains("1 mark") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        let appender = try #require(FileHandle(forWritingAtPath: file))
        appender.seekToEndOfFile()
        appender.write(Data(log(3001...3100).utf8))
        try appender.close()

        let again = try open(directory, state: state, "--follow app.csv", width: 160)
        var lines = try again.waitFor("restored, every row") {
            status($0).contains("row 10/3,100") && $0.contains { $0.contains("restored: 1 mark (followed") }
        }
        #expect(lines.contains { $0.hasPrefix("•") }, "\(lines.joined(separator: "\n"))")
        // At the end when quit: at the end again, and following it.
        try again.send("G")
        try again.waitFor("the end") { status($0).contains("row 3,100/3,100") }
        try again.send("q")
        _ = try again.waitForExit()
        let more = try #require(FileHandle(forWritingAtPath: file))
        more.seekToEndOfFile()
        more.write(Data(log(3101...3150).utf8))
        try more.close()
        let tail = try open(directory, state: state, "--follow app.csv", width: 160)
        lines = try tail.waitFor("at the new end") { status($0).contains("row 3,150/3,150") }
        let appended = try #require(FileHandle(forWritingAtPath: file))
        appended.seekToEndOfFile()
        appended.write(Data(log(3151...3160).utf8))
        try appended.close()
        try tail.waitFor("following the end") { status($0).contains("row 3,160/3,160") }
        try tail.send("q")
        _ = try tail.waitForExit()
    }
}
