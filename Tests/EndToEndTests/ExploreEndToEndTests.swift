import Foundation
import Testing
import TestSupport

/// Finding and reading, in a real terminal.
@Suite("Exploring in a terminal", .serialized, .timeLimit(.minutes(30)))
struct ExploreEndToEndTests {
    let binary = shellQuote(Paths.binary)
    let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    @Test("--echo cell prints exactly the chosen cell on stdout; the screen went to the terminal")
    func echoCell() throws {
        let pane = try TmuxPane("v=$(\(binary) --echo cell \(people)); printf '[%s]\\n' \"$v\"", width: 100, height: 20)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send(":", "3", "Enter", "Right", "Enter")
        let lines = try pane.waitFor("the printed cell") { $0.contains { $0.hasPrefix("[") && $0.hasSuffix("]") } }
        #expect(lines.contains("[Ólafur]"))
    }

    @Test("--echo row prints the row as CSV; --echo column every value of the column")
    func echoRowAndColumn() throws {
        var pane = try TmuxPane("\(binary) --echo row \(people) > out.txt", width: 100, height: 20)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("Down", "Enter")
        _ = try pane.waitForExit()
        var output = try String(contentsOf: pane.directory.appendingPathComponent("out.txt"), encoding: .utf8)
        // The printed row, read back as CSV, is the file's second data row, cell for cell.
        let printed = try run([Paths.binary, "--output", "json", "--no-header"], stdin: Data(output.utf8))
        let file = try run([Paths.binary, "--output", "json", Paths.sampleData.appendingPathComponent("people.csv").path])
        let printedRows = try #require(try JSONSerialization.jsonObject(with: printed.stdout) as? [[String]])
        let fileRows = try #require(try JSONSerialization.jsonObject(with: file.stdout) as? [[String]])
        #expect(printedRows == [fileRows[2]])
        #expect(output.hasPrefix("2,"))
        pane = try TmuxPane("\(binary) --echo column \(people) > out.txt", width: 100, height: 20)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("Enter")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        output = try String(contentsOf: pane.directory.appendingPathComponent("out.txt"), encoding: .utf8)
        let values = output.split(separator: "\n")
        #expect(values.count == 3000)
        #expect(values.first == "1" && values.last == "3000")
    }

    @Test("--echo column after a cell of megabytes: one value a record, none lost or shifted")
    func echoColumnAfterHugeCell() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("huge.csv")
        let huge = String(repeating: "x", count: 3_000_000)
        try Data("id,text,n\n1,\(huge),10\n2,b,20\n".utf8).write(to: file)
        let pane = try TmuxPane("\(binary) --echo column \(shellQuote(file.path)) > out.txt", width: 100, height: 10)
        try pane.waitFor("the first screen") { status($0).contains("row 1/2") }
        try pane.send("Right", "Right", "Enter")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        let output = try String(contentsOf: pane.directory.appendingPathComponent("out.txt"), encoding: .utf8)
        #expect(output == "10\n20\n")
    }

    @Test("y puts the cell on the clipboard with OSC 52 (tmux takes it into its buffer)")
    func copy() throws {
        let pane = try TmuxPane("\(binary) \(people)", width: 100, height: 20)
        try run(["/usr/bin/env", "tmux", "-L", pane.socket, "set", "-s", "set-clipboard", "on"])
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send("Right", "y")
        try pane.waitFor("the confirmation") { status($0).contains("copied the cell") }
        var buffer = ""
        _ = try turn(within: 30, pausing: { usleep(20_000) }, {
            buffer = try run(["/usr/bin/env", "tmux", "-L", pane.socket, "show-buffer"]).text
        }, until: { buffer == "Ingrid" })
        #expect(buffer == "Ingrid")
    }

    @Test("/ finds a value far down a large file, with progress, and n wraps around")
    func searchLargeFile() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("large.csv")
        var text = "id,value,note\n"
        for index in 1...300_000 { text += "\(index),\(index * 7),\(index == 250_000 ? "the needle" : "hay")\n" }
        try text.write(to: file, atomically: true, encoding: .utf8)
        let pane = try TmuxPane("\(binary) \(shellQuote(file.path))", width: 100, height: 20)
        try pane.waitFor("the index") { status($0).contains("row 1/300,000") && !status($0).contains("+") }
        try pane.send("/")
        try pane.send("-l", "needle")
        try pane.send("Enter")
        var lines = try pane.waitFor("the match") { status($0).contains("row 250,000/") }
        #expect(lines.contains { $0.contains("250000│250000") })
        try pane.send("n")
        lines = try pane.waitFor("the wrap") { status($0).contains("wrapped around to the top") }
        #expect(status(lines).contains("row 250,000/"))
        try pane.send("?")
        lines = try pane.waitFor("the help") { $0[0].contains("q: Quit") }
        try pane.send("q", "v")
        lines = try pane.waitFor("the record view") { $0[0].contains("record 250,000 of 300,000") }
        try pane.send("Escape", "Enter")
        lines = try pane.waitFor("the inspector") { $0.contains { $0.contains("row 250,000 · value ·") || $0.contains("row 250,000 · ") } }
    }
}
