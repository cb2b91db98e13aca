#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import Testing
import Table
@testable import Viewer

/// The journal a signal leaves for unsaved edits: read back only when whole and sound, and
/// made again through the journal's own steps, so the save is the one the edits would
/// have made.
@Suite("Recovery journals: kept edits, checked and made again", .timeLimit(.minutes(30)))
struct RecoveryJournalTests {
    static let bytes = Array("\u{FEFF}id,name,note\r\n1,\"Ann\",\"a, b\"\r\n2,Bob,plain\r\n3,Cy,\"two\r\nlines\"\r\n4,Di,last".utf8)

    private func file(_ bytes: [UInt8] = Self.bytes) throws -> (URL, EditedRows) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-journal-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("t.csv")
        try Data(bytes).write(to: path)
        let store = try CellStore.open(InputSpec(path: path.path))
        waitUntil("the index") { store.isComplete }
        return (folder, EditedRows(store: store))
    }

    /// A cell changed (growing a short record), a record deleted, two added in one place
    /// and one after the last record.
    private func edit(_ rows: EditedRows) throws {
        for step in [try rows.settingCell(record: 2, column: 1, to: Array("Bo, \"B\"".utf8)),
                     try rows.settingCell(record: 2, column: 4, to: Array("new\nline".utf8))] {
            rows.apply(try #require(step))
        }
        rows.apply(try rows.deletingRecord(3))
        rows.apply(try rows.addingRecord(near: 1, after: true, columns: 3, headerRows: 1))
        rows.apply(try rows.addingRecord(near: 2, after: true, columns: 3, headerRows: 1))
        rows.apply(try #require(try rows.settingCell(record: 3, column: 0, to: Array("second".utf8))))
        rows.apply(try rows.addingRecord(near: rows.rowCount - 1, after: true, columns: 2, headerRows: 1))
        rows.apply(try #require(try rows.settingCell(record: rows.rowCount - 1, column: 1, to: Array("at end".utf8))))
    }

    @Test("a journal written and read back is the same; made again on the same file, it saves the same bytes")
    func roundTrip() throws {
        let (folder, rows) = try file()
        defer { try? FileManager.default.removeItem(at: folder) }
        try edit(rows)
        let fingerprint = try #require(rows.baseline)
        let journal = RecoveryJournal(rows, fingerprint: fingerprint)
        #expect(journal.count == rows.journal.count)
        let decoded = try RecoveryJournal.decode(journal.encoded()).get()
        #expect(decoded == journal)
        // Made again over a fresh store of the same file: the same patch, so the same save.
        let store = try CellStore.open(InputSpec(path: folder.appendingPathComponent("t.csv").path))
        waitUntil("the index") { store.isComplete }
        let again = EditedRows(store: store)
        let steps = try again.replay(decoded)
        #expect(!steps.isEmpty)
        #expect(again.journal.count == rows.journal.count)
        #expect(try again.makePatch(keepingDeleted: false).splices == rows.makePatch(keepingDeleted: false).splices)
        // Undoing the steps leaves no edit.
        again.apply(steps, backwards: true)
        #expect(again.journal.isEmpty)
    }

    @Test("a truncated, corrupt, foreign or other version's journal is refused, never trusted")
    func refusals() throws {
        let (folder, rows) = try file()
        defer { try? FileManager.default.removeItem(at: folder) }
        try edit(rows)
        let bytes = RecoveryJournal(rows, fingerprint: try #require(rows.baseline)).encoded()
        for length in 0..<bytes.count {
            let refusal = RecoveryJournal.decode(Array(bytes[..<length]))
            #expect(refusal == .failure(.truncated), "\(length) bytes")
        }
        var generator = SystemRandomNumberGenerator()
        for index in 0..<bytes.count {
            var changed = bytes
            changed[index] ^= UInt8.random(in: 1...255, using: &generator)
            guard case .failure(let refusal) = RecoveryJournal.decode(changed) else {
                Issue.record("byte \(index) changed was read")
                continue
            }
            switch index {
            case ..<8: #expect(refusal == .notAJournal, "byte \(index)")
            case ..<12: #expect(refusal == .otherVersion, "byte \(index)")
            case ..<20: #expect(refusal == .truncated || refusal == .corrupt, "byte \(index): the length")
            default: #expect(refusal == .corrupt, "byte \(index)")
            }
        }
        #expect(RecoveryJournal.decode(bytes + [0]) == .failure(.corrupt))
        #expect(RecoveryJournal.decode(Array("id,name\n1,a\n".utf8)) == .failure(.notAJournal))
    }

    @Test("a sound journal whose records the file lacks is refused as a typed edit would be")
    func recordsPastTheEnd() throws {
        let (folder, rows) = try file()
        defer { try? FileManager.default.removeItem(at: folder) }
        var journal = RecoveryJournal(fingerprint: try #require(rows.store.fingerprintIfUnchanged()))
        journal.deleted = [40]
        #expect(throws: EditRefusal.self) { try rows.replay(journal) }
        journal.deleted = []
        journal.added = [.init(anchor: 99, rows: [[Array("x".utf8)]])]
        #expect(throws: EditRefusal.self) { try rows.replay(journal) }
    }

    @Test("the journal is written private (0600) and never over a file already there")
    func writtenPrivate() throws {
        let (folder, rows) = try file()
        defer { try? FileManager.default.removeItem(at: folder) }
        try edit(rows)
        let journal = RecoveryJournal(rows, fingerprint: try #require(rows.baseline))
        let path = folder.appendingPathComponent("j.edits").path
        #expect(journal.write(to: path) == nil)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(journal.write(to: path) != nil, "an existing file is not written over")
        #expect(try RecoveryJournal.read(path: path).get() == journal)
    }
}
