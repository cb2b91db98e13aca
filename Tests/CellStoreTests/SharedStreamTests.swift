#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
@testable import CellStore

/// An input that can be read only once (a pipe, a FIFO) opened by several stores: each
/// reads the one stream opened on it, from its spool, whichever came first.
@Suite("A stream shared by several stores", .timeLimit(.minutes(30)))
struct SharedStreamTests {
    /// A pipe holding `text`, its writing end left open when `closes` is false; both ends
    /// close on exec, so no child of the suite keeps them.
    static func pipe(holding text: String, closes: Bool = true) throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == bytes.count)
        if closes { close(ends[1]) }
        return (ends[0], ends[1])
    }

    static let text = "id,city\n1,Lyon\n2,Oslo\n3,Pisa\n"
    static let rows = [["id", "city"], ["1", "Lyon"], ["2", "Oslo"], ["3", "Pisa"]]

    @Test("a pipe opened by name by two stores: the second reads every row the first did, not a drained pipe")
    func pipeTwice() throws {
        let pipe = try Self.pipe(holding: Self.text)
        defer { close(pipe.read) }
        let path = "/proc/self/fd/\(pipe.read)"
        let slot = SharedStream.Slot()
        let first = try CellStore.open(InputSpec(path: path), shared: slot, startsLoader: false)
        first.indexNow()
        #expect(allRows(of: first) == Self.rows)
        let second = try CellStore.open(InputSpec(path: path), shared: slot, startsLoader: false)
        second.indexNow()
        #expect(allRows(of: second) == Self.rows, "read from the spool")
        #expect(second.name == path)
    }

    @Test("a store that stops while reading hands the stream on: the next one reads on from there, nothing lost")
    func handedOn() throws {
        let pipe = try Self.pipe(holding: "id,city\n1,Lyon\n", closes: false)
        defer { close(pipe.read) }
        let slot = SharedStream.Slot()
        var first: CellStore? = try CellStore.open(InputSpec(path: "/proc/self/fd/\(pipe.read)"), shared: slot)
        let deadline = Date().addingTimeInterval(60)
        while (first?.rowCount ?? 0) < 2 && Date() < deadline { usleep(2_000) }
        #expect(first?.rowCount == 2 && first?.isComplete == false, "waiting on the pipe for more")
        first = nil   // stopped and joined while it waited on the pipe
        let more = Array("2,Oslo\n3,Pisa\n".utf8)
        #expect(more.withUnsafeBytes { write(pipe.write, $0.baseAddress, $0.count) } == more.count)
        close(pipe.write)
        let second = try CellStore.open(InputSpec(path: "/proc/self/fd/\(pipe.read)"), shared: slot)
        waitUntilComplete(second)
        #expect(allRows(of: second) == Self.rows)
    }

    @Test("two stores reading at once: one reads the pipe, the other waits and is told why; both get every row")
    func atOnce() throws {
        let pipe = try Self.pipe(holding: "", closes: false)
        defer { close(pipe.read) }
        let slot = SharedStream.Slot()
        let path = "/proc/self/fd/\(pipe.read)"
        let stores = try (0..<2).map { _ in try CellStore.open(InputSpec(path: path), shared: slot) }
        let deadline = Date().addingTimeInterval(60)
        while stores.contains(where: { $0.progress.notice != "waiting for \(path)" }) && Date() < deadline { usleep(2_000) }
        #expect(stores.map(\.progress.notice) == ["waiting for \(path)", "waiting for \(path)"], "whichever reads")
        let bytes = Array(Self.text.utf8)
        #expect(bytes.withUnsafeBytes { write(pipe.write, $0.baseAddress, $0.count) } == bytes.count)
        close(pipe.write)
        for store in stores {
            waitUntilComplete(store)
            #expect(allRows(of: store) == Self.rows)
            #expect(store.progress.notice == nil)
        }
    }

    @Test("a FIFO is opened once: a store opened after its writer left reads its rows, and never waits for a writer")
    func fifo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("g.csv").path
        try #require(mkfifo(path, 0o600) == 0)
        let slot = SharedStream.Slot()
        let first = try CellStore.open(InputSpec(path: path), shared: slot)
        let deadline = Date().addingTimeInterval(60)
        while first.progress.notice == nil && Date() < deadline { usleep(2_000) }
        #expect(first.progress.notice == "waiting for a writer to open \(path)")
        // The writer opens (the store holds the reading end), writes, and is gone. Opened
        // without waiting: a reader that is not there fails the test, never hangs it.
        var writer = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
        while writer < 0 && errno == ENXIO && Date() < deadline {
            usleep(2_000)
            writer = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
        }
        try #require(writer >= 0, "the store holds the FIFO's reading end")
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) & ~O_NONBLOCK)
        let bytes = Array(Self.text.utf8)
        #expect(bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == bytes.count)
        close(writer)
        waitUntilComplete(first)
        #expect(allRows(of: first) == Self.rows)
        #expect(first.progress.notice == nil, "the wait is over once the writer came")
        let second = try CellStore.open(InputSpec(path: path), shared: slot, startsLoader: false)
        second.indexNow()
        #expect(allRows(of: second) == Self.rows)
        #expect(second.progress.notice == nil)
    }

    @Test("a store that stops while it waits for a silent compressed pipe's next chunk stops at once: its stop wakes the wait, no timer does")
    func stopWakesTheDecoderWait() throws {
        var ends: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // The reading end belongs to the decoder's source, which closes it: closing it here
        // too closed whatever descriptor another test running beside had been given its number.
        defer { close(ends[1]) }
        // Nothing is written: the decoder waits on the pipe, the taker on the decoder.
        let unpacker = Unpacker(compression: .gzip, raw: Unpacker.RawInput(file: FileSource(descriptor: ends[0]), prefix: [], isStream: true))
        unpacker.start()
        defer { unpacker.stop() }
        let stopped = Atomic<Bool>(false)
        let taken = Mutex<Unpacker.Item??>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let item = unpacker.take(isStopped: { stopped.load(ordering: .acquiring) })
            taken.withLock { $0 = .some(item) }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut, "it waits while nothing comes")
        stopped.store(true, ordering: .releasing)
        unpacker.interrupt()
        // The watchdog: without the stop's news the wait would never end.
        #expect(done.wait(timeout: .now() + 30) == .success, "the stop ended the wait")
        let item = taken.withLock { $0 }
        #expect(item.map { $0 == nil } == true, "nothing taken: the next chunk stays for the next store")
    }

    @Test("a compressed pipe is decompressed once, for every store over it")
    func compressed() throws {
        let packed = try Packed.compress(Array(Self.text.utf8), .gzip)
        var ends: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        #expect(packed.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == packed.count)
        close(ends[1])
        let slot = SharedStream.Slot()
        for _ in 0..<2 {
            let store = try CellStore.open(InputSpec(path: "/proc/self/fd/\(ends[0])"), shared: slot)
            waitUntilComplete(store)
            #expect(allRows(of: store) == Self.rows)
            #expect(store.compressionName == "gzip")
        }
    }
}
