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

    /// Waits (bounded) until `condition` holds.
    private func wait(_ what: String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(60)
        while !condition() && Date() < deadline { usleep(10_000) }
        #expect(condition(), "timed out waiting for \(what)")
    }

    @Test("a followed file's index is kept up to its last checkpoint, half a record at its end left out; followed again, it goes on from there")
    func followed() throws {
        // The last record half written, as a log being appended to may be.
        let (folder, path) = try file(Self.old + "6001,2026-01-02T00:00:00,mo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let following = try CellStore.open(InputSpec(path: path, follows: true))
        wait("caught up") { following.progress.isCaughtUp }
        let kept = try #require(following.followedIndexSnapshot())
        following.stopLoading()
        let whole = try #require(try indexed(path).indexSnapshot())
        // Up to the last checkpoint: a record's start, before which every record is whole.
        #expect(kept.checkpoints == Array(whole.checkpoints.dropLast()))
        #expect(kept.available == whole.checkpoints.last?.offset && kept.rowCount == whole.checkpoints.last?.row)
        #expect(kept.isConsistent(dataStart: whole.checkpoints[0].offset))
        #expect(try indexed(path).followedIndexSnapshot() == nil, "not followed")
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(("re\n" + (6_002...6_500).map { "\($0),2026-01-02T00:00:00,more\n" }.joined()).utf8))
        try handle.close()
        let fresh = try indexed(path)
        let again = try CellStore.open(InputSpec(path: path, follows: true), startsLoader: false)
        #expect(again.adoptGrown(kept))
        again.startLoading()
        wait("the rest read") { again.progress.isCaughtUp && again.rowCount == fresh.rowCount }
        #expect(again.rowCount == 6_501)
        for record in [0, 5_999, 6_000, 6_001, 6_500] { #expect(again.row(record) == fresh.row(record), "record \(record)") }
        again.stopLoading()
    }
}
