import Foundation
import Testing

/// Output that cannot be written (a full disk) is said, with exit status 1; a reader that
/// goes away (`| head`) is not a failure.
@Suite("Output that cannot be written")
struct WriteFailureTests {
    func sample(rows: Int) throws -> String {
        let path = try Paths.temporaryDirectory().appendingPathComponent("in.csv").path
        var text = "id,name,amount\n"
        for index in 0..<rows { text += "\(index),name \(index),\(index * 3).5\n" }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test("every output mode into /dev/full says so in one line and exits 1",
          arguments: [["--output", "csv"], ["--output", "jsonl"], ["--output", "json"], ["--output", "table"],
                      ["--output", "csv", "--sort", "amount"], ["--output", "csv", "--columns", "name"],
                      ["--summary"], ["--frequency", "name"], ["--sql", "select * from t"]])
    func fullDisk(options: [String]) throws {
        let input = try sample(rows: 20_000)
        let command = ([Paths.binary] + options + [input]).map(shellQuote).joined(separator: " ") + " > /dev/full"
        let result = try run(["/bin/sh", "-c", command])
        #expect(result.status == 1, "\(options): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(options): \(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(options): \(result.stderr)")
    }

    @Test("a reader that goes away ends the output quietly with status 0",
          arguments: [["--output", "csv"], ["--output", "jsonl"], ["--summary"], ["--sql", "select * from t"]])
    func readerLeaves(options: [String]) throws {
        let input = try sample(rows: 200_000)
        let command = "set -o pipefail 2>/dev/null; " + ([Paths.binary] + options + [input]).map(shellQuote).joined(separator: " ")
            + " | head -c 10 > /dev/null; echo \"status=${PIPESTATUS[0]:-$?}\""
        let result = try run(["/bin/bash", "-c", command])
        #expect(result.text.contains("status=0"), "\(options): \(result.text) \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(options): \(result.stderr)")
    }
}
