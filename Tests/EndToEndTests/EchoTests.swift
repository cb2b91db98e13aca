#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `--echo` in a real terminal: what reaches stdout, and the exit status.
@Suite("--echo and the command line", .serialized, .timeLimit(.minutes(30)))
struct EchoTests {
    let binary = shellQuote(Paths.binary)

    /// A file with an empty cell and a cell with a line break.
    func file() throws -> String {
        let directory = try Paths.temporaryDirectory()
        let path = directory.appendingPathComponent("e.csv").path
        try "id,note\n1,\n2,\"two\nlines\"\n3,x\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs csvfreeze with `arguments` in tmux, stdout to a file; types `keys` once the
    /// screen is up; returns the exit status and stdout's bytes.
    func echo(_ arguments: String, keys: [String], screen: String = "row 1/3") throws -> (String?, [UInt8]) {
        let path = try file()
        let out = path + ".out"
        let pane = try TmuxPane("\(binary) \(arguments) \(shellQuote(path)) > \(shellQuote(out))", width: 60, height: 10)
        try pane.waitFor("the first screen") { $0.contains { $0.contains(screen) } }
        for key in keys { try pane.send(key) }
        let marker = try pane.waitForExit()
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: out))).map { [UInt8]($0) } ?? []
        return (marker, bytes)
    }

    @Test("q with --echo exits 130 and prints nothing; Enter on an empty cell exits 0 and prints a line feed")
    func cancelIsNotEmpty() throws {
        let (cancelled, nothing) = try echo("--echo cell", keys: ["q"])
        #expect(cancelled?.hasPrefix("[exit=130 ") == true, "\(cancelled ?? "")")
        #expect(nothing.isEmpty)
        let (chosen, empty) = try echo("--echo cell", keys: ["Right", "Enter"])
        #expect(chosen?.hasPrefix("[exit=0 ") == true, "\(chosen ?? "")")
        #expect(empty == [0x0A])
    }

    @Test("--echo column -0 ends each value with NUL, so a value with a line break stays one value")
    func print0() throws {
        let (status, bytes) = try echo("--echo column -0", keys: ["Right", "Enter"])
        #expect(status?.hasPrefix("[exit=0 ") == true)
        #expect(bytes == Array("\0two\nlines\0x\0".utf8))
        let (_, lines) = try echo("--echo column --print0", keys: ["Enter"])
        #expect(lines == Array("1\02\03\0".utf8))
    }

    @Test("--echo column prints the view's rows in its order, --echo row the view's columns")
    func echoWhatTheViewShows() throws {
        let (status, column) = try echo("--echo column --filter-out-column note=x --sort id:desc", keys: ["Enter"], screen: "row 1/2")
        #expect(status?.hasPrefix("[exit=0 ") == true, "\(status ?? "")")
        #expect(column == Array("2\n1\n".utf8))
        let (_, row) = try echo("--echo row --columns note,id --sort id:desc", keys: ["Enter"])
        #expect(row == Array("x,3\n".utf8))
    }

    @Test("negative counts say what is wrong with them, not 'Missing value'; -0 needs --echo")
    func negativeCounts() throws {
        for (option, name) in [("-c", "--freeze-cols"), ("-r", "--freeze-rows"), ("--preamble", "--preamble")] {
            let result = try run([Paths.binary, option, "-1", "--output", "csv", "/dev/null"])
            #expect(result.status == 64)
            #expect(result.stderr.contains("\(name) must be 0 or more"), "\(result.stderr)")
        }
        let result = try run([Paths.binary, "-0", "--output", "csv", "/dev/null"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--print0 (-0) goes with --echo"), "\(result.stderr)")
    }

    @Test("--echo chooses on screen: with --output, --frequency or --summary, which draw none, it is a bad option (64)")
    func echoWithoutScreen() throws {
        let path = try file()
        for extra in [["--output", "csv"], ["--output", "table"], ["--frequency", "id"], ["--summary"]] {
            let result = try run([Paths.binary, "--echo", "cell"] + extra + [path])
            #expect(result.status == 64, "\(extra): \(result.text)")
            #expect(result.stdout.isEmpty, "\(extra)")
            #expect(result.stderr.contains("--echo") && result.stderr.contains(extra[0]), "\(extra): \(result.stderr)")
        }
    }
}
