import Foundation
import Testing

/// What `--summary` and `--frequency` answer, and what their documentation says they
/// answer, in the cases a user trial found at odds.
@Suite("Summary and frequency answers")
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

    @Test("the standard deviation is blank when a value is past a double's range, and the documentation says so")
    func deviationPastRange() throws {
        let (directory, url) = try file(Array("v\n1\n1e400\n2\n".utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let summary = try run([binary, "--summary", "--output", "csv", url.path])
        #expect(cells(summary, line: 1)[7...8] == ["inf", ""])
        let (spread, wide) = try file(Array("v\n1e308\n-1e308\n".utf8))
        defer { try? FileManager.default.removeItem(at: spread) }
        #expect(cells(try run([binary, "--summary", "--output", "csv", wide.path]), line: 1)[7...8] == ["0.0", "inf"])
        let help = try run([binary, "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
        let phrase = "blank when a value is past a double's range"
        #expect(help.contains(phrase))
        let readme = try String(contentsOf: Paths.package.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains(phrase))
        let man = try String(contentsOf: Paths.package.appendingPathComponent("man/csvfreeze.1"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        #expect(man.contains(phrase))
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
        let readme = try String(contentsOf: Paths.package.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("a record too short to have COLUMN counts as the empty value"))
        let man = try String(contentsOf: Paths.package.appendingPathComponent("man/csvfreeze.1"), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        #expect(man.contains("A record too short to have .I COLUMN counts as the empty value"))
    }
}
