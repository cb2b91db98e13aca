import Foundation
import Testing
import CellStore
import FreezeLayout
import Scan
import Table
@testable import Viewer

/// Ctrl-S never writes over a file some table reads: not from a sheet, whose own table
/// has no file, and not over another open table's input.
@Suite("Writing the view never replaces an input", .timeLimit(.minutes(30)))
struct SaveOverInputTests {
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-inputs-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func open(_ url: URL, _ text: String) throws -> CellStore {
        try Data(text.utf8).write(to: url)
        let store = try CellStore.open(InputSpec(path: url.path))
        waitUntil("the index") { store.isComplete }
        return store
    }

    private func save(_ subject: Viewer, to path: String) -> String {
        subject.handle(key: Key.control("s"))
        for character in path + "\n" { subject.handle(key: character == "\n" ? .enter : .character(character)) }
        // Were it asked, the answer would be yes.
        if subject.promptLine != nil { subject.handle(key: .character("y")) }
        waitUntil("the save") {
            subject.handle(.refresh)
            return !subject.isSaving
        }
        return subject.frame().lines.last ?? ""
    }

    @Test("a frequency sheet's Ctrl-S onto the file it counts is refused; the file stays")
    func sheetOverItsFile() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("victim.csv")
        let text = "id,name\n1,Ann\n2,Bob\n"
        let store = try open(url, text)
        let table = Viewer(store: store, screenSize: Size(width: 60, height: 10))
        let input = try #require(ScanInput(store: store))
        let sheet = FrequencySheet(input: .bytes(input), column: 1, name: "name", headerRows: 1, records: nil, table: table)
        waitUntil("the count's end") {
            sheet.update()
            sheet.viewer.handle(.refresh)
            return sheet.viewer.source.isComplete
        }
        #expect(sheet.viewer.file == nil, "a sheet's rows are in memory")
        let said = save(sheet.viewer, to: url.path)
        #expect(said.contains("not written: that file is open here"), "\(said)")
        #expect(try String(contentsOf: url, encoding: .utf8) == text)
        // Through a symbolic link too: the write would follow it.
        let link = dir.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
        #expect(save(sheet.viewer, to: link.path).contains("not written"))
        #expect(try String(contentsOf: url, encoding: .utf8) == text)
        withExtendedLifetime(store) {}
    }

    @Test("another open table's input is refused; once no table reads it, it may be written")
    func otherTable() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shown = try open(dir.appendingPathComponent("jan.csv"), "a\n1\n")
        let otherURL = dir.appendingPathComponent("mar.csv")
        var other: CellStore? = try open(otherURL, "a\n9\n")
        let subject = Viewer(store: shown, screenSize: Size(width: 60, height: 10))
        #expect(save(subject, to: otherURL.path).contains("not written: that file is open here"))
        #expect(try String(contentsOf: otherURL, encoding: .utf8) == "a\n9\n")
        withExtendedLifetime(other) {}
        other = nil
        // A session's inputs stay claimed while it lasts, shown or not.
        var claim: OpenInputs.Claim? = OpenInputs.Claim(paths: [otherURL.path])
        #expect(OpenInputs.contains(path: otherURL.path))
        withExtendedLifetime(claim) {}
        claim = nil
        #expect(!OpenInputs.contains(path: otherURL.path))
        #expect(save(subject, to: otherURL.path).contains("wrote 1 row"))
        #expect(try String(contentsOf: otherURL, encoding: .utf8) == "a\n1\n")
    }
}
