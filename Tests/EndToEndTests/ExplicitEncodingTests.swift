import Foundation
import Testing

/// `--encoding UTF-8` named on the command line checks the input as any other encoding
/// is checked; unnamed, UTF-8 is read as it is.
@Suite("UTF-8 named with --encoding", .timeLimit(.minutes(30)))
struct ExplicitEncodingTests {
    let binary = Paths.binary

    func file(_ bytes: [UInt8]) throws -> (URL, URL) {
        let directory = try Paths.temporaryDirectory()
        let url = directory.appendingPathComponent("answers.csv")
        try Data(bytes).write(to: url)
        return (directory, url)
    }

    @Test("--encoding UTF-8 checks the bytes: one line and exit 1 where they are not UTF-8")
    func explicitUTF8() throws {
        let (directory, url) = try file(Array("x,".utf8) + [0xFF] + Array("y\n1,2\n".utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        let line = "csvfreeze: \(url.path): bytes not valid in UTF-8 on line 1 (byte 3), shown as \u{FFFD}\n"
        for arguments in [["--output", "csv"], ["--summary"], ["--frequency", "1"], ["--sort", "1", "--output", "csv"]] {
            let result = try run([binary, "--encoding", "UTF-8"] + arguments + [url.path])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == line, "\(arguments): \(result.stderr)")
        }
        let piped = try run([binary, "--encoding", "utf8", "--output", "csv", "-"], stdin: Data(Array("a\n\u{e9}\n".utf8) + [0xC3]))
        #expect(piped.status == 1)
        #expect(piped.stderr == "csvfreeze: stdin: bytes not valid in UTF8 on line 3 (byte 6), shown as \u{FFFD}\n")
        let valid = try run([binary, "--encoding", "UTF-8", "--summary", "--output", "csv", "-"], stdin: Data("a\nZoë\n".utf8))
        #expect(valid.status == 0 && valid.stderr.isEmpty)
        let unnamed = try run([binary, "--output", "csv", url.path])
        #expect(unnamed.status == 0 && unnamed.stderr.isEmpty, "without --encoding, bytes are shown as U+FFFD as before")
    }
    @Test("UTF-16 with no byte-order mark is written as read, and one line names the --encoding that reads it, in every output mode")
    func utf16WithoutMark() throws {
        let text = "name,city\nJosé,Zürich\n"
        let bytes = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let (directory, url) = try file(bytes)
        defer { try? FileManager.default.removeItem(at: directory) }
        let line = "csvfreeze: \(url.path): looks like UTF-16 without a byte-order mark: --encoding UTF-16LE reads it\n"
        for arguments in [["--output", "csv"], ["--summary"], ["--sort", "1", "--output", "csv"], ["--sql", "select count(*) from answers"]] {
            let result = try run([binary] + arguments + [url.path])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr == line, "\(arguments): \(result.stderr)")
        }
        let plain = try run([binary, "--output", "csv", url.path])
        #expect(Array(plain.stdout) == bytes, "the bytes leave as they came")
        let piped = try run([binary, "--output", "csv", "-"], stdin: Data(bytes))
        #expect(piped.stderr.contains("stdin: looks like UTF-16 without a byte-order mark"))
        let several = try run([binary, "--output", "csv", url.path, url.path])
        #expect(several.status == 0 && several.stderr == line + line, "each input says it: \(several.stderr)")
        let read = try run([binary, "--encoding", "UTF-16LE", "--output", "csv", url.path])
        #expect(read.status == 0 && read.stderr.isEmpty && read.text == text)
    }
}

