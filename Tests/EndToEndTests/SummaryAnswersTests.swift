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
}
