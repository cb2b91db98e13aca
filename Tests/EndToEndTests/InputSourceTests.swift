import Foundation
import Testing

/// Inputs that are not plain files read once: endless pipes, FIFOs, closed stdin, /proc,
/// files that change while open. The real binary in tmux.
@Suite("Input sources end to end", .serialized, .timeLimit(.minutes(30)))
struct InputSourceTests {
    let binary = shellQuote(Paths.binary)
    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty && !$0.hasPrefix("[exit=") }) ?? "" }

    @Test("an endless pipe stops at --spool-limit, says so, and q quits at once")
    func spoolLimit() throws {
        let pane = try TmuxPane("yes a,b | \(binary) --spool-limit 1M", width: 100, height: 8)
        // 1 MiB of "a,b\n" is 262,144 records: the header and 262,143 data rows.
        var lines = try pane.waitFor("the pause") { status($0).contains("paused at 1 MiB: --spool-limit 1M") }
        #expect(status(lines).contains("row 1/262,143+"))
        // It stays there: the producer waits on the pipe.
        try pane.send("G")
        try pane.waitFor("the last row") { status($0).contains("row 262,143/262,143+") }
        try pane.send("g")
        lines = try pane.waitFor("the first row") { status($0).contains("row 1/262,143+") }
        #expect(status(lines).contains("paused at 1 MiB: --spool-limit 1M"))
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
    }

    @Test("stdin closed: one error line and exit 1, no screen")
    func closedStandardInput() throws {
        for extra in ["", "--output csv "] {
            let pane = try TmuxPane("\(binary) \(extra)<&-", width: 100, height: 8)
            #expect(try pane.waitForExit()?.hasPrefix("[exit=1 ") == true)
            let lines = try pane.screen().filter { !$0.isEmpty }
            #expect(lines.first == "csvfreeze: standard input is closed: give a FILE, or pipe data in")
            #expect(lines.count == 2)
        }
    }

    @Test("a FIFO with no writer: the screen says it waits, shows the data when a writer comes, q quits while waiting")
    func fifoWithoutWriter() throws {
        let pane = try TmuxPane("mkfifo data.fifo && \(binary) data.fifo", width: 100, height: 8)
        try pane.waitFor("the wait") { status($0).contains("waiting for a writer to open data.fifo") }
        let fifo = pane.directory.appendingPathComponent("data.fifo").path
        try run(["/bin/sh", "-c", "printf 'id,name\\n1,Ann\\n2,Bo\\n' > \(shellQuote(fifo))"])
        let lines = try pane.waitFor("the rows") { status($0).contains("row 1/2") && !status($0).contains("+") }
        #expect(lines.contains { $0.contains("Ann") })

        let waiting = try TmuxPane("mkfifo data.fifo && \(binary) data.fifo", width: 100, height: 8)
        try waiting.waitFor("the wait") { status($0).contains("waiting for a writer") }
        try waiting.send("q")
        #expect(try waiting.waitForExit()?.hasPrefix("[exit=0 ") == true)
    }

    @Test("--echo column on a FIFO prints the column from what was read, never waits for a writer that is gone")
    func echoColumnOfFIFO() throws {
        let pane = try TmuxPane("mkfifo data.fifo && (printf 'id,v\\n1,a\\n2,bee\\n' > data.fifo &) && \(binary) --echo column data.fifo",
                                width: 100, height: 8)
        try pane.waitFor("the rows") { status($0).contains("row 1/2") && !status($0).contains("+") }
        try pane.send("Right")
        try pane.send("Enter")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        let screen = try pane.screen()
        #expect(screen.contains("a") && screen.contains("bee"), "\(screen)")
    }

    @Test("a /proc file (size 0, yet with content) is read as a stream")
    func procFile() throws {
        let pane = try TmuxPane("\(binary) --no-header /proc/self/status", width: 100, height: 8)
        let lines = try pane.waitFor("the rows") { status($0).contains("row 1/") && !status($0).contains("+") }
        #expect(!status(lines).contains("empty input"))
        #expect(lines.contains { $0.contains("Umask:") })
    }

    @Test("a file cut short while open: G and jumps say it changed and offer R; R reads it again")
    func truncatedWhileOpen() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("shrinking.csv")
        try Data(("id,v\n" + (1...5000).map { "\($0),x\($0)\n" }.joined()).utf8).write(to: file)
        let pane = try TmuxPane("\(binary) \(shellQuote(file.path))", width: 100, height: 8)
        try pane.waitFor("the whole file") { status($0).contains("row 1/5,000") && !status($0).contains("+") }
        // Truncated in place (the same inode), as `: > file` or a rewrite does.
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(("id,v\n" + (1...100).map { "\($0),y\($0)\n" }.joined()).utf8))
        try handle.close()
        try pane.send("G")
        try pane.waitFor("the warning") { status($0).contains("file shorter on disk now: R reloads") }
        try pane.send("R")
        let lines = try pane.waitFor("the new content") { status($0).contains("/100") && !status($0).contains("shorter") }
        #expect(lines.contains { $0.contains("y100") })
    }

    @Test("--follow goes on after a truncation (copytruncate rotation), from the new start, and says so")
    func followAfterTruncation() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("app.log")
        try Data((1...50).map { "old \($0)\n" }.joined().utf8).write(to: file)
        let pane = try TmuxPane("\(binary) -f --no-header \(shellQuote(file.path))", width: 100, height: 8)
        try pane.waitFor("following") { status($0).contains("row 1/50+") && status($0).contains("following") }
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("new 1\nnew 2\n".utf8))
        try handle.close()
        var lines = try pane.waitFor("the new start") {
            status($0).contains("file truncated: following from its new start") && status($0).contains("row 2/2+")
        }
        #expect(lines.contains { $0.contains("new 1") })
        #expect(!lines.contains { $0.contains("old ") })
        // And it keeps following.
        let appender = try FileHandle(forWritingTo: file)
        try appender.seekToEnd()
        try appender.write(contentsOf: Data((3...12).map { "new \($0)\n" }.joined().utf8))
        try appender.close()
        // Followed at the end, as `tail -F` does.
        lines = try pane.waitFor("growth after the truncation") { status($0).contains("row 12/12+") }
        #expect(lines.contains { $0.contains("new 12") })
    }
}
