import Foundation
import Testing

/// Compressed files and pipes, in a real terminal and through --output.
@Suite("Compressed input end to end", .serialized, .timeLimit(.minutes(30)))
struct CompressedEndToEndTests {
    let binary = shellQuote(Paths.binary)
    static let people = Paths.sampleData.appendingPathComponent("people.csv")

    /// people.csv compressed with each format's own tool, and a gzip file with no `.gz`.
    static let fixtures: URL = {
        let directory = try! Paths.temporaryDirectory()
        let source = shellQuote(people.path)
        for (name, command) in [("people.csv.gz", "gzip -c"), ("people.csv.zst", "zstd -q -c"), ("people.csv.xz", "xz -c"),
                                ("people.csv.bz2", "bzip2 -c"), ("people-export", "gzip -c")] {
            let target = shellQuote(directory.appendingPathComponent(name).path)
            _ = try! run(["/bin/sh", "-c", "\(command) < \(source) > \(target)"])
        }
        return directory
    }()

    static let names = ["people.csv.gz", "people.csv.zst", "people.csv.xz", "people.csv.bz2", "people-export"]

    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// The grid (every line but the status line) at the top and after G, once all is read.
    func grids(_ command: String) throws -> (top: [String], bottom: [String]) {
        let pane = try TmuxPane(command, width: 100, height: 20)
        let top = try pane.waitFor("the whole table") { status($0).contains("row 1/3,000 ") }
        try pane.send("G")
        let bottom = try pane.waitFor("the last row") { status($0).contains("row 3,000/3,000 ") }
        try pane.send("q")
        return (Array(top[..<19]), Array(bottom[..<19]))
    }

    @Test("a compressed file, or a pipe, shows exactly the table of the plain file; G reaches the last row",
          arguments: names, [false, true])
    func sameTable(name: String, throughPipe: Bool) throws {
        let plain = try grids("\(binary) \(shellQuote(Self.people.path))")
        let path = shellQuote(Self.fixtures.appendingPathComponent(name).path)
        let packed = try grids(throughPipe ? "cat \(path) | \(binary)" : "\(binary) \(path)")
        #expect(packed.top == plain.top)
        #expect(packed.bottom == plain.bottom)
    }

    @Test("--output csv reproduces the plain file byte for byte, from a file and from a pipe", arguments: names)
    func outputBytes(name: String) throws {
        let expected = try Data(contentsOf: Self.people)
        let path = Self.fixtures.appendingPathComponent(name)
        let fromFile = try run([Paths.binary, "--output", "csv", path.path])
        #expect(fromFile.status == 0 && fromFile.stderr.isEmpty)
        #expect(fromFile.stdout == expected)
        let fromPipe = try run([Paths.binary, "--output", "csv"], stdin: try Data(contentsOf: path))
        #expect(fromPipe.status == 0)
        #expect(fromPipe.stdout == expected)
    }

    @Test("--sort and --filter on a compressed file write what they write for the plain file", arguments: names)
    func sortedOutput(name: String) throws {
        let plain = try run([Paths.binary, "--sort", "last_name", "--filter-out", "a", "--output", "csv", Self.people.path])
        #expect(plain.status == 0 && plain.stdout.count > 100)
        let packed = try run([Paths.binary, "--sort", "last_name", "--filter-out", "a", "--output", "csv",
                              Self.fixtures.appendingPathComponent(name).path])
        #expect(packed.status == 0 && packed.stderr.isEmpty)
        #expect(packed.stdout == plain.stdout)
    }

    @Test("a truncated .gz shows what it holds and says where it breaks; --output writes it, then fails")
    func truncated() throws {
        let whole = try Data(contentsOf: Self.fixtures.appendingPathComponent("people.csv.gz"))
        let cut = Self.fixtures.appendingPathComponent("cut.csv.gz")
        try whole.prefix(whole.count / 2).write(to: cut)
        let pane = try TmuxPane("\(binary) \(shellQuote(cut.path))", width: 120, height: 20)
        let lines = try pane.waitFor("the damage in the status line") { status($0).contains("ends early") }
        #expect(status(lines).contains("row 1/"))
        #expect(!status(lines).contains("+"))
        try pane.send("q")

        let result = try run([Paths.binary, "--output", "csv", cut.path])
        #expect(result.status == 1)
        let plain = try Data(contentsOf: Self.people)
        #expect(result.stdout.count > plain.count / 4)
        #expect(plain.starts(with: result.stdout), "every record written is whole: the one the cut splits is left out")
        let message = result.stderr.split(separator: "\n")
        #expect(message.count == 1)
        #expect(message.first?.hasPrefix("csvfreeze: \(cut.path): compressed data ends early, after byte ") == true)
    }

    @Test("a .gz cut anywhere: --output, --columns and --summary of the file leave out the record the cut splits, as the pipe does")
    func truncatedAtSeveralPoints() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plainURL = directory.appendingPathComponent("plain.csv")
        let packed = directory.appendingPathComponent("plain.csv.gz")
        _ = try run(["/bin/sh", "-c", "(echo id,v; seq 1 300000 | sed 's/$/,some text here/') > \(shellQuote(plainURL.path)); "
                     + "gzip -c \(shellQuote(plainURL.path)) > \(shellQuote(packed.path))"])
        let plain = try Data(contentsOf: plainURL)
        let whole = try Data(contentsOf: packed)
        #expect(whole.count > 300_000)
        for size in [77_777, 200_000, 300_001] {
            let cut = directory.appendingPathComponent("cut-\(size).csv.gz")
            try whole.prefix(size).write(to: cut)
            let bytes = whole.prefix(size)
            for format in ["csv", "jsonl"] {
                let file = try run([Paths.binary, "--output", format, cut.path])
                let pipe = try run([Paths.binary, "--output", format], stdin: bytes)
                #expect(file.status == 1 && pipe.status == 1, "\(size) \(format)")
                #expect(file.stderr.split(separator: "\n").count == 1, "\(size) \(format): \(file.stderr)")
                #expect(file.stdout == pipe.stdout, "\(size) \(format): the file writes what the pipe does")
                if format == "csv" {
                    // Whole records of the plain file, up to a line ending: nothing of the one the cut splits.
                    #expect(file.stdout.count > plain.count / 50, "\(size)")
                    #expect(plain.starts(with: file.stdout) && file.stdout.last == 0x0A, "\(size): \(file.text.suffix(40))")
                    let records = file.text.split(separator: "\n").count - 1
                    let columns = try run([Paths.binary, "--output", "csv", "--columns", "id", cut.path])
                    #expect(columns.text == file.text.split(separator: "\n").map { $0.split(separator: ",")[0] + "\n" }.joined(),
                            "\(size): --columns writes the same records")
                    let summary = try run([Paths.binary, "--summary", cut.path])
                    let piped = try run([Paths.binary, "--summary"], stdin: bytes)
                    #expect(summary.stdout == piped.stdout, "\(size): --summary counts what the pipe counts")
                    let idLine = summary.text.split(separator: "\n").first { $0.hasPrefix("id ") }
                    #expect(idLine?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).first == "\(records)",
                            "\(size): \(idLine ?? "")")
                    #expect(summary.status == 1 && summary.stderr.split(separator: "\n").count == 1, "\(size): \(summary.stderr)")
                }
            }
        }
    }

    @Test("bombs: a gzip file of 256 MiB of NUL stays small in memory and on disk; zstd through a pipe pauses at --spool-limit")
    func bombs() throws {
        let pane = try TmuxPane("head -c 256M /dev/zero | gzip -1 > bomb.gz && { \(binary) bomb.gz & echo $! > pid; wait $!; }",
                                width: 100, height: 12)
        try pane.waitFor("the whole bomb read", timeout: 120) { status($0).contains("no rows ") && status($0).contains("binary data?") }
        let pid = try String(contentsOf: pane.directory.appendingPathComponent("pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try pane.send("G", "l", "g")
        let process = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let peak = process.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ")[1]
        #expect(Int(peak ?? "") ?? Int.max < 64 << 10, "peak memory \(peak ?? "?") KiB")
        // Its only temporary file is the access-point index: kilobytes.
        let files = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { fd -> Int? in
            let path = "/proc/\(pid)/fd/\(fd)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path), target.hasSuffix("(deleted)") else { return nil }
            var info = stat()
            return stat(path, &info) == 0 ? Int(info.st_size) : nil
        }
        #expect(files.count == 1 && files.allSatisfy { $0 < 256 << 10 }, "temporary files \(files)")
        try pane.send("q")
        #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]")

        let piped = try TmuxPane("yes a,b | head -c 64M | zstd -q -c | \(binary) --spool-limit 1M", width: 100, height: 12)
        try piped.waitFor("the pause") { status($0).contains("paused at 1 MiB: --spool-limit 1M") }
        try piped.send("q")
        #expect(try piped.waitForExit() == "[exit=0 modes=icanon echo ]")
    }

    @Test("--follow says a compressed file is read once, not followed")
    func follow() throws {
        let path = shellQuote(Self.fixtures.appendingPathComponent("people.csv.gz").path)
        let pane = try TmuxPane("\(binary) -f \(path)", width: 120, height: 20)
        try pane.waitFor("the notice") { status($0).contains("read once, not followed") }
        try pane.send("q")
    }
}
