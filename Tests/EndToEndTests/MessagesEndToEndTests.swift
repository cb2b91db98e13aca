import Foundation
import Testing

/// What the command line says when it will not do what it was asked: one line on stderr,
/// `csvfreeze: …`, and the exit status the man page gives.
@Suite("Messages", .timeLimit(.minutes(30)))
struct MessagesEndToEndTests {
    let binary = Paths.binary

    /// Two small tables in a new directory: its URL and the two paths.
    func tables() throws -> (URL, String, String) {
        let directory = try Paths.temporaryDirectory()
        let old = directory.appendingPathComponent("old.csv"), new = directory.appendingPathComponent("new.csv")
        try Data("id,v\n1,a\n2,b\n".utf8).write(to: old)
        try Data("id,v\n1,a\n2,c\n".utf8).write(to: new)
        return (directory, old.path, new.path)
    }

    @Test("a bad option, a clash, a bad or missing value: one line, exit 64; --help and --version still print theirs")
    func oneLine() throws {
        let (directory, old, new) = try tables()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [([String], String)] = [
            (["--diff", new, "--filter", "x", old], "csvfreeze: --diff compares two tables by itself"),
            (["--nonsense", old], "csvfreeze: unknown option '--nonsense'"),
            (["--output", "bogus", old], "csvfreeze: the value 'bogus' is invalid for '--output <format>'"),
            (["--freeze-rows", "-1", old], "csvfreeze: --freeze-rows must be 0 or more"),
            (["--freeze-rows"], "csvfreeze: missing value for '--freeze-rows <n>'"),
        ]
        for (arguments, start) in cases {
            let result = try run([binary] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.hasPrefix(start) && result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Usage"), "\(arguments)")
        }
        let help = try run([binary, "--help"])
        #expect(help.status == 0 && help.stderr.isEmpty && help.text.contains("USAGE: csvfreeze"))
        let version = try run([binary, "--version"])
        #expect(version.status == 0 && version.text.hasPrefix("csvfreeze "))
    }

    @Test("options of another mode are refused, not ignored", arguments: [
        (["--diff", "NEW", "--stack"], "--stack is for viewing or writing several inputs: not with --diff"),
        (["--diff", "NEW", "--skip-bad"], "--skip-bad is for viewing or writing several inputs: not with --diff"),
        (["--sql", "select 1", "--stack"], "--stack is for viewing or writing several inputs: not with --sql"),
        (["--sql", "select 1", "--no-source-column"], "--no-source-column is for viewing or writing several inputs: not with --sql"),
        (["--summary", "--source-column", "f"], "--source-column is for viewing or writing several inputs: not with --summary"),
        (["--frequency", "v", "--skip-bad"], "--skip-bad is for viewing or writing several inputs: not with --frequency"),
        (["--follow", "--output", "csv"], "--follow follows a file on the screen; --output writes it once: give one of them"),
        (["--follow", "--summary"], "--follow follows a file on the screen; --summary writes it once: give one of them"),
    ])
    func refused(options: [String], message: String) throws {
        let (directory, old, new) = try tables()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run([binary] + options.map { $0 == "NEW" ? new : $0 } + [old])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "csvfreeze: \(message)\n")
    }

    @Test("writing a directory says on stderr what it skipped, a FIFO among them, as the status line does")
    func skippedEntries() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("a\n1\n".utf8).write(to: directory.appendingPathComponent("one.csv"))
        #expect(mkfifo(directory.appendingPathComponent("pipe.csv").path, 0o600) == 0)
        let result = try run([binary, "--output", "csv", directory.path])
        #expect(result.status == 0)
        #expect(result.text == "file,a\n\(directory.path)/one.csv,1\n", "\(result.text)")
        #expect(result.stderr == "csvfreeze: skipped pipe.csv (not a regular file)\n", "\(result.stderr)")
    }

    @Test("computed numbers print as the shortest text that reads back the same: --summary's correctly rounded mean, SQL's reals")
    func numbers() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("m.csv").path
        try Data("x\n0.1\n0.2\n0.3\n".utf8).write(to: URL(fileURLWithPath: path))
        let summary = try run([binary, "--summary", "--output", "csv", path]).text
        let cells = summary.split(separator: "\n").last.map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
        #expect(cells.count > 8 && cells[7] == "0.2", "the mean, correctly rounded: \(summary)")
        // The deviation of those three Doubles is 0.0999999999999999916…: within an ulp or two, never cut to 0.1.
        #expect(cells.count > 8 && abs((Double(String(cells[8])) ?? 0) - 0.09999999999999999) < 3e-17, "\(summary)")
        // SQLite's own arithmetic, every digit of its Double: nothing rounded away or invented.
        let sql = try run([binary, "--sql", "select 0.1 + 0.2, 2.0, 12345678.12345679 from t limit 1", "--output", "csv", path]).text
        #expect(sql == "0.1 + 0.2,2.0,12345678.12345679\n0.30000000000000004,2.0,12345678.12345679\n", "\(sql)")
    }
}
