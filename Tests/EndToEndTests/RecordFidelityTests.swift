import Foundation
import Testing

/// Records that other readers must read back as they were: empty single-field records,
/// very wide records, duplicate header names and cells longer than the parser keeps.
@Suite("Records kept whole")
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
}
