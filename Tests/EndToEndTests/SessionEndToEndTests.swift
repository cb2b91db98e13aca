import Foundation
import Testing

/// The session kept per file: what is left on quitting comes back on reopening.
@Suite("Sessions: a file reopened as it was left", .serialized, .timeLimit(.minutes(30)))
struct SessionEndToEndTests {
    let binary = shellQuote(Paths.binary)
    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    /// A folder with `prices.csv` (200 rows) and a state folder of its own.
    func setUp() throws -> (file: String, state: String) {
        let directory = try Paths.temporaryDirectory()
        var text = "id,name,price\n"
        for index in 1...200 { text += "\(index),n\(index % 7),\((index * 7919) % 1000)\n" }
        let file = directory.appendingPathComponent("prices.csv").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return (file, directory.appendingPathComponent("state").path)
    }

    func open(_ file: String, state: String, _ options: String = "") throws -> TmuxPane {
        try TmuxPane("XDG_STATE_HOME=\(shellQuote(state)) \(binary) \(options) \(shellQuote(file))", width: 80, height: 16)
    }

    @Test("Sorted, marked, moved, quit: reopened, the view is restored and says so; the session is private")
    func restored() throws {
        let (file, state) = try setUp()
        let pane = try open(file, state: state)
        try pane.waitFor("the first screen") { status($0).contains("row 1/200") }
        try pane.send("l", "l", "]")
        try pane.waitFor("the sort") { status($0).contains("sorted by price ↓") }
        try pane.send("m", "j", "m", "4", "j")
        let before = try pane.waitFor("two marks, the cursor on row 6") { status($0).contains("row 6/200") && status($0).contains("2 marks") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        // Private: the folder 0700, the session 0600.
        let folder = state + "/csvfreeze"
        // The session, and its sort's order in a data file of its own.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("session-") }.sorted()
        try #require(names.count == 2 && names[1].hasPrefix(names[0] + "."), "\(names)")
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(folderMode == 0o700, "\(String(folderMode ?? 0, radix: 8))")
        for name in names {
            let fileMode = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.posixPermissions] as? Int
            #expect(fileMode == 0o600, "\(name): \(String(fileMode ?? 0, radix: 8))")
        }
        let orderMade = try FileManager.default.attributesOfItem(atPath: folder + "/" + names[1])[.systemFileNumber] as? Int

        let again = try open(file, state: state)
        // The sort runs again: its rows come a moment after the note.
        try again.waitFor("the note") { status($0).contains("restored: sorted by price, 2 marks") }
        let lines = try again.waitFor("the restored rows") { $0.count > 7 && $0[1].hasPrefix("•") && $0[2].hasPrefix("•") }
        #expect(Array(lines[0..<7]) == Array(before[0..<7]), "the same rows, the same marks:\n\(lines.joined(separator: "\n"))")
        #expect(lines[1].hasPrefix("•") && lines[2].hasPrefix("•") && !lines[3].hasPrefix("•"))
        try again.send("j")
        try again.waitFor("the cursor where it was") { status($0).contains("row 7/200") && status($0).contains("sorted by price ↓") }
        try again.send("q")
        _ = try again.waitForExit()
        // The same sort: quitting referred to its order's data file again, not wrote it anew.
        let namesAfter = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("session-") }.sorted()
        #expect(namesAfter == names, "\(namesAfter)")
        let orderNow = try FileManager.default.attributesOfItem(atPath: folder + "/" + names[1])[.systemFileNumber] as? Int
        #expect(orderNow != nil && orderNow == orderMade)

        // A byte changed inside the order's data file: the order is dropped, said in one
        // line, sorted again: the same rows as left, never others.
        let data = folder + "/" + names[1]
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: data)))
        bytes[bytes.count / 2] ^= 0x04
        try Data(bytes).write(to: URL(fileURLWithPath: data))
        let damaged = try open(file, state: state)
        let noted = try damaged.waitFor("the note") { status($0).contains("the saved sort order is damaged: sorting again") }
        #expect(noted.count > 7)
        let remade = try damaged.waitFor("the rows sorted again") {
            $0.count > 7 && !status($0).contains("sorting…") && $0[1].hasPrefix("•")
        }
        #expect(Array(remade[1..<7]) == Array(before[1..<7]), "the same rows:\n\(remade.joined(separator: "\n"))")
        try damaged.send("j")
        try damaged.waitFor("sorted again") { status($0).contains("sorted by price ↓") }
        try damaged.send("q")
        _ = try damaged.waitForExit()

        // --fresh: not restored (and replaced by the plain view on quitting).
        let fresh = try open(file, state: state, "--fresh")
        let plain = try fresh.waitFor("a fresh view") { status($0).contains("row 1/200") }
        #expect(!status(plain).contains("restored") && !status(plain).contains("sorted"))
        try fresh.send("q")
        _ = try fresh.waitForExit()
        let after = try open(file, state: state)
        let unsorted = try after.waitFor("the plain view kept") { status($0).contains("row 1/200") }
        #expect(!status(unsorted).contains("sorted"), "\(status(unsorted))")
        try after.send("q")
        _ = try after.waitForExit()
    }

    @Test("Sorted and filtered, quit: reopened, the filter's rows come back as kept; quit again, their data file is named again; damaged, filtered again over the kept sort")
    func filterKept() throws {
        let (file, state) = try setUp()
        let pane = try open(file, state: state)
        try pane.waitFor("the first screen") { status($0).contains("row 1/200") }
        try pane.send("l", "l", "]")
        try pane.waitFor("the sort") { status($0).contains("sorted by price ↓") && !status($0).contains("sorting") }
        try pane.send("&")
        try pane.send("-l", "n3")
        try pane.send("Enter")
        try pane.waitFor("the filter") { status($0).contains("row 1/29") && status($0).contains("1 filter") }
        try pane.send("3", "j")
        let before = try pane.waitFor("the cursor on row 4") { status($0).contains("row 4/29") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        let folder = state + "/csvfreeze"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("session-") }.sorted()
        try #require(names.count == 3, "the session, its order and its filter's rows: \(names)")
        // The filter's rows: 200 bits, 32 bytes (the order: 3,200).
        let sizes = try names.map { try FileManager.default.attributesOfItem(atPath: folder + "/" + $0)[.size] as? Int ?? 0 }
        let bitmap = try #require(names.indices.first { $0 > 0 && sizes[$0] == 32 }.map { folder + "/" + names[$0] })
        let made = try FileManager.default.attributesOfItem(atPath: bitmap)[.systemFileNumber] as? Int

        let again = try open(file, state: state)
        let lines = try again.waitFor("the view restored, the filter's rows as kept") {
            status($0).contains("row 4/29") && status($0).contains("restored: sorted by price, 1 filter")
        }
        #expect(Array(lines[0..<7]) == Array(before[0..<7]), "the same rows:\n\(lines.joined(separator: "\n"))")
        try again.send("q")
        _ = try again.waitForExit()
        let namesAfter = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("session-") }.sorted()
        #expect(namesAfter == names, "\(namesAfter)")
        #expect(try FileManager.default.attributesOfItem(atPath: bitmap)[.systemFileNumber] as? Int == made, "named again, not written anew")

        // A byte changed in the filter's rows: said, filtered again over the kept sort, the same rows.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: bitmap)))
        bytes[3] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: bitmap))
        let damaged = try TmuxPane("XDG_STATE_HOME=\(shellQuote(state)) \(binary) \(shellQuote(file))", width: 140, height: 16)
        try damaged.waitFor("the note") { $0.contains { $0.contains("the saved filtered rows are damaged: filtering again") } }
        let remade = try damaged.waitFor("the rows filtered again") { status($0).contains("row 4/29") && !status($0).contains("filtering…") }
        #expect(Array(remade[1..<7].map { $0.prefix(70) }) == Array(before[1..<7].map { $0.prefix(70) }),
                "the same rows:\n\(remade.joined(separator: "\n"))")
        try damaged.send("j")
        try damaged.waitFor("filtered again over the sort") {
            status($0).contains("row 5/29") && status($0).contains("sorted by price ↓") && status($0).contains("1 filter")
        }
        try damaged.send("q")
        _ = try damaged.waitForExit()
    }

    @Test("A file changed since: opened fresh, and the status line says so")
    func changed() throws {
        let (file, state) = try setUp()
        let pane = try open(file, state: state)
        try pane.waitFor("the first screen") { status($0).contains("row 1/200") }
        try pane.send("m", "q")
        _ = try pane.waitForExit()
        // A byte changed in place (the same size): not the file the session was kept for.
        let handle = try #require(FileHandle(forWritingAtPath: file))
        handle.seek(toFileOffset: 20)
        handle.write(Data("9".utf8))
        try handle.close()
        let again = try open(file, state: state)
        let lines = try again.waitFor("the note") { status($0).contains("file changed since last time: view not restored") }
        #expect(!lines[1].hasPrefix("•"))
        try again.send("q")
        _ = try again.waitForExit()
    }

    @Test("A file that only grew: the view and its index for what was there come back, the rest is indexed on")
    func grew() throws {
        let (file, state) = try setUp()
        let pane = try open(file, state: state)
        try pane.waitFor("the first screen") { status($0).contains("row 1/200") }
        try pane.send("m", "4", "j", "q")
        _ = try pane.waitForExit()
        let handle = try #require(FileHandle(forWritingAtPath: file))
        handle.seekToEndOfFile()
        handle.write(Data("201,n5,17\n202,n6,18\n".utf8))
        try handle.close()
        // Wide enough for the note's aside.
        let again = try TmuxPane("XDG_STATE_HOME=\(shellQuote(state)) \(binary) \(shellQuote(file))", width: 140, height: 16)
        let lines = try again.waitFor("the view restored, every row counted") {
            status($0).contains("row 5/202") && $0.contains { $0.contains("restored: 1 mark (the file grew") }
        }
        #expect(lines[1].hasPrefix("•"), "\(lines.joined(separator: "\n"))")
        try again.send("G")
        try again.waitFor("the new last row") { $0.contains { $0.contains("202") && $0.contains("n6") && $0.contains("18") } }
        try again.send("q")
        _ = try again.waitForExit()
        // An appended file whose old end was changed too is not one that only grew.
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "201,n5,17\n", with: "201,n5,99\n") + "203,n0,1\n"
        let writer = try #require(FileHandle(forWritingAtPath: file))
        writer.write(Data(text.utf8))
        try writer.close()
        let changed = try open(file, state: state)
        try changed.waitFor("opened fresh") { status($0).contains("file changed since last time: view not restored") }
        try changed.send("q")
        _ = try changed.waitForExit()
    }

    @Test("--no-session neither reads nor writes one; standard input is never kept")
    func noSession() throws {
        let (file, state) = try setUp()
        let pane = try open(file, state: state, "--no-session")
        try pane.waitFor("the first screen") { status($0).contains("row 1/200") }
        try pane.send("m", "q")
        _ = try pane.waitForExit()
        let piped = try TmuxPane("cat \(shellQuote(file)) | XDG_STATE_HOME=\(shellQuote(state)) \(binary)", width: 80, height: 16)
        try piped.waitFor("the first screen") { status($0).contains("row 1/200") }
        try piped.send("m", "q")
        _ = try piped.waitForExit()
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: state + "/csvfreeze")) ?? []
        #expect(!kept.contains { $0.hasPrefix("session-") }, "\(kept)")
    }

    @Test("session = off in the config file is --no-session: none is read or written")
    func configOff() throws {
        let (file, state) = try setUp()
        let config = URL(fileURLWithPath: state).deletingLastPathComponent().appendingPathComponent("config").path
        try "session = off\n".write(toFile: config, atomically: true, encoding: .utf8)
        let pane = try TmuxPane("CSVFREEZE_CONFIG=\(shellQuote(config)) XDG_STATE_HOME=\(shellQuote(state)) \(binary) \(shellQuote(file))",
                                width: 80, height: 16)
        try pane.waitFor("the first screen") { status($0).contains("row 1/200") }
        try pane.send("m", "5", "j", "q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: state + "/csvfreeze")) ?? []
        #expect(!kept.contains { $0.hasPrefix("session-") }, "\(kept)")
        // The same without the line: one is kept.
        try "\n".write(toFile: config, atomically: true, encoding: .utf8)
        let on = try TmuxPane("CSVFREEZE_CONFIG=\(shellQuote(config)) XDG_STATE_HOME=\(shellQuote(state)) \(binary) \(shellQuote(file))",
                              width: 80, height: 16)
        try on.waitFor("the first screen") { status($0).contains("row 1/200") }
        try on.send("m", "q")
        _ = try on.waitForExit()
        let now = (try? FileManager.default.contentsOfDirectory(atPath: state + "/csvfreeze")) ?? []
        #expect(now.filter { $0.hasPrefix("session-") }.count == 1, "\(now)")
    }

    @Test("After Ctrl-S over the file, quitting keeps the session under the saved file's key: reopened, the view is restored")
    func keptAfterSave() throws {
        let (file, state) = try setUp()
        let pane = try open(file, state: state)
        try pane.waitFor("the first screen") { status($0).contains("row 1/200") }
        try pane.send("4", "j", "l", "e", "C-u")
        try pane.send("-l", "edited")
        try pane.send("Enter")
        try pane.waitFor("the edit") { status($0).contains("1 changed, unsaved") }
        try pane.send("C-s")
        try pane.waitFor("the save prompt") { $0.contains { $0.contains("save the edits to: ") } }
        try pane.send("Enter")
        try pane.waitFor("the save") { $0.contains { $0.contains("saved 1 edit") } }
        try pane.send("m", "j")
        try pane.waitFor("the saved file read, a mark") { status($0).contains("row 6/200") && status($0).contains("1 mark") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0 ") == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: state + "/csvfreeze").filter { $0.hasPrefix("session-") }
        #expect(names.count == 1, "the old file's session goes with it: \(names)")
        let again = try open(file, state: state)
        let lines = try again.waitFor("the view restored") { status($0).contains("row 6/200") && status($0).contains("restored") }
        #expect(lines.contains { $0.contains("edited") }, "\(lines.joined(separator: "\n"))")
        try again.send("q")
        _ = try again.waitForExit()
    }
}
