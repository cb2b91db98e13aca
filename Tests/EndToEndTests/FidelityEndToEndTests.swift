import Foundation
import Testing

/// Hostile input and odd inputs, with the real binary.
@Suite("Fidelity end to end", .serialized, .timeLimit(.minutes(30)))
struct FidelityEndToEndTests {
    let binary = shellQuote(Paths.binary)
    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> (URL, URL) {
        let directory = try Paths.temporaryDirectory()
        let file = directory.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return (directory, file)
    }

    @Test("escape sequences in cells show as symbols; the terminal's title and colors do not change")
    func escapeSequences() throws {
        let csv = "name,value\n\"\u{1B}[31mred\u{1B}[0m\",\"\u{1B}]0;PWNED\u{07}title\"\nbell,\"ding\u{07}\"\n"
        let (directory, file) = try temporaryFile("hostile.csv", Array(csv.utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let pane = try TmuxPane("printf '\\033]2;clean\\007'; \(binary) \(shellQuote(file.path))", width: 80, height: 10)
        let lines = try pane.waitFor("the first screen") { status($0).contains("row 1/2") }
        #expect(lines[1].contains("␛[31mred␛[0m"))
        #expect(lines[1].contains("␛]0;PWNED␇title"))
        #expect(lines[2].contains("ding␇"))
        let title = try run(["/usr/bin/env", "tmux", "-L", pane.socket, "display", "-p", "-t", "0", "#{pane_title}"]).text
        #expect(title.trimmingCharacters(in: .whitespacesAndNewlines) == "clean")
        // No red foreground anywhere on the screen: the data's ESC [31m never reached it.
        let colored = try run(["/usr/bin/env", "tmux", "-L", pane.socket, "capture-pane", "-p", "-e", "-t", "0"]).text
        #expect(!colored.contains("\u{1B}[31m"))
        #expect(!colored.contains("PWNED\u{07}"))
    }

    @Test("every conformance file survives --output csv and back unchanged")
    func roundTrip() throws {
        var files: [URL] = []
        for folder in ["csv-spectrum/csvs", "w3c-csvw"] {
            let directory = Paths.conformance.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".csv") {
                files.append(directory.appendingPathComponent(name))
            }
        }
        #expect(files.count >= 20)
        for file in files {
            let json = try run([Paths.binary, "--output", "json", file.path])
            let csv = try run([Paths.binary, "--output", "csv", file.path])
            let again = try run([Paths.binary, "--output", "json", "-d", ","], stdin: csv.stdout)
            #expect(json.status == 0 && csv.status == 0 && again.status == 0)
            #expect(again.text == json.text, "\(file.lastPathComponent)")
        }
    }

    @Test("the W3C CSVW tables through --output json", arguments: ["test001", "test002", "test003", "test005", "test006", "test007", "test009", "test010"])
    func csvw(name: String) throws {
        let directory = Paths.conformance.appendingPathComponent("w3c-csvw")
        let result = try run([Paths.binary, "--output", "json", directory.appendingPathComponent("\(name).csv").path])
        let rows = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String]])
        let expected = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: directory.appendingPathComponent("\(name).json"))) as? [String: Any])
        let tables = try #require(expected["tables"] as? [[String: Any]])
        let expectedRows = try #require(tables.first?["row"] as? [[String: Any]])
        #expect(rows.count - 1 == expectedRows.count)
        let header = rows[0]
        for (index, expectedRow) in expectedRows.enumerated() {
            let describes = try #require((expectedRow["describes"] as? [[String: Any]])?.first)
            for (column, key) in header.enumerated() {
                let value = column < rows[index + 1].count ? rows[index + 1][column] : ""
                if let expectedValue = describes[key] as? String { #expect(value == expectedValue, "\(name) \(key)") }
            }
        }
    }

    @Test("a FIFO works like a pipe")
    func fifo() throws {
        let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
        let pane = try TmuxPane("mkfifo data.fifo && (cat \(people) > data.fifo &) && \(binary) data.fifo")
        try pane.waitFor("all rows") { status($0).contains("row 1/3,000") && !status($0).contains("+") }
    }

    @Test("TERM unset: one clear line and exit 2")
    func termUnset() throws {
        let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
        let pane = try TmuxPane("env -u TERM \(binary) \(people)")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=2 ") == true)
        #expect(try pane.screen().contains { $0.hasPrefix("csvfreeze: TERM is not set") })
    }

    @Test("no controlling terminal to read keys from: one clear line and exit 2")
    func noControllingTerminal() throws {
        let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
        let pane = try TmuxPane("setsid -w \(binary) \(people)")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=2 ") == true)
        #expect(try pane.screen().contains { $0.hasPrefix("csvfreeze: no terminal to read keys from") })
    }

    @Test("--quote reads another quote character; a bad one is a usage error")
    func quoteOption() throws {
        let result = try run([Paths.binary, "--quote", "'", "--output", "json"], stdin: Data("a,b\n'x,y',z\n".utf8))
        #expect(result.text == "[\n  [\"a\",\"b\"],\n  [\"x,y\",\"z\"]\n]\n")
        let bad = try run([Paths.binary, "--quote", "ab", "--output", "csv", "/dev/null"])
        #expect(bad.status == 64)
    }
}
