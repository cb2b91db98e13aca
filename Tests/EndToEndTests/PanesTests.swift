#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// Frozen panes, bounce, mouse and preamble, in a real terminal.
@Suite("Panes in a terminal", .serialized, .timeLimit(.minutes(30)))
struct PanesTests {
    let binary = shellQuote(Paths.binary)
    let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
    let wide = shellQuote(Paths.sampleData.appendingPathComponent("wide.csv").path)

    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// An X10 mouse report, as tmux-256color's terminfo describes it (`kmous=\E[M`).
    func mouse(_ button: Int, x: Int, y: Int) -> String {
        "\u{1B}[M" + String(UnicodeScalar(UInt8(32 + button))) + String(UnicodeScalar(UInt8(33 + x))) + String(UnicodeScalar(UInt8(33 + y)))
    }

    @Test("a bounce at the top shows for a moment and ends with the header exactly on the first line")
    func bounceAtTop() throws {
        let pane = try TmuxPane("\(binary) \(people)", width: 80, height: 24)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("Up", "Up", "Up")
        // The pull lasts a few frames; a loaded machine may start drawing them late, or
        // read the screen too slowly to catch them: each Up at the top pulls again.
        var nextPull = Date().addingTimeInterval(1)
        var screen = try pane.screen()
        let sawPull = try turn(within: 30, pausing: {}, {
            if Date() > nextPull {
                try pane.send("Up")
                nextPull = Date().addingTimeInterval(1)
            }
            screen = try pane.screen()
        }, until: { isPulled(screen) })
        #expect(sawPull, "the sheet was pulled down for a moment")
        let lines = try pane.waitFor("the header back on top") { $0[0].hasPrefix("   #│id") }
        #expect(lines[1].hasPrefix("   1│"))
    }

    /// The sheet pulled down from the top: a blank first line, the header below it.
    func isPulled(_ lines: [String]) -> Bool {
        lines[0].trimmingCharacters(in: .whitespaces).isEmpty && lines.dropFirst().contains { $0.contains("#│id") }
    }

    @Test("--bounce none never moves the header: Up at the top, again and again, pulls nothing")
    func bounceNone() throws {
        let pane = try TmuxPane("\(binary) --bounce none \(people)", width: 80, height: 24)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        // As bounceAtTop does: an Up every 100 ms, the screen read between them, for 3 s
        // (with --bounce all this sees the pull).
        var pulled: [String]?
        var sent = 0
        _ = try turn(within: 3, pausing: { usleep(20_000) }, {
            let lines = try pane.screen()
            if pulled == nil && isPulled(lines) { pulled = lines }
            sent += 1
            if sent % 5 == 0 { try pane.send(sent % 10 == 0 ? "PageUp" : "Up") }
        }, until: { pulled != nil })
        #expect(pulled == nil, "pulled: \(pulled?.joined(separator: "\n") ?? "")")
        // Every key before this Down was read: the screens above came after them.
        try pane.send("Down")
        let lines = try pane.waitFor("Down, after the keys at the top") { status($0).contains("row 2/3,000") }
        #expect(lines[0].hasPrefix("   #│id"))
    }

    @Test("the wheel over the header band moves columns, not rows; over the data, rows")
    func wheel() throws {
        let pane = try TmuxPane("\(binary) \(wide)", width: 80, height: 12)
        try pane.waitFor("the first screen") { status($0).contains("row 1/500") }
        try pane.send("-l", mouse(65, x: 40, y: 0))
        var lines = try pane.waitFor("columns scrolled") { !$0[0].contains("metric_01 ") }
        #expect(lines[1].hasPrefix("  1│"), "rows did not move")
        #expect(status(lines).contains("row 1/500"))
        try pane.send("-l", mouse(65, x: 40, y: 5))
        lines = try pane.waitFor("rows scrolled") { $0[1].hasPrefix("  4│") }
        // The header labels still sit above their data.
        let header = lines[0]
        let labelColumn = header.distance(from: header.startIndex, to: try #require(header.range(of: "metric_05")).lowerBound)
        let data = lines[1]
        #expect(data.dropFirst(labelColumn).first != " " || data.dropFirst(labelColumn + 8).first != " ")
        try pane.send("-l", mouse(0, x: 30, y: 6))
        try pane.waitFor("a click selects the row") { status($0).contains("row 9/500") }
    }

    @Test("F at a cell keeps the rows above and the columns left of it")
    func freeze() throws {
        let pane = try TmuxPane("\(binary) \(wide)", width: 80, height: 16)
        try pane.waitFor("the first screen") { status($0).contains("row 1/500") }
        try pane.send("Down", "Down", "Right", "Right", "F")
        try pane.waitFor("the freeze") { status($0).contains("froze 3 rows and 2 columns") }
        try pane.send("PageDown", "PageDown", "End")
        let lines = try pane.waitFor("scrolled far") { status($0).contains("col 60/60") }
        #expect(lines[0].hasPrefix("  # key    metric_01│"))
        #expect(lines[1].hasPrefix("  1 K00001"))
        #expect(lines[2].hasPrefix("  2 K00002"))
        #expect(lines[0].contains("metric_59"))
        try pane.send("F")
        try pane.waitFor("unfrozen") { $0[0].hasPrefix("  #│") }
    }

    @Test("--debug-stats: cells created stay about the cells on screen after a long walk")
    func reusePool() throws {
        let pane = try TmuxPane("\(binary) --debug-stats \(wide)", width: 120, height: 30)
        try pane.waitFor("the first screen") { status($0).contains("row 1/500") }
        for _ in 0..<8 {
            try pane.send("PageDown", "PageDown", "PageDown", "End", "PageDown", "Home", "PageDown", "G", "g")
        }
        for _ in 0..<60 { try pane.send("Right") }
        try pane.send("G")
        let lines = try pane.waitFor("the walk's end") { status($0).contains("row 500/500") && status($0).contains("col 60/60") }
        let words = status(lines).split(separator: " ")
        func count(_ name: String) -> Int? {
            guard let index = words.firstIndex(of: Substring(name)), index + 1 < words.count else { return nil }
            return Int(words[index + 1])
        }
        let created = try #require(count("created")), live = try #require(count("live"))
        #expect(live > 100)
        #expect(created <= 2 * live, "created \(created), live \(live)")
    }

    @Test("a preamble scrolls away, then the header pins; it comes back at the top")
    func preamble() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.csv")
        try ("# Quarterly report\n# exported by \"ops\", 2024\n" + (try String(contentsOf: Paths.sampleData.appendingPathComponent("people.csv"), encoding: .utf8)))
            .write(to: file, atomically: true, encoding: .utf8)
        let pane = try TmuxPane("\(binary) \(shellQuote(file.path))", width: 80, height: 20)
        var lines = try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        #expect(lines[0].hasPrefix("# Quarterly report"))
        #expect(lines[1].hasPrefix("# exported by \"ops\", 2024"))
        #expect(lines[2].hasPrefix("   #│id"))
        try pane.send("PageDown")
        lines = try pane.waitFor("the header pinned") { $0[0].hasPrefix("   #│id") }
        try pane.send("PageDown")
        lines = try pane.waitFor("the data scrolled under it") { status($0).contains("row 35/") }
        #expect(lines[0].hasPrefix("   #│id"))
        try pane.send("g")
        try pane.waitFor("the preamble back") { $0[0].hasPrefix("# Quarterly report") }
    }

    @Test("a 1×1 terminal and back: no crash")
    func tiny() throws {
        let pane = try TmuxPane("\(binary) \(people)", width: 80, height: 24)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("Up")
        try pane.resize(width: 1, height: 1)
        try pane.send("Down")
        try pane.resize(width: 2, height: 2)
        try pane.resize(width: 80, height: 24)
        let lines = try pane.waitFor("the grid again") { status($0).contains("row 2/3,000") }
        #expect(lines[0].hasPrefix("   #│id"))
    }

    @Test("an idle viewer uses no CPU: the loop blocks when nothing moves")
    func idle() throws {
        let pane = try TmuxPane("\(binary) \(people) & echo $! > pid; wait $!", width: 80, height: 24)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("Up")   // a bounce, which must come to rest and stop ticking
        let pid = try String(contentsOf: pane.directory.appendingPathComponent("pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        func cpuTicks() throws -> Int {
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            let fields = stat.split(separator: ")").last!.split(separator: " ")
            return Int(fields[11])! + Int(fields[12])!   // utime + stime
        }
        // The bounce's frames may come late on a loaded machine: the viewer must come to
        // rest within the bound, then spend (almost) no CPU over a window of 1.5 s.
        var before = try cpuTicks(), spent = Int.max
        _ = try turn(within: 30, pausing: { usleep(1_500_000) }, {
            let after = try cpuTicks()
            spent = after - before
            before = after
        }, until: { spent <= 1 })
        #expect(spent <= 1, "\(spent) ticks of CPU while idle")
    }
}
