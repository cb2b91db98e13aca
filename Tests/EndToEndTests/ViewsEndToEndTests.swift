import Foundation
import Testing

/// Filters, sorts, chosen columns and sheets, in a real terminal.
@Suite("Views and sheets in a terminal", .serialized, .timeLimit(.minutes(30)))
struct ViewsEndToEndTests {
    let binary = shellQuote(Paths.binary)
    let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    @Test("--filter-column, --sort and --columns open the viewer with the view applied; & Enter shows every row")
    func commandLineView() throws {
        let pane = try TmuxPane("\(binary) --filter-column 'country=^NO$' --sort age:desc --columns id,age,country \(people)",
                                width: 100, height: 20)
        let lines = try pane.waitFor("the filtered, sorted view") { status($0).contains(" of 3,000") && !status($0).contains("+") }
        let expected = try run([Paths.binary, "--filter-column", "country=^NO$", "--sort", "age:desc", "--columns", "id,age,country",
                                "--output", "csv", Paths.sampleData.appendingPathComponent("people.csv").path])
        let rows = String(decoding: expected.stdout, as: UTF8.self).split(separator: "\n").dropFirst()
        #expect(status(lines).contains("row 1/\(rows.count) of 3,000"), "\(status(lines))")
        #expect(lines[0].contains("id") && lines[0].contains("age") && !lines[0].contains("first_name"), "\(lines[0])")
        // The first row on screen is the file's oldest Norwegian, under its record's number.
        let first = rows.first!.split(separator: ",")
        #expect(lines[1].hasPrefix("\(first[0])│\(first[0]) ") && lines[1].contains(" \(first[1]) "), "\(lines[1]) vs \(first)")
        // Filters cleared: every row, still sorted, the cursor on the same record.
        try pane.send("&", "Enter")
        let all = try pane.waitFor("every row") { status($0).contains("/3,000 ") && !status($0).contains("1 filter") }
        #expect(status(all).contains("sorted by age ↓"))
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
    }

    @Test("# shows the column's counts; Enter filters the table to the top value; I lists every column")
    func sheets() throws {
        let pane = try TmuxPane("\(binary) \(people)", width: 100, height: 20)
        try pane.waitFor("the first screen") { status($0).contains("row 1/3,000") }
        try pane.send(":", "c", "o", "u", "n", "t", "r", "y", "Enter", "#")
        let sheet = try pane.waitFor("the frequency sheet") { status($0).contains("distinct values in 3,000 rows") }
        #expect(sheet[0].contains("value") && sheet[0].contains("count"))
        #expect(sheet[1].contains("JP") && sheet[1].contains("228"), "\(sheet[1])")
        try pane.send("Enter")
        try pane.waitFor("the table filtered to JP") { status($0).contains("row 1/228 of 3,000") }
        try pane.send("I")
        let summary = try pane.waitFor("the summary sheet") { status($0).contains("Enter: the column") }
        #expect(summary.contains { $0.contains("age") && $0.contains("integer") }, "\(summary)")
        try pane.send("Escape")
        try pane.waitFor("the table again") { status($0).contains("row 1/228 of 3,000") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
    }
}
