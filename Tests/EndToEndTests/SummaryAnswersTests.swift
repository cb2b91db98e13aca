import Foundation
import Testing

/// What `--summary` and `--frequency` answer, and what their documentation says they
/// answer, in the cases a user trial found at odds.
@Suite("Summary and frequency answers", .timeLimit(.minutes(30)))
struct SummaryAnswersTests {
    let binary = Paths.binary

    func file(_ bytes: [UInt8], _ name: String = "answers.csv") throws -> (URL, URL) {
        let directory = try Paths.temporaryDirectory()
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return (directory, url)
    }

    /// The cells of `--output csv` line `line` (no quoted commas in these tests).
    func cells(_ result: Completed, line: Int) -> [String] {
        result.text.components(separatedBy: "\n")[line].components(separatedBy: ",")
    }

    @Test("past the counting budget, --summary lists the most common values --frequency lists, with its distinct estimate")
    func commonPastTheBudget() throws {
        var values = (0..<400_000).map { "u\($0)" }
        values += Array(repeating: "hot", count: 300) + Array(repeating: "warm", count: 200) + Array(repeating: "cool", count: 100)
        var generator = SystemRandomNumberGenerator()
        values.shuffle(using: &generator)
        let (directory, url) = try file(Array(("v\n" + values.joined(separator: "\n") + "\n").utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let frequency = try run([binary, "--frequency", "v", "--output", "csv", url.path])
        #expect(frequency.status == 0)
        #expect(frequency.text.hasPrefix("value,count,percent\nhot,300,0.07\nwarm,200,0.05\ncool,100,0.02\n"), "\(frequency.text.prefix(200))")
        let estimate = try #require(frequency.stderr.split(separator: "≈").last?.split(separator: " ").first)
        let summary = try run([binary, "--summary", "--output", "csv", url.path])
        #expect(summary.status == 0)
        let row = cells(summary, line: 1)
        #expect(row[4] == "≈" + estimate, "the same distinct estimate: \(row[4]) and ≈\(estimate)")
        #expect(summary.text.contains("\"hot (300), warm (200), cool (100)\""), "\(summary.text)")
    }

    @Test("a number column with a word in it: min and max are the ends of --sort, the kind text")
    func minAndMaxAsTheSortHasThem() throws {
        let (directory, url) = try file(Array(("n\n" + (5...40).map(String.init).joined(separator: "\n") + "\nn/a\n").utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let sorted = try run([binary, "--sort", "n", "--output", "csv", url.path]).text.split(separator: "\n")
        #expect(sorted[1] == "5" && sorted.last == "n/a")
        let summary = try run([binary, "--summary", "--output", "csv", url.path])
        #expect(summary.text.components(separatedBy: "\n")[1].hasPrefix("n,text,37,0,37,5,n/a,,,1,3,"), "\(summary.text)")
        let (other, names) = try file(Array("name\nZoë\nalpha\nBeta\n".utf8))
        defer { try? FileManager.default.removeItem(at: other) }
        let text = try run([binary, "--summary", "--output", "csv", names.path])
        #expect(text.text.components(separatedBy: "\n")[1].hasPrefix("name,text,3,0,3,alpha,Zoë,"), "\(text.text)")
    }

    @Test("the standard deviation is blank when a value is past a double's range, and the documentation says so")
    func deviationPastRange() throws {
        let (directory, url) = try file(Array("v\n1\n1e400\n2\n".utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let summary = try run([binary, "--summary", "--output", "csv", url.path])
        #expect(cells(summary, line: 1)[7...8] == ["inf", ""])
        let (spread, wide) = try file(Array("v\n1e308\n-1e308\n".utf8))
        defer { try? FileManager.default.removeItem(at: spread) }
        #expect(cells(try run([binary, "--summary", "--output", "csv", wide.path]), line: 1)[7...8] == ["0.0", "1.4142135623730951e+308"])
        let help = try run([binary, "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
        let phrase = "blank when a value is past a double's range"
        #expect(help.contains(phrase))
        let man = try String(contentsOf: Paths.package.appendingPathComponent("man/csvfreeze.1"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        #expect(man.contains(phrase))
    }

    @Test("--summary with --columns: only those columns, in that order")
    func summaryColumns() throws {
        let (directory, url) = try file(Array("id,name,h\n1,a,x\n2,b,y\n".utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let summary = try run([binary, "--summary", "--columns", "h,name", "--output", "csv", url.path])
        #expect(summary.status == 0)
        #expect(summary.text.components(separatedBy: "\n").dropFirst().map { $0.components(separatedBy: ",")[0] } == ["h", "name", ""])
        let one = try run([binary, "--summary", "--columns", "name", "--output", "csv", url.path])
        #expect(one.text.components(separatedBy: "\n").count == 3, "\(one.text)")
    }

    @Test("an empty input: one clear line for --summary and --frequency alike")
    func emptyInput() throws {
        let (directory, url) = try file([])
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [["--summary"], ["--frequency", "1"], ["--summary", "--output", "csv"]] {
            let result = try run([binary] + arguments + [url.path])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr == "csvfreeze: \(url.path): empty input, nothing to count\n", "\(arguments)")
        }
        let piped = try run([binary, "--summary", "-"], stdin: Data())
        #expect(piped.status == 1)
        #expect(piped.stderr == "csvfreeze: stdin: empty input, nothing to count\n")
    }

    @Test("a record past 1,048,576 fields: --frequency and --summary count the columns within them, as documented")
    func tooWideRecord() throws {
        let count = 1_048_576 + 10
        let text = "a,b\n" + (0..<count).map { String($0 % 10) }.joined(separator: ",") + "\n1,2\n"
        let (directory, url) = try file(Array(text.utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let counted = try run([binary, "--frequency", "a", "--output", "csv", url.path])
        #expect(counted.status == 0)
        #expect(counted.text == "value,count,percent\n0,1,50.00\n1,1,50.00\n")
        let within = try run([binary, "--summary", "--columns", "b", "--output", "csv", url.path])
        #expect(within.status == 0, "\(within.stderr)")
        let help = try run([binary, "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
        #expect(!help.contains("--columns, --frequency and --summary stop at such a record"))
        #expect(help.contains("--frequency and --summary stop only at a column past 1,048,576"), "\(help)")
    }

    @Test("records too short to have the column count as the empty value, and the documentation says so")
    func shortRecords() throws {
        let (directory, url) = try file(Array("a,b,c\n1,2,3\n4\n5,6\n7,8,\n".utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let counted = try run([binary, "--frequency", "c", "--output", "csv", url.path])
        #expect(counted.status == 0)
        #expect(counted.text == "value,count,percent\n,3,75.00\n3,1,25.00\n")
        let summary = try run([binary, "--summary", "--output", "csv", url.path])
        #expect(cells(summary, line: 3)[0...3] == ["c", "integer", "1", "3"])
        let help = try run([binary, "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
        #expect(help.contains("A record too short to have COLUMN counts as the empty value"), "\(help)")
        let man = try String(contentsOf: Paths.package.appendingPathComponent("man/csvfreeze.1"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        #expect(man.contains("A record too short to have .I COLUMN counts as the empty value"))
    }
}
