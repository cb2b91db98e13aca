import Foundation
import Testing

/// Ctrl-S in the frequency and summary sheets with the real binary writes the bytes the
/// command line writes for the same question; `--frequency`'s table tells the empty value
/// from a value that reads `(empty)`.
@Suite("Sheets saved as the command line writes them", .timeLimit(.minutes(30)))
struct SheetSaveEndToEndTests {
    let binary = Paths.binary

    /// `v` holds values over 1 MiB: two that share their first 2 MiB - 1 bytes, one twice,
    /// one with a comma and quotes (written quoted), and a short one.
    static func longValues() -> String {
        let mebibytes = 2 << 20
        let same = String(repeating: "A", count: mebibytes)
        let near = String(repeating: "A", count: mebibytes - 1) + "B"
        let quoted = "\"" + String(repeating: "C", count: 3 << 19) + ", \"\"said\"\"" + String(repeating: "C", count: 10) + "\""
        return "id,v\n1,\(same)\n2,\(near)\n3,\(same)\n4,short\n5,\(quoted)\n6,\(quoted)\n7,short\n"
    }

    /// In the viewer of `input` (in `dir`), types each step's keys and waits for its text on
    /// screen, saves with Ctrl-S to `name` and returns the file's bytes.
    func savedOnScreen(_ input: String, in dir: URL, steps: [(keys: [String], ready: String)], name: String) throws -> Data {
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) \(input)", width: 100, height: 14)
        try pane.waitFor("the table") { $0.contains { $0.contains("row 1/") } }
        for step in steps {
            for key in step.keys { try pane.send(key) }
            try pane.waitFor(step.ready) { $0.contains { $0.contains(step.ready) } }
        }
        try pane.send("C-s")
        try pane.waitFor("the prompt") { $0.contains { $0.contains("write the view to") } }
        try pane.send(name, "Enter")
        let screen = try pane.waitFor("the file written") { $0.contains { $0.contains("to \(name)") } }
        #expect(screen.contains { $0.contains("wrote") }, "\(screen)")
        try pane.send("q")
        try pane.send("q")
        _ = try pane.waitForExit()
        return try Data(contentsOf: dir.appendingPathComponent(name))
    }

    /// Where two outputs first differ, with a little of each from there.
    func firstDifference(_ one: Data, _ other: Data) -> String {
        let place = zip(one, other).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(one.count, other.count)
        func excerpt(_ data: Data) -> String { String(decoding: data.dropFirst(place).prefix(60), as: UTF8.self) }
        return "from byte \(place): \(excerpt(one).debugDescription) vs \(excerpt(other).debugDescription)"
    }

    func directory(_ files: [String: String]) throws -> URL {
        let dir = try Paths.temporaryDirectory()
        for (name, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        return dir
    }

    @Test("Ctrl-S in the # sheet writes --frequency --output csv's bytes: values over 1 MiB whole, not their start")
    func frequencyWithLongValues() throws {
        let dir = try directory(["long.csv": Self.longValues()])
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = try savedOnScreen("long.csv", in: dir, steps: [(["l", "#"], "distinct values")], name: "freq.csv")
        let output = try run([binary, "--frequency", "v", "--output", "csv", dir.appendingPathComponent("long.csv").path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.count > 4 << 20, "the command line writes the long values whole")
        // Compared as a Bool: a failed `==` of megabytes has the test library diff them.
        let same = saved == output.stdout
        #expect(same, "saved \(saved.count) bytes, the command line wrote \(output.stdout.count): \(firstDifference(saved, output.stdout))")
    }

    @Test("with a filter in force, the # sheet's file is --frequency's with the same filter")
    func frequencyFiltered() throws {
        let dir = try directory(["long.csv": Self.longValues()])
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = try savedOnScreen("long.csv", in: dir, steps: [(["&", "^[2-6]$", "Enter"], "1 filter"), (["l", "#"], "distinct values")],
                                      name: "freq.csv")
        let output = try run([binary, "--frequency", "v", "--filter", "^[2-6]$", "--output", "csv",
                              dir.appendingPathComponent("long.csv").path])
        #expect(output.status == 0, "\(output.stderr)")
        // Compared as a Bool: a failed `==` of megabytes has the test library diff them.
        let same = saved == output.stdout
        #expect(same, "saved \(saved.count) bytes, the command line wrote \(output.stdout.count): \(firstDifference(saved, output.stdout))")
    }

    @Test("Ctrl-S in the I sheet writes --summary --output csv's bytes")
    func summary() throws {
        let dir = try directory(["long.csv": Self.longValues()])
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = try savedOnScreen("long.csv", in: dir, steps: [(["I"], "Enter: the column")], name: "summary.csv")
        let output = try run([binary, "--summary", "--output", "csv", dir.appendingPathComponent("long.csv").path])
        #expect(output.status == 0, "\(output.stderr)")
        let same = saved == output.stdout
        #expect(same, "saved \(saved.count) bytes, the command line wrote \(output.stdout.count): \(firstDifference(saved, output.stdout))")
    }

    @Test("the empty value saved from the # sheet is an empty field, a real (empty) itself, as --frequency writes")
    func frequencyEmptyValue() throws {
        let text = "v\n(empty)\n\n(empty)\nx\n"
        let dir = try directory(["emp.csv": text])
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = try savedOnScreen("emp.csv", in: dir, steps: [(["#"], "distinct values")], name: "freq.csv")
        let output = try run([binary, "--frequency", "v", "--output", "csv", dir.appendingPathComponent("emp.csv").path])
        #expect(output.text == "value,count,percent\n(empty),2,50.00\n,1,25.00\nx,1,25.00\n")
        #expect(saved == output.stdout)
    }

    @Test("--frequency's table shows the empty value as (empty), and a value that reads so (or starts with a quote) quoted")
    func tableTellsTheEmptyValueApart() throws {
        let dir = try directory(["emp.csv": "v\n(empty)\n\n(empty)\nx\n\"\"\"(empty)\"\"\"\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let table = try run([binary, "--frequency", "v", dir.appendingPathComponent("emp.csv").path])
        #expect(table.status == 0)
        #expect(table.text == """
            value          count  percent
            ─────────────────────────────
            "(empty)"          2    40.00
            (empty)            1    20.00
            x                  1    20.00
            \"""(empty)\"""      1    20.00

            """)
    }
}
