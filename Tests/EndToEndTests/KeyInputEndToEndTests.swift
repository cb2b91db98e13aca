#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Keys as a terminal sends them: in bursts, split by a laggy link, pasted; under several
/// terminal types.
@Suite("Keys in a real terminal", .serialized, .timeLimit(.minutes(30)))
struct KeyInputEndToEndTests {
    static let terminals = ["xterm-256color", "screen", "tmux-256color", "vt100"]

    /// A file of 300 rows whose `name` is `x…` on every 10th row.
    func sample(in pane: TmuxPane) throws -> String {
        var text = "id,name,value\n"
        for index in 1...300 { text += "\(index),\(index % 10 == 0 ? "x" : "a")\(index),\((index * 7919) % 343)\n" }
        let path = pane.directory.appendingPathComponent("k.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func pane(type: String, arguments: String = "") throws -> TmuxPane {
        // The file is written after the pane starts: the command waits for it.
        let pane = try TmuxPane("while [ ! -f k.csv ]; do sleep 0.05; done; TERM=\(type) \(shellQuote(Paths.binary)) \(arguments) k.csv",
                                width: 60, height: 12)
        _ = try sample(in: pane)
        try pane.waitFor("the table") { $0.last { !$0.isEmpty }?.contains("row 1/300") == true }
        return pane
    }

    func tmux(_ pane: TmuxPane, _ arguments: String...) throws -> String {
        try run(["/usr/bin/env", "tmux", "-L", pane.socket] + arguments).text
    }

    func status(_ lines: [String]) -> String { lines.last { !$0.isEmpty } ?? "" }

    @Test("nnn and n$ typed in one burst: three matches on, then the match's last column", arguments: terminals)
    func burst(type: String) throws {
        let pane = try pane(type: type)
        try pane.send("/^x", "Enter")
        try pane.waitFor("the first match") { status($0).contains("row 10/300") }
        try pane.send("nnn")
        try pane.waitFor("three matches on") { status($0).contains("row 40/300") && status($0).contains("col 2/3") }
        try pane.send("n$")
        try pane.waitFor("n then $") { status($0).contains("row 50/300") && status($0).contains("col 3/3") }
        try pane.send("3n5g")
        try pane.waitFor("3n then 5g") { status($0).contains("row 5/300") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("Esc, [ and B sent apart, as a laggy link does: Down, never a sort", arguments: terminals)
    func slowSequence(type: String) throws {
        let pane = try pane(type: type, arguments: "--esc-delay 150")
        try pane.send("Escape")
        usleep(60_000)   // the link's lag between two bytes of one key
        try pane.send("[")
        usleep(60_000)
        try pane.send("B")
        let lines = try pane.waitFor("Down") { status($0).contains("row 2/300") }
        #expect(!status(lines).contains("sorted"), "\(status(lines))")
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }

    @Test("a paste does nothing in the grid and is typed at a prompt, where the terminal's cursor shows", arguments: terminals)
    func paste(type: String) throws {
        let pane = try pane(type: type)
        _ = try run(["/bin/sh", "-c", "printf 'Gq[jjj' | tmux -L \(pane.socket) load-buffer -"])
        _ = try tmux(pane, "paste-buffer", "-p", "-t", "0")
        try pane.waitFor("the paste refused") { status($0).contains("a paste does nothing") }
        if type != "vt100" {   // a vt100 cannot hide its cursor
            #expect(try tmux(pane, "display", "-p", "-t", "0", "#{cursor_flag}").hasPrefix("0"), "no cursor in the grid")
        }
        try pane.send(":")
        _ = try run(["/bin/sh", "-c", "printf '250\\n' | tmux -L \(pane.socket) load-buffer -"])
        _ = try tmux(pane, "paste-buffer", "-p", "-t", "0")
        try pane.waitFor("the pasted line") { status($0).hasPrefix(":250") }
        let cursor = try tmux(pane, "display", "-p", "-t", "0", "#{cursor_x},#{cursor_y},#{cursor_flag}")
        #expect(cursor.hasPrefix("4,11,1"), "the cursor after :250: \(cursor)")
        try pane.send("Enter")
        try pane.waitFor("row 250") { status($0).contains("row 250/300") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }
}
