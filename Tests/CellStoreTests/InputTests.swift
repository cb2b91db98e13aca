#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import CellStore

/// How inputs are opened and read: spool limits, pseudo-files, files that change.
@Suite("Input sources", .timeLimit(.minutes(30)))
struct InputTests {
    @Test("--spool-limit sizes: K, M, G, T are powers of 1024, KB, MB, GB powers of 1000",
          arguments: [("100M", Int64(100 << 20)), ("2G", Int64(2) << 30), ("1.5K", 1536), ("512KiB", 512 << 10),
                      ("500MB", 500_000_000), ("4096", 4096), ("1t", Int64(1) << 40), (" 3 m", 3 << 20)])
    func sizes(text: String, bytes: Int64) {
        guard case .bytes(let parsed, _)? = SpoolLimit(parsing: text) else {
            Issue.record("\(text) not read")
            return
        }
        #expect(parsed == bytes)
    }

    @Test("not sizes", arguments: ["", "0", "M", "-1M", "12Q", "1.2.3G", "0.1"])
    func notSizes(text: String) {
        #expect(SpoolLimit(parsing: text) == nil)
    }

    @Test("the default reserve: 1 GiB or a tenth, never more than half the file system")
    func reserve() {
        #expect(SpoolLimit.reserve(ofFileSystemSize: 100 << 30) == 10 << 30)
        #expect(SpoolLimit.reserve(ofFileSystemSize: 4 << 30) == 1 << 30)
        #expect(SpoolLimit.reserve(ofFileSystemSize: 512 << 20) == 256 << 20)
        #expect(SpoolLimit.describe(100 << 20) == "100 MiB")
        #expect(SpoolLimit.describe(1536) == "1.5 KiB")
        #expect(SpoolLimit.describe(1 << 20) == "1 MiB")
    }

    @Test("the default leaves room on this machine's temporary file system")
    func defaultRoom() {
        #expect(SpoolSource().room() > 0)
    }

    @Test("a stream pauses exactly at its cap, says so, and ends its wait when stopped")
    func pauseAtCap() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }   // no child the suite spawns keeps it open
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 10_000)
        #expect(bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == 10_000)
        let stream = SharedStream(file: FileSource(descriptor: ends[0]), path: nil, spoolLimit: .bytes(4096, label: "4K"),
                                  encoding: nil)
        var notices: [String?] = []
        var pulled = 0
        loop: while true {
            switch stream.pull(beyond: Int64(pulled), isStopped: { notices.contains { $0 != nil } }, report: { notices.append($0) }) {
            case .bytes(let count): pulled += count
            default: break loop
            }
        }
        let spool = stream.spool
        #expect(pulled == 4096)
        #expect(spool.length == 4096)
        #expect(notices.first == "paused at 4 KiB: --spool-limit 4K")
        close(ends[1])
    }

    @Test("with no temporary file the spool keeps the input in memory, in pieces, read back at any offset")
    func spoolInMemory() throws {
        let spool = SpoolSource(limit: .keepFree, directory: "/nonexistent-\(UUID())")
        var generator = SeededGenerator(seed: 31)
        var all: [UInt8] = []
        while all.count < 3 << 20 {
            let piece = (0..<Int(generator.next() % 400_000) + 1).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            piece.withUnsafeBytes { spool.append($0) }
            all += piece
        }
        #expect(spool.length == Int64(all.count))
        #expect(spool.room() == min(1 << 30, SpoolLimit.memoryAllowance) - Int64(all.count))
        #expect(spool.pauseReason.hasSuffix("memory for the input is used up (--spool-limit)"))
        var buffer = [UInt8](repeating: 0, count: 200_000)
        for _ in 0..<200 {
            let offset = Int(generator.next() % UInt64(all.count))
            let got = buffer.withUnsafeMutableBytes { spool.read(at: Int64(offset), into: $0) }
            #expect(got > 0 && Array(buffer[..<got]) == Array(all[offset..<(offset + got)]))
        }
        #expect(buffer.withUnsafeMutableBytes { spool.read(at: Int64(all.count), into: $0) } == 0)
    }

    @Test("past the free space kept on disk, a small input goes on in memory instead of pausing at 0 B")
    func nearlyFullDisk() throws {
        let spool = SpoolSource(limit: .keepFree, reserve: Int64.max / 4)
        #expect(spool.room() > 0, "the memory allowance, not a pause")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        bytes.withUnsafeBytes { spool.append($0) }
        #expect(spool.room() == min(1 << 30, SpoolLimit.memoryAllowance) - 300_000)
        var copy = [UInt8](repeating: 0, count: 300_000)
        var done = 0
        while done < copy.count {
            let got = copy.withUnsafeMutableBytes { spool.read(at: Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: $0[done...])) }
            if got <= 0 { break }
            done += got
        }
        #expect(copy == bytes)
        #expect(spool.pauseReason.hasSuffix("is nearly full and memory for the input is used up (--spool-limit)"))
    }

    @Test("a pipe that stays silent says it waits for input")
    func silentPipe() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }   // no child the suite spawns keeps it open
        defer { close(ends[1]) }
        var notices: [String?] = []
        let stream = SharedStream(file: FileSource(descriptor: ends[0]), path: nil, spoolLimit: .keepFree, encoding: nil)
        if case .end = stream.pull(beyond: 0, isStopped: { !notices.isEmpty }, report: { notices.append($0) }) {} else {
            Issue.record("the stop was not seen")
        }
        #expect(notices == ["waiting for input on stdin", nil])
    }

    @Test("a file that reports size 0 but has content (/proc) is read as a stream")
    func procFile() throws {
        let store = try CellStore.open(InputSpec(path: "/proc/self/status", delimiter: 0x09), startsLoader: false)
        store.indexNow()
        #expect(store.rowCount > 5)
        #expect(store.row(0)?.string(0) == "Name:")
        // An empty file stays a file, followed or not: it may be written to, then read again.
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.log")
        try Data().write(to: empty)
        #expect(try CellStore.open(InputSpec(path: empty.path, follows: true), startsLoader: false).isReloadable)
        #expect(try CellStore.open(InputSpec(path: empty.path), startsLoader: false).isReloadable)
    }

    @Test("a change on disk after opening is noticed: shorter, rewritten, replaced; none when unchanged")
    func changeOnDisk() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("data.csv")
        try Data("a,b\n1,2\n3,4\n".utf8).write(to: file)
        let store = try CellStore.open(InputSpec(path: file.path), startsLoader: false)
        store.indexNow()
        #expect(!store.noticeChangeOnDisk())
        #expect(store.progress.notice == nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 4)
        try handle.close()
        #expect(store.noticeChangeOnDisk())
        #expect(store.progress.notice == "file shorter on disk now: R reloads")

        let other = try CellStore.open(InputSpec(path: file.path), startsLoader: false)
        try Data("x,y\n".utf8).write(to: file, options: .atomic)
        #expect(other.noticeChangeOnDisk())
        #expect(other.progress.notice == "file replaced on disk: R reloads")
    }

    @Test("a followed file that becomes shorter is reported as truncated, not as an error")
    func followedTruncation() throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("app.log")
        try Data("line\n".utf8).write(to: file)
        let source = try FileSource(path: file.path)
        let pulled = Loader.waitForGrowth(of: source, beyond: 100, isStopped: { false }, caughtUp: {})
        if case .truncated = pulled {} else { Issue.record("not seen as truncated: \(pulled)") }
        // A stop ends the wait for growth.
        let stopped = Loader.waitForGrowth(of: source, beyond: 5, isStopped: { true }, caughtUp: {})
        if case .end = stopped {} else { Issue.record("the stop was not seen: \(stopped)") }
    }

    func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
