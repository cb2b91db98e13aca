import Foundation
import Testing

/// A message on standard error is one line, and nothing from the data reaches the
/// terminal raw through it: control characters, escape sequences, line breaks and
/// characters that draw nothing show as the screen shows them.
@Suite("Messages on standard error", .timeLimit(.minutes(30)))
struct MessageSafetyTests {
    let binary = Paths.binary

    /// True when `text` is one line of text that a terminal only prints: no C0 or C1
    /// control, no DEL, no bidirectional override or isolate, no other format character.
    func isOneInertLine(_ text: String) -> Bool {
        guard text.hasSuffix("\n") else { return false }
        return text.dropLast().unicodeScalars.allSatisfy { scalar in
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) { return false }
            return scalar.properties.generalCategory != .format
        }
    }

    func file(_ bytes: [UInt8]) throws -> (URL, URL) {
        let directory = try Paths.temporaryDirectory()
        let url = directory.appendingPathComponent("esc.csv")
        try Data(bytes).write(to: url)
        return (directory, url)
    }

    @Test("the trial's file: OSC and SGR sequences in a header name show as symbols in --sort's and --frequency's message")
    func escapeSequencesInNames() throws {
        let (directory, url) = try file(Array("id,\u{1B}]0;pwned\u{07}\u{1B}[31mred\n1,2\n".utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [["--sort", "nope"], ["--frequency", "nope"], ["--filter-column", "nope=x"], ["--columns", "id,nope"]] {
            let result = try run([binary] + arguments + [url.path])
            #expect(result.status != 0, "\(arguments)")
            #expect(isOneInertLine(result.stderr), "\(arguments): \(result.stderr.debugDescription)")
            #expect(result.stderr.contains("'␛]0;pwned␇␛[31mred'"), "\(arguments): \(result.stderr)")
        }
    }

    @Test("line breaks, CR, Esc, C1 controls and U+202E in names and in what the user typed stay on one line")
    func everyKindOfControl() throws {
        let names = ["a\nb", "c\rd", "e\u{1B}[2Jf", "g\u{85}h\u{9B}31m", "\u{202E}evil", "z\u{200B}w", "t\tu"]
        let header = names.map { "\"\($0)\"" }.joined(separator: ",")
        let (directory, url) = try file(Array((header + "\n" + names.map { _ in "1" }.joined(separator: ",") + "\n").utf8))
        defer { try? FileManager.default.removeItem(at: directory) }
        for arguments in [["--sort", "no\u{1B}[1mpe"], ["--frequency", "x\ny"], ["--summary", "--columns", "\u{202E}q"],
                          ["--filter", "("], ["--filter-column", "a\nb=("]] {
            let result = try run([binary] + arguments + [url.path])
            #expect(result.status != 0, "\(arguments)")
            #expect(isOneInertLine(result.stderr), "\(arguments): \(result.stderr.debugDescription)")
        }
        let listed = try run([binary, "--sort", "nope", url.path]).stderr
        for shown in ["a↵b", "c␍d", "e␛[2Jf", "g¿h¿31m", "¶evil", "z<U+200B>w", "t→u"] {
            #expect(listed.contains(shown), "\(shown) in \(listed)")
        }
    }

    @Test("a file name with controls is shown safely too")
    func fileName() throws {
        let result = try run([binary, "--summary", "/nonexistent/\u{1B}[31mred\nline"])
        #expect(result.status == 1)
        #expect(isOneInertLine(result.stderr), "\(result.stderr.debugDescription)")
        #expect(result.stderr.contains("␛[31mred↵line"))
    }
}
