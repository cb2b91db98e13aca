import Foundation
import Testing

/// The real binary in a real terminal (tmux), driven by keys, read from the screen.
@Suite("In a terminal", .serialized, .timeLimit(.minutes(30)))
struct InteractiveTests {
    let binary = shellQuote(Paths.binary)
    let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
    let wide = shellQuote(Paths.sampleData.appendingPathComponent("wide.csv").path)

    /// The status line: the last non-empty line of the screen.
    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    @Test("the header stays the first line after paging, and row numbers match the data")
    func headerStays() throws {
        let pane = try TmuxPane("\(binary) \(people)", width: 100, height: 30)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("PageDown", "PageDown", "Down", "PageDown")
        let lines = try pane.waitFor("three pages down") { status($0).contains("row 86/") }
        #expect(lines[0].contains("#│id") && lines[0].contains("first_name"))
        // people.csv's id is its row number: the left band and the data agree on every line.
        for line in lines[1..<28] {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "│" })
            #expect(fields.count > 2 && fields[0] == fields[1], "\(line)")
        }
    }

    @Test("G shows the last row, g the first; q exits 0 and restores the terminal")
    func lastRowAndQuit() throws {
        let pane = try TmuxPane("\(binary) \(people)", width: 80, height: 24)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("G")
        var lines = try pane.waitFor("the last row") { status($0).contains("row 3,000/3,000") }
        #expect(lines[22].hasPrefix("3000│3000") || lines[22].contains("3000│3000"))
        try pane.send("g")
        lines = try pane.waitFor("the first row") { status($0).contains("row 1/3,000") }
        #expect(lines[1].contains("1│   1") || lines[1].hasPrefix("   1│"))
        try pane.send("q")
        // The shell's line modes are back: the terminal was restored.
        #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]")
    }

    @Test("a frozen column stays while scrolling right")
    func frozenColumn() throws {
        let pane = try TmuxPane("\(binary) -c 1 \(wide)", width: 80, height: 20)
        try pane.waitFor("the first screen") { status($0).contains("row 1/500") }
        for _ in 0..<30 { try pane.send("Right") }
        let lines = try pane.waitFor("column 31") { status($0).contains("col 31/60") }
        #expect(lines[0].hasPrefix("  # key   │"))
        #expect(lines[1].hasPrefix("  1 K00001│"))
        #expect(lines[0].contains("metric_30"))
        #expect(!lines[0].contains("metric_01"))
    }

    @Test("a pipe works, and keys still come from the keyboard")
    func pipe() throws {
        let pane = try TmuxPane("cat \(people) | \(binary)", width: 80, height: 24)
        try pane.waitFor("all rows from stdin") { status($0).contains("stdin") && status($0).contains("row 1/3,000") }
        try pane.send("G")
        try pane.waitFor("the last row") { status($0).contains("row 3,000/3,000") }
        try pane.send("q")
        #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]")
    }

    @Test("rows from a slow producer show while it is still writing")
    func slowProducer() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("simple.csv")
        try ("id,word\n" + (1...200).map { "\($0),w\($0)\n" }.joined()).write(to: file, atomically: true, encoding: .utf8)
        let path = shellQuote(file.path)
        let pane = try TmuxPane("(head -5 \(path); sleep 2; tail -5 \(path)) | \(binary)", width: 80, height: 24)
        let early = try pane.waitFor("the first rows") { status($0).contains("row 1/4+") }
        #expect(early[1].hasPrefix("  1│ 1 w1"))
        #expect(early[4].hasPrefix("  4│ 4 w4"))
        try pane.waitFor("the rest, after the pause") { status($0).contains("row 1/9") && !status($0).contains("+") }
        try pane.send("G")
        let lines = try pane.waitFor("the last row") { status($0).contains("row 9/9") }
        #expect(lines[9].hasPrefix("  9│200 w200"))
    }

    @Test("Ctrl-C quits and restores the terminal")
    func controlC() throws {
        let pane = try TmuxPane("\(binary) \(people)")
        try pane.waitFor("the first screen") { status($0).contains("row 1/") }
        try pane.send("C-c")
        #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]")
    }

    @Test("SIGTERM ends the viewer and restores the terminal")
    func terminate() throws {
        let pane = try TmuxPane("\(binary) \(people) & echo $! > pid; wait $!")
        try pane.waitFor("the first screen") { status($0).contains("row 1/") }
        let pid = try String(contentsOf: pane.directory.appendingPathComponent("pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try run(["/bin/kill", "-TERM", pid])
        #expect(try pane.waitForExit() == "[exit=143 modes=icanon echo ]")
    }

    @Test("a resize redraws at the new size")
    func resize() throws {
        let pane = try TmuxPane("\(binary) \(people)", width: 100, height: 30)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("PageDown")
        try pane.resize(width: 50, height: 12)
        // tmux keeps the bottom of the old screen when it shrinks, old status line and all:
        // the new frame is the one with the header on top again.
        let lines = try pane.waitFor("the smaller screen") {
            $0.count >= 12 && $0[11].contains("row 29/") && $0[0].contains("#│id")
        }
        #expect(lines[0].contains("#│id"))
        #expect(lines[1].hasPrefix("  29│  29 "))
        try pane.resize(width: 6, height: 2)
        try pane.waitFor("the too-small notice") { $0[0].hasPrefix("termin") }
        try pane.resize(width: 80, height: 24)
        try pane.waitFor("the grid again") { status($0).contains("row 29/") }
        #expect(try pane.screen().allSatisfy { !$0.hasPrefix("[exit=") })
    }

    @Test("no FILE with a terminal on stdin is one clear line and exit 1")
    func noInput() throws {
        let pane = try TmuxPane("\(binary)")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=1 ") == true)
        let lines = try pane.screen().filter { !$0.isEmpty }
        #expect(lines.first?.hasPrefix("csvfreeze: no input") == true)
        #expect(lines.count == 2, "one line of error, then the exit marker")
    }

    @Test("TERM=dumb is one clear line and exit 2")
    func dumbTerminal() throws {
        let pane = try TmuxPane("TERM=dumb \(binary) \(people)")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=2 ") == true)
        #expect(try pane.screen().contains { $0.hasPrefix("csvfreeze: TERM=dumb") })
    }

    @Test("R reads a changed file again, keeping the cursor's place")
    func reload() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("changing.csv")
        try "id,v\n1,a\n2,b\n3,c\n".write(to: file, atomically: true, encoding: .utf8)
        let pane = try TmuxPane("\(binary) \(shellQuote(file.path))", width: 60, height: 10)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3") }
        try pane.send("Down", "Right")
        try "id,v\n1,A\n2,B\n3,C\n4,D\n".write(to: file, atomically: true, encoding: .utf8)
        try pane.send("R")
        let lines = try pane.waitFor("the new content") { status($0).contains("row 2/4") }
        #expect(lines[2].hasPrefix("  2│ 2 B"))
        #expect(status(lines).contains("col 2/2"))
    }
}
