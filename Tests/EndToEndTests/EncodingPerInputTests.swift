import Foundation
import Testing

/// `--encoding` for each input (a comma list matched to the inputs in order: FILE then
/// OTHER for a diff), and a byte-order mark that wins over any name, said once.
@Suite("An encoding per input, and the byte-order mark first", .serialized, .timeLimit(.minutes(30)))
struct EncodingPerInputTests {
    let binary = Paths.binary
    static let text = "name,city\nJosé,Zürich\n"

    /// `l1.csv` (Latin-1), `u16.csv` (UTF-16LE with its byte-order mark), `u16.csv.gz`
    /// (the same, compressed) and `u8.csv` (UTF-8 with its byte-order mark).
    func files() throws -> URL {
        let dir = try Paths.temporaryDirectory()
        try Data(Self.text.unicodeScalars.map { UInt8($0.value) }).write(to: dir.appendingPathComponent("l1.csv"))
        let utf16: [UInt8] = [0xFF, 0xFE] + Self.text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        try Data(utf16).write(to: dir.appendingPathComponent("u16.csv"))
        try Data([0xEF, 0xBB, 0xBF] + Array(Self.text.utf8)).write(to: dir.appendingPathComponent("u8.csv"))
        let gzip = try run(["/bin/sh", "-c", "cd \(shellQuote(dir.path)) && gzip -c u16.csv > u16.csv.gz"])
        try #require(gzip.status == 0)
        return dir
    }

    @Test("--encoding A,B gives each input its own, in order; an empty item is the default; a diff's is OLD,NEW")
    func perInput() throws {
        let dir = try files()
        defer { try? FileManager.default.removeItem(at: dir) }
        let l1 = dir.appendingPathComponent("l1.csv").path, u8 = dir.appendingPathComponent("u8.csv").path
        let both = try run([binary, "--encoding", "latin1,", "--output", "csv", l1, u8])
        #expect(both.status == 0 && both.stderr.isEmpty, "\(both.stderr)")
        #expect(both.text == "file,name,city\n\(l1),José,Zürich\n\(u8),José,Zürich\n")
        let swapped = try run([binary, "--encoding", ",latin1", "--output", "csv", u8, l1])
        #expect(swapped.text == "file,name,city\n\(u8),José,Zürich\n\(l1),José,Zürich\n", "\(swapped.text)")
        let diff = try run([binary, "--encoding", "latin1,utf-8", l1, "--diff", u8, "--output", "csv"])
        #expect(diff.status == 0, "the same table in two encodings: \(diff.text) \(diff.stderr)")
        let oneForAll = try run([binary, "--encoding", "latin1", "--diff", l1, l1, "--output", "csv"])
        #expect(oneForAll.status == 0)
        let sql = try run([binary, "--encoding", "latin1,", "--output", "csv", "--sql", "select l1.city = u8.city from l1, u8", l1, u8])
        #expect(sql.status == 0 && sql.text.hasSuffix("\n1\n"), "\(sql.text) \(sql.stderr)")
        let wrong = try run([binary, "--encoding", "latin1,utf-8,utf-8", "--output", "csv", l1, u8])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("--encoding names 3 encodings for 2 inputs: give one for all, or one for each in order"))
        let single = try run([binary, "--encoding", "latin1,utf-8", "--output", "csv", l1])
        #expect(single.status == 64)
    }

    @Test("a byte-order mark wins over --encoding, in every output mode, and one line on stderr says so", arguments: [
        ["--output", "csv"], ["--sort", "city", "--output", "csv"], ["--summary", "--output", "csv"], ["--frequency", "city"],
    ])
    func markWins(mode: [String]) throws {
        let dir = try files()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["u16.csv", "u16.csv.gz"] {
            let path = dir.appendingPathComponent(name).path
            let result = try run([binary, "--encoding", "latin1"] + mode + [path])
            #expect(result.status == 0, "\(name) \(mode): \(result.stderr)")
            #expect(result.text.contains("Zürich") && !result.text.contains("Ã"), "\(name) \(mode): \(result.text)")
            #expect(result.stderr == "csvfreeze: \(path): read as UTF-16LE, as its byte-order mark says, not --encoding LATIN1\n",
                    "\(name) \(mode): \(result.stderr)")
        }
        for name in ["u16.csv", "u8.csv"] {
            let bytes = try Data(contentsOf: dir.appendingPathComponent(name))
            let piped = try run([binary, "--encoding", "latin1"] + mode + ["-"], stdin: bytes)
            #expect(piped.text.contains("Zürich") && !piped.text.contains("Ã"), "\(name) through a pipe \(mode): \(piped.text)")
            #expect(piped.stderr.hasPrefix("csvfreeze: stdin: read as UTF-"), "\(name) through a pipe \(mode): \(piped.stderr)")
        }
        let agreeing = try run([binary, "--encoding", "utf-16"] + mode + [dir.appendingPathComponent("u16.csv").path])
        #expect(agreeing.status == 0 && agreeing.stderr.isEmpty, "a name the mark agrees with: \(agreeing.stderr)")
        let utf8 = dir.appendingPathComponent("u8.csv").path
        let marked = try run([binary, "--encoding", "latin1"] + mode + [utf8])
        #expect(marked.text.contains("Zürich") && !marked.text.contains("Ã"), "UTF-8's mark too: \(marked.text)")
        #expect(marked.stderr == "csvfreeze: \(utf8): read as UTF-8, as its byte-order mark says, not --encoding LATIN1\n")
    }

    @Test("a byte-order mark that overrules --encoding is said on the status line")
    func markOnScreen() throws {
        let dir = try files()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) --encoding latin1 u16.csv", width: 100, height: 6)
        let lines = try pane.waitFor("the note") { lines in lines.contains { $0.contains("byte-order mark") } }
        #expect(lines.last(where: { !$0.isEmpty })?.contains("read as UTF-16LE, as its byte-order mark says, not --encoding LATIN1") == true)
        #expect(lines.contains { $0.contains("Zürich") })
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
    }
}
