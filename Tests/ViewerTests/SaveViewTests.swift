import Foundation
import Testing
import CellStore
import FreezeLayout
import Scan
import Table
@testable import Viewer

@Suite("Writing the view to a file (Ctrl-S)", .timeLimit(.minutes(30)))
struct SaveViewTests {
    private static let csv = "id,name,note\n1,Ann,\"a, b\"\n2,Bob,\"say \"\"hi\"\"\"\n3,Cy,\"two\nlines\"\n4,Di,plain\n"

    private func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-save-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func viewer(_ text: String = csv, path: URL? = nil) throws -> Viewer {
        let store: CellStore
        if let path {
            try Data(text.utf8).write(to: path)
            store = try CellStore.open(InputSpec(path: path.path))
            waitUntil("the index") { store.isComplete }
        } else {
            store = CellStore(bytes: Array(text.utf8))
        }
        return Viewer(store: store, screenSize: Size(width: 60, height: 10))
    }

    private func type(_ subject: Viewer, _ text: String) {
        subject.handle(key: Key.control("s"))
        for character in text { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    private func finish(_ subject: Viewer) {
        waitUntil("the save") {
            subject.handle(.refresh)
            return !subject.isSaving
        }
    }

    @Test("the view's rows in its order and its columns are written as CSV, quoted as needed")
    func writesTheView() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = try viewer()
        subject.show(rows: RecordList([3, 1, 2]), columns: ColumnMap(shown: [2, 1]))
        let target = folder.appendingPathComponent("out.csv").path
        type(subject, target + "\n")
        finish(subject)
        #expect(subject.frame().lines.last?.contains("wrote 3 rows to") == true)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written == "note,name\n\"two\nlines\",Cy\n\"a, b\",Ann\n\"say \"\"hi\"\"\",Bob\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.csv"], "no temporary file left")
    }

    @Test("the plain view is written whole; .tsv writes tab-separated")
    func plainAndTSV() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = try viewer("a,b\n1,2\n3,4\n")
        let target = folder.appendingPathComponent("out.tsv").path
        type(subject, target + "\n")
        finish(subject)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "a\tb\n1\t2\n3\t4\n")
    }

    @Test("Ctrl-S writes what --output csv writes: the input's own line ends, quotes and preamble, a cell over 1 MiB whole")
    func writesWhatOutputWrites() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let giant = String(repeating: "x", count: 1_200_000)
        let text = "\u{FEFF}id,name\r\n1,\"Ann\"\r\n2,\"\(giant)\"\n3,Cy\r"
        let subject = try viewer(text, path: folder.appendingPathComponent("in.csv"))
        let whole = folder.appendingPathComponent("whole.csv").path
        type(subject, whole + "\n")
        finish(subject)
        #expect(subject.frame().lines.last?.contains("wrote 3 rows") == true, "\(subject.message ?? "")")
        #expect(try Data(contentsOf: URL(fileURLWithPath: whole)) == Data(text.utf8), "the file, byte for byte")
        subject.show(rows: RecordList([3, 1]), columns: ColumnMap(shown: [1]))
        let picked = folder.appendingPathComponent("picked.csv").path
        type(subject, picked + "\n")
        finish(subject)
        #expect(subject.frame().lines.last?.contains("wrote 2 rows") == true, "\(subject.message ?? "")")
        #expect(try Data(contentsOf: URL(fileURLWithPath: picked)) == Data("\u{FEFF}name\r\nCy\r\nAnn\r\n".utf8))
    }

    @Test("an existing file is overwritten only after y; the file being viewed never is")
    func overwriting() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.csv")
        let subject = try viewer("a,b\n1,2\n", path: input)
        let target = folder.appendingPathComponent("old.csv").path
        try "keep me\n".write(toFile: target, atomically: true, encoding: .utf8)
        type(subject, target + "\n")
        #expect(subject.frame().lines.last?.contains("exists: overwrite it? (y or n)") == true)
        subject.handle(key: .character("n"))
        #expect(subject.promptLine == nil, "one key answers")
        #expect(!subject.isSaving)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
        type(subject, target + "\n")
        subject.handle(key: .character("y"))
        finish(subject)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "a,b\n1,2\n")
        type(subject, input.path + "\n")
        #expect(subject.frame().lines.last?.contains("not written: that is the file") == true, "\(subject.frame().lines.last ?? "")")
        #expect(try String(contentsOf: input, encoding: .utf8) == "a,b\n1,2\n")
    }

    @Test("a save that cannot be written says why; Esc cancels one that runs and leaves nothing")
    func failuresAndCancel() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = try viewer()
        type(subject, folder.appendingPathComponent("missing/out.csv").path + "\n")
        finish(subject)
        #expect(subject.frame().lines.last?.contains("not written: cannot write in") == true, "\(subject.frame().lines.last ?? "")")
        var big = "a,b\n"
        for index in 0..<300_000 { big += "\(index),\(index * 7)\n" }
        let large = try viewer(big)
        let target = folder.appendingPathComponent("big.csv").path
        type(large, target + "\n")
        large.handle(key: .escape)
        #expect(!large.isSaving)
        #expect(large.frame().lines.last?.contains("not written") == true)
        #expect(!FileManager.default.fileExists(atPath: target) || (try? String(contentsOfFile: target, encoding: .utf8))?.count == big.count,
                "either nothing, or the whole file if it finished first")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasPrefix(".csvfreeze-save") })
    }
}

extension SaveViewTests {
    /// The frequency sheet of `column` of `text`, once its count is done.
    private func frequencySheet(_ text: String, column: Int) throws -> Viewer {
        let table = try viewer(text)
        let input = try #require(table.file.flatMap { ScanInput(store: $0) })
        let sheet = FrequencySheet(input: .bytes(input), column: column, name: "c", headerRows: 1, records: nil, table: table)
        waitUntil("the count's end") {
            sheet.update()
            sheet.viewer.handle(.refresh)
            return sheet.viewer.source.isComplete
        }
        return sheet.viewer
    }

    @Test("Ctrl-S of a frequency sheet writes what --frequency --output csv writes")
    func frequencySheetSavesAsTheCommandLineWrites() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = "id,city\n" + ["Oslo", "Bergen", "", "Oslo", "(empty)", "Oslo", "Bergen", "Oslo", ""].enumerated()
            .map { "\($0.offset),\($0.element)" }.joined(separator: "\n") + "\n"
        let sheet = try frequencySheet(text, column: 1)
        #expect((0..<sheet.dataRowCount).map { String(decoding: sheet.table.cell(row: $0, column: 2), as: UTF8.self) }
                == ["44.44", "22.22", "22.22", "11.11"])
        let target = folder.appendingPathComponent("f.csv").path
        type(sheet, target + "\n")
        finish(sheet)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written == "value,count,percent\nOslo,4,44.44\nBergen,2,22.22\n,2,22.22\n(empty),1,11.11\n")
    }

    @Test("the frequency sheet of a column whose values are all unique says so")
    func uniqueValuesAreNamed() throws {
        let sheet = try frequencySheet("id\n" + (1...40).map(String.init).joined(separator: "\n") + "\n", column: 0)
        let status = sheet.frame().lines.last ?? ""
        #expect(status.contains("all 40 values are unique"), "\(status)")
    }
}
