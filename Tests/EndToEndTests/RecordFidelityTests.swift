import Foundation
import Testing

/// Records that other readers must read back as they were: empty single-field records,
/// very wide records, duplicate header names and cells longer than the parser keeps.
@Suite("Records kept whole", .timeLimit(.minutes(30)))
struct RecordFidelityTests {
    let binary = Paths.binary

    @Test("a record of one empty field is written as \"\" in csv and tsv, last or not, with or without a final newline")
    func emptySingleField() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(name: String, input: String, output: String)] = [
            ("last.csv", "a\n\"\"", "a\n\"\""),
            ("lastnl.csv", "a\n\"\"\n", "a\n\"\"\n"),
            ("middle.csv", "a\n\nb\n", "a\n\"\"\nb\n"),
            ("crlf.csv", "a\r\n\"\"\r\nb\r\n", "a\r\n\"\"\r\nb\r\n"),
            ("middle.tsv", "a\tb\n\n1\t2\n", "a\tb\n\"\"\n1\t2\n"),
            ("last.tsv", "a\n\"\"", "a\n\"\""),
        ]
        for item in cases {
            let url = directory.appendingPathComponent(item.name)
            try Data(item.input.utf8).write(to: url)
            let format = item.name.hasSuffix(".tsv") ? "tsv" : "csv"
            let written = try run([binary, "--output", format, url.path])
            #expect(written.status == 0)
            #expect(written.text == item.output, "\(item.name)")
            // Read back, the records are the same.
            let back = try run([binary, "--output", "json", "-d", format == "tsv" ? "tab" : ","], stdin: written.stdout)
            let original = try run([binary, "--output", "json", url.path])
            #expect(back.text == original.text, "\(item.name) read back")
        }
        // A sorted or filtered output goes through the same writer.
        let url = directory.appendingPathComponent("sorted.csv")
        try Data("a\n2\n\n1\n".utf8).write(to: url)
        #expect(try run([binary, "--output", "csv", "--sort", "a", url.path]).text == "a\n1\n2\n\"\"\n")
    }

    @Test("made-unique names never collide: JSON keys, --summary and --frequency agree")
    func uniqueNames() throws {
        let input = Data("a,a_2,a,,column 5\n1,2,3,4,5,6\n".utf8)
        let jsonl = try run([binary, "--output", "jsonl"], stdin: input)
        #expect(jsonl.text == "{\"a\":\"1\",\"a_2\":\"2\",\"a_3\":\"3\",\"column 4\":\"4\",\"column 5\":\"5\",\"column 6\":\"6\"}\n")
        let object = try JSONSerialization.jsonObject(with: jsonl.stdout) as? [String: String]
        #expect(object?.count == 6, "no value lost to a repeated key")
        let summary = try run([binary, "--summary", "--output", "csv"], stdin: input)
        let names = summary.text.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[0] }
        #expect(names == ["a", "a_2", "a_3", "column 4", "column 5", "column 6"])
        let frequency = try run([binary, "--frequency", "a_3", "--output", "csv"], stdin: input)
        #expect(frequency.status == 0)
        #expect(frequency.text == "value,count,percent\n3,1,100.00\n")
        let sorted = try run([binary, "--sort", "a_3", "--columns", "a_3,column 6", "--output", "csv"], stdin: input)
        #expect(sorted.text == "a,\n3,6\n")
    }

    @Test("a record of 70,000 fields is kept whole by every output, --frequency and the screen")
    func wideRecords() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("wide.csv")
        let count = 70_000
        let text = (0..<count).map { "c\($0)" }.joined(separator: ",") + "\n" + (0..<count).map { "\($0)" }.joined(separator: ",") + "\n"
        try Data(text.utf8).write(to: url)
        let csv = try run([binary, "--output", "csv", url.path])
        #expect(csv.status == 0)
        #expect(csv.stdout == Data(text.utf8))
        let jsonl = try run([binary, "--output", "jsonl", url.path])
        let object = try JSONSerialization.jsonObject(with: jsonl.stdout) as? [String: String]
        #expect(object?.count == count)
        #expect(object?["c69999"] == "69999")
        let json = try run([binary, "--output", "json", url.path])
        let arrays = try JSONSerialization.jsonObject(with: json.stdout) as? [[String]]
        #expect(arrays?.map(\.count) == [count, count])
        let frequency = try run([binary, "--frequency", "c69999", "--output", "csv", url.path])
        #expect(frequency.status == 0)
        #expect(frequency.text == "value,count,percent\n69999,1,100.00\n")
        let columns = try run([binary, "--columns", "c69999,c1", "--output", "csv", url.path])
        #expect(columns.text == "c69999,c1\n69999,1\n")
        let pane = try TmuxPane("\(shellQuote(binary)) \(shellQuote(url.path))", width: 60, height: 8)
        _ = try pane.waitFor("the first screen") { $0.contains { $0.contains("row 1/1") } }
        try pane.send(":", "#70000", "Enter")
        let screen = try pane.waitFor("column 70,000") { $0.contains { $0.contains("col 70,000/70,000") } }
        #expect(screen.contains { $0.contains("69999") }, "the last column's cell shows: \(screen)")
    }

    @Test("past 1,048,576 fields, streamed and sorted output keep every field and the rest refuse in one line")
    func tooWideRecords() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("huge.csv")
        let count = 1_048_576 + 10
        let text = "a,b\n" + (0..<count).map { String($0 % 10) }.joined(separator: ",") + "\n1,2\n"
        try Data(text.utf8).write(to: url)
        let csv = try run([binary, "--output", "csv", url.path])
        #expect(csv.status == 0)
        #expect(csv.stdout == Data(text.utf8), "every field written")
        let tsv = try run([binary, "--output", "tsv", url.path])
        #expect(tsv.text.split(separator: "\n")[1].split(separator: "\t", omittingEmptySubsequences: false).count == count)
        // A sort writes the record from its own bytes, every field of it.
        let sorted = try run([binary, "--sort", "a", "--output", "csv", url.path])
        #expect(sorted.status == 0)
        #expect(sorted.stdout == Data(text.utf8), "every field written, in the sort's order")
        for arguments in [["--summary"], ["--frequency", "column 1048577"]] {
            let refused = try run([binary] + arguments + ["--output", "csv", url.path])
            #expect(refused.status == 1, "\(arguments)")
            #expect(refused.stderr.hasPrefix("csvfreeze: \(url.path): row 1 has more than 1048576 fields"), "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        let pane = try TmuxPane("\(shellQuote(binary)) \(shellQuote(url.path))", width: 120, height: 8)
        let screen = try pane.waitFor("the note") { $0.contains { $0.contains("more than 1,048,576 fields") } }
        #expect(screen.contains { $0.contains("row 1 has more than 1,048,576 fields") })
    }

    @Test("a cell of 3 MB is matched whole by a filter, shown whole by the inspector and printed whole by --echo cell and --echo row, from a file and a pipe",
          arguments: [false, true])
    func longCell(throughPipe: Bool) throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("long.csv")
        let value = String(repeating: "0123456789\"", count: 300_000) + "THE END"
        let text = "id,text,after\n1,\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\",x\n2,short,y\n"
        try Data(text.utf8).write(to: url)
        let out = directory.appendingPathComponent("out").path
        let input = throughPipe ? "cat \(shellQuote(url.path)) | \(shellQuote(binary))" : "\(shellQuote(binary)) \(shellQuote(url.path))"
        if !throughPipe {
            // A filter matches the whole cell, past its first MiB.
            for arguments in [["--filter", "THE END"], ["--filter-column", "text=END$"]] {
                let filtered = try run([binary] + arguments + ["--output", "csv", "--columns", "id,text", url.path])
                #expect(filtered.status == 0 && filtered.text.hasPrefix("id,text\n1,\"0123") && filtered.text.hasSuffix("THE END\"\n"),
                        "\(arguments): \(filtered.text.prefix(40)) \(filtered.stderr)")
            }
        }
        // The inspector reads the cell from the input: its true size in the title, its end after G.
        let viewer = try TmuxPane(input, width: 70, height: 12)
        try viewer.waitFor("the first screen") { $0.contains { $0.contains("row 1/2") } }
        try viewer.send("Right")
        try viewer.send("Enter")
        try viewer.waitFor("the inspector") { $0.contains { $0.contains("3,300,007 bytes") } }
        try viewer.send("G")
        let screen = try viewer.waitFor("the cell's end") { $0.contains { $0.contains("THE END") } }
        #expect(screen.contains { $0.contains("of 3,300,007 (100%)") }, "\(screen)")
        // --echo cell prints it whole.
        let pane = try TmuxPane("\(input) --echo cell > \(shellQuote(out))", width: 70, height: 12)
        try pane.waitFor("the first screen") { $0.contains { $0.contains("row 1/2") } }
        try pane.send("Right")
        try pane.send("Enter")
        let marker = try pane.waitForExit()
        #expect(marker?.hasPrefix("[exit=0 ") == true, "\(marker ?? "")")
        let printed = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(printed == Data((value + "\n").utf8), "printed \(printed.count) bytes")
        // --echo row prints the row whole, the long cell quoted as CSV.
        let rowPane = try TmuxPane("\(input) --echo row > \(shellQuote(out))", width: 70, height: 12)
        try rowPane.waitFor("the first screen") { $0.contains { $0.contains("row 1/2") } }
        try rowPane.send("Enter")
        let rowMarker = try rowPane.waitForExit()
        #expect(rowMarker?.hasPrefix("[exit=0 ") == true, "\(rowMarker ?? "")")
        let row = try Data(contentsOf: URL(fileURLWithPath: out))
        let expectedRow = "1,\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\",x\n"
        #expect(row == Data(expectedRow.utf8), "printed \(row.count) bytes")
    }

    @Test("--frequency and --summary count long values whole: values sharing their first MiB stay apart")
    func longValuesCounted() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("values.csv")
        let base = String(repeating: "0123456789,", count: 110_000)
        let a = base + "x", b = base + "y", c = base + "x" + String(repeating: "z", count: 70_000)
        func quoted(_ value: String) -> String { "\"" + value + "\"" }
        try Data("id,text\n1,\(quoted(a))\n2,\(quoted(b))\n3,short\n4,\(quoted(a))\n5,\(quoted(c))\n".utf8).write(to: url)
        let csv = try run([binary, "--frequency", "text", "--output", "csv", url.path])
        #expect(csv.status == 0, "\(csv.stderr)")
        let expected = "value,count,percent\n\(quoted(a)),2,40.00\n\(quoted(b)),1,20.00\nshort,1,20.00\n\(quoted(c)),1,20.00\n"
        #expect(csv.text == expected, "the values written whole, each counted apart")
        let table = try run([binary, "--frequency", "text", url.path])
        #expect(table.text.split(separator: "\n").count == 6)
        #expect(table.text.contains("…"), "a shortened value is marked")
        let summary = try run([binary, "--summary", "--output", "json", url.path])
        let rows = try #require(try JSONSerialization.jsonObject(with: summary.stdout) as? [[String]])
        let text = try #require(rows.first { $0.first == "text" })
        #expect(text[4] == "4", "distinct: \(text[4])")
        #expect(text[5].hasSuffix("… (\(a.utf8.count) bytes)") && text[5].hasPrefix("0123456789,"), "min: \(text[5].suffix(40))")
        #expect(text[6] == "short", "max: \(text[6].suffix(40))")
        #expect(text[10] == "\(c.utf8.count)", "longest: \(text[10])")
    }
}
