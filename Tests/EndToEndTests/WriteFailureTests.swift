import Foundation
import Testing

/// Output that cannot be written (a full disk) is said, with exit status 1; a reader that
/// goes away (`| head`) is not a failure.
@Suite("Output that cannot be written", .timeLimit(.minutes(30)))
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

    @Test("a diff into /dev/full is trouble (exit 2, one line), whether the tables differ or not",
          arguments: [[], ["--output", "csv"], ["--summary"]])
    func diffToFullDisk(options: [String]) throws {
        let old = try sample(rows: 2_000)
        let new = try sample(rows: 2_001)
        for other in [new, old] {
            let command = ([Paths.binary, "--diff", other] + options + [old]).map(shellQuote).joined(separator: " ") + " > /dev/full"
            let result = try run(["/bin/sh", "-c", command])
            #expect(result.status == 2, "\(options): \(result.stderr)")
            #expect(result.stderr == "csvfreeze: cannot write the output: No space left on device\n", "\(options)")
        }
    }

    @Test("a record whose chosen cells pass the limit ends the output after every record before it, in one line, exit 1")
    func chosenCellsPastTheLimit() throws {
        let path = try Paths.temporaryDirectory().appendingPathComponent("wide.csv").path
        guard let file = FileHandle(forWritingAtPath: path) ?? {
            FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }() else { throw CocoaError(.fileNoSuchFile) }
        var head = "id,note\n"
        for index in 0..<100_000 { head += "\(index),n\(index)\n" }
        file.write(Data(head.utf8))
        file.write(Data("big,".utf8))
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<65 { file.write(chunk) }
        file.write(Data("\nlast,z\n".utf8))
        try file.close()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try run([Paths.binary, "--output", "csv", "--columns", "note", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("row 100001 has chosen cells over 64 MiB"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        let lines = result.text.split(separator: "\n")
        #expect(lines.count == 100_001 && lines.first == "note" && lines.last == "n99999", "\(lines.count) \(lines.last ?? "")")
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
