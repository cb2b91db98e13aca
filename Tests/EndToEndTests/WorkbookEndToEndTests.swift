import Foundation
import Testing
import TestSupport

/// Excel workbooks in a real terminal and through --output: the cells as Excel shows them,
/// the refusals in one line, and the workbook never written over.
@Suite("Workbooks end to end", .serialized, .timeLimit(.minutes(30)))
struct WorkbookEndToEndTests {
    let binary = shellQuote(Paths.binary)
    static let fixtures = Paths.package.appendingPathComponent("Tests/Fixtures/xlsx")

    @Test("an .xlsx opens on its first sheet: strings, numbers as stored, booleans, errors, dates as ISO")
    func seeTheCells() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("shared.xlsx"), to: dir.appendingPathComponent("book.xlsx"))
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) book.xlsx", width: 100, height: 40)
        let screen = try pane.waitFor("the whole sheet") { $0.contains { $0.contains("row 1/33") } }
        let text = screen.joined(separator: "\n")
        for cell in ["name", "value", "shared string", "plain text", "0.3", "1.234567890123457e+19", "TRUE", "#N/A",
                     "Zürich — 東京 🎉", "2024-02-29", "13:45:30", "2023-06-15T08:30:15.250", "first cell of B:C"] {
            #expect(text.contains(cell), "\(cell) not on screen:\n\(text)")
        }
        try pane.send("q")
        _ = try pane.waitForExit()
    }

    @Test("edits are never saved over the workbook (one line says why); to a new name they are, as CSV")
    func neverOverTheWorkbook() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let book = dir.appendingPathComponent("book.xlsx")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("values.xlsx"), to: book)
        let before = try Data(contentsOf: book)
        let pane = try TmuxPane("cd \(shellQuote(dir.path)) && \(binary) book.xlsx", width: 120, height: 12)
        try pane.waitFor("the sheet") { $0.contains { $0.contains("row 1/33") } }
        try pane.send("e")
        try pane.waitFor("the edit prompt") { $0.contains { $0.contains("edit: shared string") } }
        try pane.send("C-u")
        try pane.send("-l", "changed")
        try pane.send("Enter")
        try pane.waitFor("the change counted") { $0.contains { $0.contains("1 changed, unsaved") } }
        try pane.send("C-s")
        try pane.waitFor("the save prompt") { $0.contains { $0.contains("save the edits to:") } }
        try pane.send("-l", "book.xlsx")
        try pane.send("Enter")
        try pane.waitFor("the refusal") { $0.contains { $0.contains("not saved: book.xlsx is an Excel workbook") } }
        #expect(try Data(contentsOf: book) == before)
        try pane.send("C-s")
        try pane.waitFor("the save prompt again") { $0.contains { $0.contains("save the edits to:") } }
        try pane.send("-l", "book.csv")
        try pane.send("Enter")
        try pane.waitFor("the save") { $0.contains { $0.contains("saved 1 edit") } }
        try pane.send("q")
        _ = try pane.waitForExit()
        #expect(try Data(contentsOf: book) == before)
        let saved = String(decoding: try Data(contentsOf: dir.appendingPathComponent("book.csv")), as: UTF8.self)
        #expect(saved.hasPrefix("name,value,note,,\nchanged,plain text,same text twice,,\n"), "\(saved.prefix(200))")
    }

    @Test("without --table, --output, --frequency, --sql and --diff of a workbook of several sheets are refused as a database's tables are; one sheet is written")
    func severalSheetsNeedTable() throws {
        let path = Self.fixtures.appendingPathComponent("values.xlsx").path
        let line = "csvfreeze: \(path) holds 3 sheets: --table NAME writes one (Values, Second sheet, Header only)\n"
        for arguments in [["--output", "csv"], ["--output", "json"], ["--frequency", "name"]] {
            let refused = try run([Paths.binary] + arguments + [path])
            #expect(refused.status == 2 && refused.stdout.isEmpty, "\(arguments)")
            #expect(refused.stderr == line, "\(arguments)")
        }
        // --sql and --diff too (both took the first sheet without a word).
        let values = Self.fixtures.appendingPathComponent("values.Values.csv").path
        for arguments in [["--sql", "select count(*) from t"], ["--diff", path, values], ["--diff", values, path]] {
            let refused = try run([Paths.binary] + arguments + (arguments[0] == "--sql" ? [path] : []))
            #expect(refused.status == 2 && refused.stdout.isEmpty, "\(arguments): \(refused.status) \(refused.text)")
            #expect(refused.stderr == line, "\(arguments): \(refused.stderr)")
        }
        let counted = try run([Paths.binary, "--sql", "select count(*) from t", "--output", "csv", "--table", "Values", path])
        #expect(counted.status == 0 && counted.text == "count(*)\n33\n", "\(counted.text) \(counted.stderr)")
        let compared = try run([Paths.binary, "--diff", values, "--table", "Values", path])
        #expect(compared.status == 0, "\(compared.text) \(compared.stderr)")
        let second = try run([Paths.binary, "--output", "csv", "--table", "Second sheet", path])
        #expect(second.status == 0)
        #expect(second.stdout == (try Data(contentsOf: Self.fixtures.appendingPathComponent("values.Second sheet.csv"))))
        let one = try run([Paths.binary, "--output", "csv", Self.fixtures.appendingPathComponent("raw.xlsx").path])
        #expect(one.status == 0 && one.stderr.isEmpty)
        #expect(one.stdout == (try Data(contentsOf: Self.fixtures.appendingPathComponent("raw.Raw.csv"))))
        // A database of several tables says the same.
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("two.db").path
        try DatabaseFixture.make(at: db, "CREATE TABLE a(x); CREATE TABLE b(y)")
        let database = try run([Paths.binary, "--output", "csv", db])
        #expect(database.status == 2 && database.stderr == "csvfreeze: \(db) holds 2 tables: --table NAME writes one (a, b)\n")
    }

    @Test("--output csv writes a sheet as openpyxl reads it; an old .xls or a cut workbook is one line and exit 1")
    func outputsAndRefusals() throws {
        let values = try run([Paths.binary, "--output", "csv", "--table", "Values", Self.fixtures.appendingPathComponent("values.xlsx").path])
        #expect(values.status == 0 && values.stderr.isEmpty)
        #expect(values.stdout == (try Data(contentsOf: Self.fixtures.appendingPathComponent("values.Values.csv"))))
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = dir.appendingPathComponent("old.xls")
        try Data([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 504)).write(to: old)
        let refused = try run([Paths.binary, "--output", "csv", old.path])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "csvfreeze: \(old.path): encrypted or an old .xls workbook: not read (Excel saves it as an .xlsx without a password)\n")
        let cut = dir.appendingPathComponent("cut.xlsx")
        let whole = try Data(contentsOf: Self.fixtures.appendingPathComponent("values.xlsx"))
        try whole.prefix(whole.count - 100).write(to: cut)
        let cutRun = try run([Paths.binary, "--output", "csv", cut.path])
        #expect(cutRun.status == 1)
        #expect(cutRun.stderr.hasPrefix("csvfreeze: \(cut.path): ") && cutRun.stderr.filter { $0 == "\n" }.count == 1,
                "\(cutRun.stderr)")
    }
}
