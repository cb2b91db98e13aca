#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Editing with the real binary in tmux: a cell changed and a record deleted, saved over
/// the file with Ctrl-S; the file's bytes are checked whole, and `--diff` of the saved file
/// against the original lists exactly the edits.
@Suite("Edit and save on screen", .timeLimit(.minutes(30)))
struct EditEndToEndTests {
    let binary = Paths.binary

    /// A byte-order mark, a `#` preamble, CRLF line ends, quoting a writer would not choose,
    /// and a last record with no line end: every byte of it not edited must stay.
    static let original = "\u{FEFF}# exported today\r\nid,name,note\r\n1,\"Ann\",\"a, b\"\r\n2,Bob,plain\r\n3,Cy,\"two\r\nlines\"\r\n4,Di,last"
    static let saved = "\u{FEFF}# exported today\r\nid,name,note\r\n1,\"Ann\",\"a, b\"\r\n2,\"Bo, \"\"B\"\"\",plain\r\n4,Di,last"

    /// Opens `name` in `dir`, changes row 2's name to `Bo, "B"` and deletes row 3, saves
    /// over the file with Ctrl-S and Enter, and quits.
    func editAndSave(_ name: String, in dir: URL) throws {
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) \(name)", width: 100, height: 12)
        try pane.waitFor("the table") { $0.contains { $0.contains("row 1/4") } }
        try pane.send("j", "l", "e")
        try pane.waitFor("the edit prompt") { $0.contains { $0.contains("edit: Bob") } }
        try pane.send("C-u")
        try pane.send("-l", "Bo, \"B\"")
        try pane.send("Enter")
        try pane.waitFor("the change counted") { $0.contains { $0.contains("1 changed, unsaved") } }
        try pane.send("j", "x")
        try pane.waitFor("the deletion") { $0.contains { $0.contains("row deleted when saved") } }
        try pane.send("Right")
        try pane.waitFor("the edits counted") { $0.contains { $0.contains("1 changed, 1 deleted, unsaved") } }
        // q with unsaved edits asks first.
        try pane.send("q")
        try pane.waitFor("the question") { $0.contains { $0.contains("2 unsaved changes: Ctrl-S saves") } }
        try pane.send("C-s")
        try pane.waitFor("the save prompt") { $0.contains { $0.contains("save the edits to: ") && $0.contains(name) } }
        try pane.send("Enter")
        let screen = try pane.waitFor("the save") { $0.contains { $0.contains("saved 2 edits") } }
        #expect(!screen.contains { $0.contains("unsaved") }, "\(screen)")
        // The table now reads the saved file: three rows, none marked.
        try pane.waitFor("the saved file read") { $0.contains { $0.contains("/3") } }
        try pane.send("q")
        let exit = try pane.waitForExit()
        #expect(exit?.hasPrefix("[exit=0") == true, "\(exit ?? "no exit")")
    }

    @Test("e and x, then Ctrl-S: the file holds every untouched byte as it was, the edited record in its own dialect")
    func plainFile() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("t.csv")
        let before = dir.appendingPathComponent("before.csv")
        try Data(Self.original.utf8).write(to: file)
        try Data(Self.original.utf8).write(to: before)
        chmod(file.path, 0o604)
        try editAndSave("t.csv", in: dir)
        let bytes = try Data(contentsOf: file)
        #expect(bytes == Data(Self.saved.utf8), "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
        var info = stat()
        stat(file.path, &info)
        #expect(info.st_mode & 0o777 == 0o604, "the file keeps its permissions")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["before.csv", "t.csv"])
        // --diff of the saved file against the original: exactly the edits.
        let diff = try run([binary, "--diff", file.path, before.path, "--output", "csv"])
        #expect(diff.status == 1, "\(diff.stderr)")
        let lines = diff.text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let changes = lines.filter { $0.hasPrefix("->") || $0.hasPrefix("---") || $0.hasPrefix("+++") }
        #expect(changes.count == 2, "\(diff.text)")
        #expect(changes.contains { $0.hasPrefix("->") && $0.contains("Bob->") }, "\(diff.text)")
        #expect(changes.contains { $0.hasPrefix("---") && $0.contains("Cy") }, "\(diff.text)")
    }

    @Test("SIGTERM with unsaved edits: a private journal of them under $XDG_STATE_HOME/csvfreeze/recovery, stderr says where; --recover makes them again")
    func signalKeepsEdits() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("t.csv")
        try Data(Self.original.utf8).write(to: file)
        let state = dir.appendingPathComponent("state")
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && { XDG_STATE_HOME=\(shellQuote(state.path)) \(binary) t.csv & echo $! > pid; wait $!; }",
                                width: 220, height: 12)
        try pane.waitFor("the table") { $0.contains { $0.contains("row 1/4") } }
        try pane.send("j", "l", "e", "C-u")
        try pane.send("-l", "Bo, \"B\"")
        try pane.send("Enter")
        try pane.waitFor("the change counted") { $0.contains { $0.contains("1 changed, unsaved") } }
        try pane.send("j", "x")
        try pane.waitFor("the deletion") { $0.contains { $0.contains("row deleted when saved") } }
        let pid = try String(contentsOf: dir.appendingPathComponent("pid"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(kill(pid_t(pid) ?? 0, SIGTERM) == 0)
        let exit = try pane.waitForExit()
        #expect(exit?.hasPrefix("[exit=143") == true, "\(exit ?? "no exit")")
        let screen = try pane.screen().joined(separator: "\n")
        #expect(screen.contains("csvfreeze: 2 unsaved edits of t.csv kept in "), "\(screen)")
        let folder = state.appendingPathComponent("csvfreeze/recovery")
        let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        try #require(kept.count == 1 && kept.first?.hasSuffix("-t.csv.edits") == true, "\(kept)")
        let journal = folder.appendingPathComponent(kept[0]).path
        // The line wraps on the pane: read it whole.
        #expect(try pane.screen().joined().contains("--recover \(journal) t.csv"), "\(screen)")
        var info = stat()
        #expect(stat(journal, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_size < 400, "a small private journal")
        #expect(stat(folder.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(try Data(contentsOf: file) == Data(Self.original.utf8), "the file itself is not written")
        // Written with the edits made again: what the save would have written.
        let written = try run([binary, "--recover", journal, file.path, "--output", "csv"])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout == Data(Self.saved.utf8), "\(written.text.debugDescription)")
        // On screen: the edits are there, unsaved, and U takes them back.
        let again = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) --recover \(shellQuote(journal)) t.csv", width: 220, height: 12)
        try again.waitFor("the edits recovered") {
            $0.contains { $0.contains("2 unsaved edits recovered from") } && $0.contains { $0.contains("Bo, \"B\"") }
        }
        try again.send("U")
        try again.waitFor("the edits undone") { $0.contains { $0.contains("undone:") } && !$0.contains { $0.contains("Bo, \"B\"") } }
        try again.send("q")
        #expect(try again.waitForExit()?.hasPrefix("[exit=0") == true)
        // A corrupt journal, and a file changed since: one line, exit 65, nothing written.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
        bytes[bytes.count / 2] ^= 0xFF
        let corrupt = dir.appendingPathComponent("corrupt.edits")
        try bytes.write(to: corrupt)
        let refused = try run([binary, "--recover", corrupt.path, file.path, "--output", "csv"])
        #expect(refused.status == 65 && refused.stderr.contains("it is corrupt") && refused.stdout.isEmpty, "\(refused.stderr)")
        try Data((Self.original + "\r\n5,Ed,more").utf8).write(to: file)
        let changed = try run([binary, "--recover", journal, file.path, "--in-place"])
        #expect(changed.status == 65 && changed.stderr.contains("changed since the edits"), "\(changed.stderr)")
        #expect(changed.stderr.filter { $0 == "\n" }.count == 1)
        #expect(try Data(contentsOf: file) == Data((Self.original + "\r\n5,Ed,more").utf8))
        // Put back as it was (a copy: another inode, the same bytes and time), --in-place saves the edits over it.
        try Data(Self.original.utf8).write(to: file)
        var times = [timespec(tv_sec: 0, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: 0)]
        let decoded = try #require(try? Self.journalTime(journal))
        times[0] = decoded
        times[1] = decoded
        #expect(utimensat(AT_FDCWD, file.path, &times, 0) == 0)
        let saved = try run([binary, "--recover", journal, file.path, "--in-place"])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try Data(contentsOf: file) == Data(Self.saved.utf8))
    }

    /// The modification time a journal notes for its file (bytes 44..<60 of it).
    static func journalTime(_ path: String) throws -> timespec {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func int(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        return timespec(tv_sec: int(44), tv_nsec: int(52))
    }

    @Test("a gzip file is saved gzip: its text as a plain file's would be")
    func gzipFile() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(Self.original.utf8).write(to: dir.appendingPathComponent("t.csv"))
        let packed = try run(["/bin/sh", "-c", "cd \(shellQuote(dir.path)) && gzip t.csv"])
        try #require(packed.status == 0)
        try editAndSave("t.csv.gz", in: dir)
        let bytes = try Data(contentsOf: dir.appendingPathComponent("t.csv.gz"))
        #expect(bytes.prefix(2) == Data([0x1F, 0x8B]), "still gzip")
        let text = try run(["/bin/sh", "-c", "gzip -dc \(shellQuote(dir.appendingPathComponent("t.csv.gz").path))"])
        #expect(text.stdout == Data(Self.saved.utf8), "\(text.text.debugDescription)")
    }
}
