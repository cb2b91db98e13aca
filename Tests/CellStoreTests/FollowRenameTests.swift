#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport
@testable import CellStore

/// `--follow` follows the name, as `tail -F` does: a log rotated by renaming it (and
/// starting a new file under the old name) is followed into the new file.
@Suite("Following a file that is renamed", .timeLimit(.minutes(30)))
struct FollowRenameTests {
    func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-follow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a name that now holds another file is seen as replaced, once the old file has nothing new")
    func waitSeesTheNewFile() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("app.log")
        try Data("one\n".utf8).write(to: log)
        let source = try FileSource(path: log.path)
        // Rotated: renamed away, a last line written to the old file, a new file made.
        try FileManager.default.moveItem(at: log, to: directory.appendingPathComponent("app.log.1"))
        let old = try FileHandle(forWritingTo: directory.appendingPathComponent("app.log.1"))
        try old.seekToEnd()
        try old.write(contentsOf: Data("two\n".utf8))
        try old.close()
        try Data("new\n".utf8).write(to: log)
        // The old file's last bytes come first...
        let first = Loader.waitForGrowth(of: source, path: log.path, beyond: 4, isStopped: { false }, caughtUp: {})
        if case .bytes(let count) = first { #expect(count == 4) } else { Issue.record("not the old file's growth: \(first)") }
        // ...then the new file.
        let second = Loader.waitForGrowth(of: source, path: log.path, beyond: 8, isStopped: { false }, caughtUp: {})
        if case .replaced = second {} else { Issue.record("not seen as replaced: \(second)") }
    }

    @Test("while the name holds nothing (renamed, no new file yet), the old file is still followed")
    func nameGone() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("app.log")
        try Data("one\n".utf8).write(to: log)
        let source = try FileSource(path: log.path)
        try FileManager.default.moveItem(at: log, to: directory.appendingPathComponent("app.log.1"))
        var looks = 0
        let pulled = Loader.waitForGrowth(of: source, path: log.path, beyond: 4, isStopped: {
            looks += 1
            return looks > 2
        }, caughtUp: {})
        if case .end = pulled {} else { Issue.record("gave up on the old file: \(pulled)") }
    }

    @Test("a followed store says the file was replaced and stops, for the loop to open the new one")
    func storeSaysReplaced() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("app.csv")
        try Data("id,v\n1,a\n".utf8).write(to: log)
        let store = try CellStore.open(InputSpec(path: log.path, follows: true))
        try waitFor("caught up") { store.progress.isCaughtUp }
        try FileManager.default.moveItem(at: log, to: directory.appendingPathComponent("app.csv.1"))
        try Data("id,v\n9,z\n".utf8).write(to: log)
        try waitFor("the replacement") { store.progress.wasReplaced }
        #expect(store.progress.isComplete)
        #expect(store.progress.notice == "file replaced: R reads the new one")
        #expect(store.row(1)?.strings == ["1", "a"], "the rows read stay the old file's")
        #expect(!store.progress.wasTruncated)
    }

    /// Waits, bounded (`turn`), for work on the loader's thread.
    func waitFor(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) throws {
        if !turn(until: condition) { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation) }
    }
}
