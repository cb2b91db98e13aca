import Foundation
import Testing
import TestSupport

/// Input that never ends a record: its start shows, memory stays bounded, and `q` and
/// SIGTERM end the viewer at once.
@Suite("Endless records", .serialized, .timeLimit(.minutes(30)))
struct EndlessInputTests {
    let binary = Paths.binary

    /// Resident memory of a process, in KiB, from /proc.
    func residentKiB(_ pid: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ")[1])
    }

    func pid(of pane: TmuxPane) throws -> String {
        try String(contentsOf: pane.directory.appendingPathComponent("pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a line that never ends shows its start; q quits while it streams in")
    func neverEndingLine() throws {
        // The stream never ends by itself: only q can end the viewer, however long it takes to.
        let pane = try TmuxPane("yes abcdefgh | tr -d '\\n' | \(shellQuote(binary)) & echo $! > pid; wait $!",
                                width: 80, height: 12)
        let lines = try pane.waitFor("the record's start") { $0.contains { $0.contains("abcdefghabcdefghabcdefgh") } }
        #expect(lines.contains { $0.contains("│abcdefgh") })
        if let kib = residentKiB(try pid(of: pane)) { #expect(kib < 64 << 10, "resident \(kib) KiB") }
        try pane.send("q")
        #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]")
    }

    @Test("NUL bytes with no line end: SIGTERM ends it at once, the terminal restored")
    func zeros() throws {
        // The stream never ends by itself: only the signal can end the viewer.
        let pane = try TmuxPane("cat /dev/zero | \(shellQuote(binary)) & echo $! > pid; wait $!", width: 80, height: 12)
        try pane.waitFor("the record's start") { $0.contains { $0.contains("␀␀␀␀␀␀␀␀") } }
        let pid = try pid(of: pane)
        if let kib = residentKiB(pid) { #expect(kib < 64 << 10, "resident \(kib) KiB") }
        try run(["/bin/kill", "-TERM", pid])
        #expect(try pane.waitForExit() == "[exit=143 modes=icanon echo ]")
    }
}

/// Every background thread has an owner that stops it.
@Suite("Threads with owners", .serialized, .timeLimit(.minutes(30)))
struct ThreadOwnerTests {
    func threads(_ pid: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
    }

    @Test("with --follow, pressing R ten times leaves the thread count where it was")
    func reloadsLeaveNoThreads() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("log.csv")
        try "t,v\n1,a\n2,b\n".write(to: file, atomically: true, encoding: .utf8)
        let pane = try TmuxPane("\(shellQuote(Paths.binary)) --follow \(shellQuote(file.path)) & echo $! > pid; wait $!", width: 60, height: 8)
        try pane.waitFor("the first screen") { $0.last(where: { !$0.isEmpty })?.contains("row 1/2") == true }
        let pid = try String(contentsOf: pane.directory.appendingPathComponent("pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let before = threads(pid)
        #expect(before > 1)
        for round in 1...10 {
            try "\(round + 2),x\n".appendLine(to: file)
            try pane.send("R")
            try pane.waitFor("reload \(round)") { $0.joined().contains("\(round + 2)") && $0.last(where: { !$0.isEmpty })?.contains("/\(round + 2)") == true }
        }
        // A stopped thread signals its end just before it returns: give the last one a
        // moment to leave /proc.
        var after = threads(pid)
        _ = turn(within: 30, pausing: { usleep(10_000) }, { after = threads(pid) }, until: { after == before })
        #expect(after == before, "threads before \(before), after ten reloads \(after)")
        try pane.send("q")
        #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]")
    }
}

extension String {
    /// Appends this text to a file.
    func appendLine(to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(utf8))
    }
}
