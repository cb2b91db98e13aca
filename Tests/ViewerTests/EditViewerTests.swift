#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import Testing
import FreezeLayout
import Table
@testable import Viewer

@Suite("Editing a file's table: e, a, A, x, U, Ctrl-R, q, and Ctrl-S of the edits", .timeLimit(.minutes(30)))
struct EditViewerTests {
    /// A file with a byte-order mark, CRLF line ends, quoting the writer would not choose,
    /// and a last record with no line end: what a save must keep byte for byte.
    static let bytes = Array("\u{FEFF}id,name,note\r\n1,\"Ann\",\"a, b\"\r\n2,Bob,plain\r\n3,Cy,\"two\r\nlines\"".utf8)

    private func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-edit-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func viewer(at path: URL, bytes: [UInt8] = Self.bytes) throws -> Viewer {
        try Data(bytes).write(to: path)
        let store = try CellStore.open(InputSpec(path: path.path))
        waitUntil("the index") { store.isComplete }
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 70, height: 10))
        subject.handle(.refresh)
        return subject
    }

    private func type(_ subject: Viewer, _ text: String) {
        for character in text { subject.handle(key: character == "\n" ? .enter : .character(character)) }
    }

    /// `e`, the line cleared, `value` typed and Enter.
    private func edit(_ subject: Viewer, to value: String) {
        subject.handle(key: .character("e"))
        subject.handle(key: .control("u"))
        type(subject, value + "\n")
    }

    private func status(_ subject: Viewer) -> String { subject.message ?? "" }

    private func save(_ subject: Viewer, to path: String? = nil) {
        subject.handle(key: .control("s"))
        if let path {
            subject.handle(key: .control("u"))
            type(subject, path)
        }
        subject.handle(key: .enter)
        waitUntil("the save") {
            subject.handle(.refresh)
            return subject.editing.saver == nil
        }
    }

    @Test("e changes a cell, a and A add records, x deletes one; the status line counts them; U and Ctrl-R undo and redo")
    func editsAndCounts() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = try viewer(at: folder.appendingPathComponent("t.csv"))
        subject.handle(.moveRight)
        edit(subject, to: "Anna")
        #expect(subject.table.row(0)?.string(1) == "Anna")
        #expect(subject.edits?.statusNote == "1 changed, unsaved")
        #expect(subject.frame().lines.last?.contains("1 changed, unsaved") == true)
        subject.handle(.moveDown)
        subject.handle(key: .character("x"))
        subject.handle(key: .character("a"))
        #expect(subject.edits?.statusNote == "1 changed, 1 added, 1 deleted, unsaved")
        #expect(subject.dataRowCount == 4, "a deleted row stays, struck, until the save")
        #expect(subject.edits?.mark(record: 2, column: 0) == .removed)
        #expect(subject.edits?.mark(record: 3, column: 0) == .added)
        subject.handle(key: .character("U"))
        #expect(subject.dataRowCount == 3)
        #expect(subject.edits?.statusNote == "1 changed, 1 deleted, unsaved")
        subject.handle(key: .control("r"))
        #expect(subject.dataRowCount == 4)
        subject.handle(key: .character("U"))
        subject.handle(key: .character("U"))
        subject.handle(key: .character("U"))
        #expect(subject.unsavedEdits == 0)
        #expect(subject.table.row(0)?.string(1) == "Ann")
        // A value with a line break, typed with Ctrl-O.
        subject.handle(key: .character("e"))
        subject.handle(key: .control("u"))
        type(subject, "x")
        subject.handle(key: .control("o"))
        type(subject, "y\n")
        #expect(subject.table.row(subject.cursorRow)?.string(subject.cursorFileColumn) == "x\ny")
    }

    @Test("a filter and a search see the edited value")
    func passesSeeEdits() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = try viewer(at: folder.appendingPathComponent("t.csv"))
        subject.handle(.moveRight)
        edit(subject, to: "Zed")
        subject.handle(.filter("Zed", columnOnly: false))
        waitUntil("the filter") {
            subject.handle(.refresh)
            return !subject.query.isRunning
        }
        #expect(subject.dataRowCount == 1)
        #expect(subject.table.row(0)?.string(1) == "Zed")
    }

    @Test("the band pictures the edited value, and the value before again after U")
    func bandSeesEdits() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = try viewer(at: folder.appendingPathComponent("t.csv"))
        subject.handle(key: .character("B"))
        func idRange() -> (Double, Double)? {
            waitUntil("the band") {
                subject.handle(.refresh)
                return subject.band.isExact
            }
            return subject.band.picture(ofFileColumn: 0)?.bins.map { ($0.minimum, $0.maximum) }
        }
        #expect(try #require(idRange()) == (1, 3))
        edit(subject, to: "900")
        #expect(try #require(idRange()) == (2, 900))
        subject.handle(key: .character("U"))
        #expect(try #require(idRange()) == (1, 3))
    }

    @Test("U undoes a sort at once with the order kept from before; Ctrl-R brings the sort back")
    func undoSort() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = try viewer(at: folder.appendingPathComponent("t.csv"))
        subject.handle(.moveRight)
        subject.handle(.sort(descending: true, adding: false))
        waitUntil("the sort") {
            subject.handle(.refresh)
            return !subject.query.isRunning
        }
        let sorted = subject.query.sorted
        #expect(subject.table.row(0)?.string(1) == "Cy")
        subject.handle(key: .character("U"))
        #expect(subject.table.row(0)?.string(1) == "Ann")
        #expect(!subject.query.isRunning, "nothing is sorted again")
        subject.handle(key: .control("r"))
        #expect(subject.query.sorted === sorted, "the sort made before is the one shown again")
        #expect(subject.table.row(0)?.string(1) == "Cy")
        // Hiding a column and freezing are undone too.
        subject.handle(.hideColumn)
        let shown = subject.table.columns.shown?.count ?? 3
        subject.handle(key: .character("U"))
        #expect((subject.table.columns.shown?.count ?? 3) == shown + 1)
    }

    @Test("q with unsaved edits asks once; q again quits without them")
    func quitAsks() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let subject = try viewer(at: folder.appendingPathComponent("t.csv"))
        edit(subject, to: "9")
        subject.handle(key: .character("q"))
        #expect(!subject.isFinished)
        #expect(status(subject).contains("1 unsaved change: Ctrl-S saves, q again quits without saving"))
        subject.handle(key: .character("q"))
        #expect(subject.isFinished)
        // Ctrl-C asks as well: nothing typed is lost to one key.
        let other = try viewer(at: folder.appendingPathComponent("u.csv"))
        edit(other, to: "9")
        other.handle(key: .control("c"))
        #expect(!other.isFinished)
        other.handle(key: .control("c"))
        #expect(other.isFinished)
    }

    @Test("Ctrl-S over the file read writes every untouched byte as it was, the edited record in the file's dialect")
    func saveInPlace() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("t.csv")
        let subject = try viewer(at: path)
        chmod(path.path, 0o640)
        subject.handle(.moveDown)
        subject.handle(.moveRight)
        edit(subject, to: "Bo, \"B\"")
        subject.handle(.moveDown)
        subject.handle(key: .character("x"))
        save(subject)
        #expect(status(subject).contains("saved 2 edits to"), "\(status(subject))")
        let saved = [UInt8](try Data(contentsOf: path))
        #expect(saved == Array("\u{FEFF}id,name,note\r\n1,\"Ann\",\"a, b\"\r\n2,\"Bo, \"\"B\"\"\",plain\r\n".utf8))
        var info = stat()
        stat(path.path, &info)
        #expect(info.st_mode & 0o777 == 0o640, "the file keeps its permissions")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["t.csv"], "no temporary file left")
        let reopen = try #require(subject.takeReopen())
        #expect(reopen.isInput && reopen.record == 2, "the table reads the saved file, the cursor on the deleted record's place")
    }

    @Test("Ctrl-S while the file is still being indexed waits, saying so; Esc stops it and keeps the edits; once read, it saves")
    func saveWhileIndexing() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("t.csv")
        try Data(Self.bytes).write(to: path)
        // The loader is started by hand: until then the index is not complete.
        let store = try CellStore.open(InputSpec(path: path.path), startsLoader: false)
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 70, height: 10))
        subject.handle(.refresh)
        subject.handle(.moveRight)
        edit(subject, to: "Anna")
        #expect(subject.unsavedEdits == 1)
        #expect(!store.isComplete)
        let target = folder.appendingPathComponent("out.csv").path
        func saveToTarget() {
            subject.handle(key: .control("s"))
            subject.handle(key: .control("u"))
            type(subject, target + "\n")
        }
        saveToTarget()
        waitUntil("the wait said") {
            subject.handle(.refresh)
            return status(subject).hasPrefix("saving waits for the input to be read")
        }
        subject.handle(key: .escape)
        #expect(status(subject) == "not saved: stopped; the edits stay")
        #expect(subject.unsavedEdits == 1)
        #expect(subject.editing.saver == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["t.csv"], "nothing written beside it")
        // Again, and the file indexed meanwhile: the save goes on by itself once it is.
        saveToTarget()
        store.startLoading()
        waitUntil("the save") {
            subject.handle(.refresh)
            return subject.editing.saver == nil
        }
        #expect(status(subject).contains("saved 1 edit to"), "\(status(subject))")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: target)))
                == Array("\u{FEFF}id,name,note\r\n1,Anna,\"a, b\"\r\n2,Bob,plain\r\n3,Cy,\"two\r\nlines\"".utf8))
    }

    @Test("a file changed on disk since it was read is not saved over; the edits stay")
    func changedOnDisk() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("t.csv")
        let subject = try viewer(at: path)
        edit(subject, to: "7")
        var changed = Self.bytes
        changed[5] = UInt8(ascii: "X")
        try Data(changed).write(to: path)
        save(subject)
        #expect(status(subject).contains("changed on disk"), "\(status(subject))")
        #expect(subject.unsavedEdits == 1)
        #expect([UInt8](try Data(contentsOf: path)) == changed)
    }

    @Test("saving to /dev/full-like failure replaces nothing and keeps the edits; a read-only file is refused")
    func failures() throws {
        let folder = try directory()
        defer {
            chmod(folder.path, 0o755)
            try? FileManager.default.removeItem(at: folder)
        }
        let path = folder.appendingPathComponent("t.csv")
        let subject = try viewer(at: path)
        edit(subject, to: "7")
        if FileManager.default.fileExists(atPath: "/dev/full") {
            save(subject, to: "/dev/full")
            subject.handle(key: .character("y"))
            waitUntil("the save") {
                subject.handle(.refresh)
                return subject.editing.saver == nil
            }
            #expect(subject.unsavedEdits == 1)
        }
        // (root writes a read-only file all the same)
        guard getuid() != 0 else { return }
        chmod(path.path, 0o444)
        save(subject)
        #expect(status(subject).contains("read-only"), "\(status(subject))")
        #expect(subject.unsavedEdits == 1)
        #expect([UInt8](try Data(contentsOf: path)) == Self.bytes)
    }
}
