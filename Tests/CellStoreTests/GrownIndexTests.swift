import Foundation
import Testing
@testable import CellStore

/// A file that only grew since its index was kept: the loader goes on from the kept index's
/// last checkpoint, so the old part is not read again, and the whole is indexed as a
/// fresh read would.
@Suite("Going on with a kept index of a file that grew", .timeLimit(.minutes(30)))
struct GrownIndexTests {
    private func file(_ text: String) throws -> (URL, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-grown-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("log.csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (folder, path)
    }

    private func indexed(_ path: String) throws -> CellStore {
        let store = try CellStore.open(InputSpec(path: path), startsLoader: false)
        store.indexNow()
        return store
    }

    /// 6,000 records of about 40 bytes: several checkpoints (64 KiB apart).
    static let old = "id,when,what\n" + (1...6_000).map { "\($0),2026-01-01T00:00:\($0 % 60),\"a, \($0)\"\n" }.joined()
    static let added = (6_001...6_500).map { "\($0),2026-01-02T00:00:00,more\n" }.joined()

    @Test("the grown file's index equals a fresh one: rows, count, widest, checkpoints of the old part kept")
    func sameAsFresh() throws {
        let (folder, path) = try file(Self.old)
        defer { try? FileManager.default.removeItem(at: folder) }
        let kept = try #require(try indexed(path).indexSnapshot())
        #expect(kept.checkpoints.count > 2)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(Self.added.utf8))
        try handle.close()
        let fresh = try indexed(path)
        let grown = try CellStore.open(InputSpec(path: path), startsLoader: false)
        #expect(grown.adoptGrown(kept))
        grown.indexNow()
        #expect(grown.isComplete && grown.rowCount == fresh.rowCount && grown.rowCount == 6_501)
        #expect(grown.columnCount == fresh.columnCount)
        let snapshot = try #require(grown.indexSnapshot())
        #expect(Array(snapshot.checkpoints.prefix(kept.checkpoints.count)) == kept.checkpoints)
        #expect(snapshot.wellQuotedRecords == 6_501 && snapshot.endsWithTerminator)
        for record in [0, 1, 5_999, 6_000, 6_001, 6_500] { #expect(grown.row(record) == fresh.row(record), "record \(record)") }
        #expect(grown.row(6_501) == nil)
    }

    @Test("the loader goes on from the last checkpoint: the kept counts are taken, not counted again")
    func goesOnFromTheCheckpoint() throws {
        let (folder, path) = try file(Self.old)
        defer { try? FileManager.default.removeItem(at: folder) }
        var kept = try #require(try indexed(path).indexSnapshot())
        // Every record number past the first checkpoint moved on by 1,000 (still consistent):
        // a loader that read the old part again would not see it.
        kept.checkpoints = kept.checkpoints.enumerated().map { $0 == 0 ? $1 : Checkpoint(offset: $1.offset, row: $1.row + 1_000) }
        kept.rowCount += 1_000
        kept.wellQuotedRecords += 1_000
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(Self.added.utf8))
        try handle.close()
        let grown = try CellStore.open(InputSpec(path: path), startsLoader: false)
        #expect(grown.adoptGrown(kept))
        grown.indexNow()
        #expect(grown.rowCount == 6_501 + 1_000)
    }

    @Test("a kept index that does not fit is not taken: the same size, a quoting problem, another dialect")
    func refused() throws {
        let (folder, path) = try file(Self.old)
        defer { try? FileManager.default.removeItem(at: folder) }
        let kept = try #require(try indexed(path).indexSnapshot())
        #expect(!(try CellStore.open(InputSpec(path: path), startsLoader: false).adoptGrown(kept)), "not grown")
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(Self.added.utf8))
        try handle.close()
        var problem = kept
        problem.quotingProblem = QuotingProblem(kind: .unclosedQuote, record: 3, line: 4)
        problem.quotingProblemCount = 1
        #expect(!(try CellStore.open(InputSpec(path: path), startsLoader: false).adoptGrown(problem)))
        var other = kept
        other.delimiter = UInt8(ascii: ";")
        #expect(!(try CellStore.open(InputSpec(path: path), startsLoader: false).adoptGrown(other)))
    }
}
