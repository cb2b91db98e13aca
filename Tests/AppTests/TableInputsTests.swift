import Foundation
import Synchronization
import Testing
import TestSupport
import App
import CellStore
import FreezeLayout
import Viewer

/// The inputs named on the command line, directories opened up, and the census that
/// counts the tables no one has opened.
@Suite("Inputs of several tables, and their census", .serialized, .timeLimit(.minutes(30)))
struct TableInputsTests {
    private static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("table-inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static func write(_ text: String, to url: URL) throws { try Data(text.utf8).write(to: url) }

    @Test("a pipe given by name among files is read once: opened at start, never counted by the census, its rows shown by }")
    func pipeReadOnce() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a.csv")
        try Self.write("id,city\n1,Lyon\n2,Oslo\n", to: file)
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        let bytes = Array("id,city\n9,Pisa\n".utf8)
        #expect(bytes.withUnsafeBytes { Glibc.write(ends[1], $0.baseAddress, $0.count) } == bytes.count)
        close(ends[1])
        let inputs = TableInputs.gather([file.path, "/proc/self/fd/\(ends[0])"]).inputs
        #expect(inputs.map(\.readsOnce) == [false, true])
        let opens = Mutex(0)
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 60, height: 8)
        // The stores, their passes and the census wake the screen, as the wake pipe does.
        let wake = screen.wake
        let open: @Sendable (TableInput) throws(CellStoreError) -> CellStore = { input throws(CellStoreError) in
            if input.readsOnce { opens.withLock { $0 += 1 } }
            return try CellStore.open(InputSpec(path: input.path), shared: input.stream, onChange: wake)
        }
        let count: @Sendable (TableInput) throws(CellStoreError) -> CellStore = { input throws(CellStoreError) in
            if input.readsOnce { opens.withLock { $0 += 1 } }
            return try CellStore.open(InputSpec(path: input.path), shared: input.stream, startsLoader: false, onChange: wake)
        }
        let shelf = TableShelf(inputs: inputs, open: open, count: count, wake: wake)
        try shelf.openReadOnce()
        var options = ViewerOptions()
        options.place = "1/2"
        let first = Viewer(store: try shelf.store(0), options: options, screenSize: screen.size)
        let subject = AppLoop(shelf: shelf, first: first, options: ViewerOptions(), screen: screen, clock: clock)
        turn(subject, screen, until: "both tables counted") { shelf.facts(0).isFinal && shelf.facts(1).isFinal }
        #expect(shelf.facts(1).records == 2, "the pipe's own store counted it")
        StackedViewTests.type(subject, screen, "}")
        #expect(StackedViewTests.lines(screen).contains { $0.contains("9") && $0.contains("Pisa") }, "\(StackedViewTests.lines(screen))")
        StackedViewTests.type(subject, screen, "S")
        turn(subject, screen, until: "the stack") { subject.table.stack?.isComplete == true }
        StackedViewTests.type(subject, screen, "")
        #expect(StackedViewTests.lines(screen).contains { $0.contains("Pisa") } && StackedViewTests.lines(screen).contains { $0.contains("Oslo") })
        #expect(opens.withLock { $0 } == 1, "one store over the pipe, the census none")
    }

    @Test("a FIFO among the inputs is looked at, not opened: a writer waiting on it still waits for the table's reader")
    func fifoIsNotOpened() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("live.csv").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // A writer that opens the FIFO (it waits there for a reader), writes a line, closes.
        let tid = Mutex<Int32>(0)
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            // The thread's own id, from /proc (`<pid>/task/<tid>`).
            let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
            tid.withLock { $0 = Int32(link.split(separator: "/").last ?? "") ?? -1 }
            let descriptor = open(fifo, O_WRONLY)
            if descriptor >= 0 {
                _ = "a\n1\n".withCString { Glibc.write(descriptor, $0, 4) }
                close(descriptor)
            }
            done.signal()
        }
        writer.start()
        func waitChannel() -> String {
            let id = tid.withLock { $0 }
            guard id > 0 else { return "" }
            return (try? String(contentsOfFile: "/proc/self/task/\(id)/wchan", encoding: .utf8)) ?? ""
        }
        // Where the kernel has a writer wait for its reader (named after the kernel's function).
        func waitsForReader() -> Bool { ["fifo_open", "wait_for_partner"].contains(waitChannel()) }
        try #require(turn(until: waitsForReader), "the writer waits in open: \(waitChannel())")
        let gathered = TableInputs.gather([fifo])
        #expect(gathered.problems.isEmpty && gathered.inputs.count == 1 && gathered.inputs.first?.facts.size == nil)
        #expect(waitsForReader(), "looking at the FIFO must not be its reader: \(waitChannel())")
        // The table's own reader gets the writer's line.
        let store = try CellStore.open(InputSpec(path: fifo))
        store.waitForIndex { false }
        #expect(store.rowCount == 2)
        #expect(done.wait(timeout: .now() + 60) == .success)
    }

    @Test("a directory gives its delimited and compressed files by name; the rest is skipped and said")
    func directoryContents() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.write("a\n1\n", to: dir.appendingPathComponent("b.csv"))
        try Self.write("a\n1\n", to: dir.appendingPathComponent("a.TSV"))
        try Self.write("a\n1\n", to: dir.appendingPathComponent("notes.md"))
        try Self.write("a\n1\n", to: dir.appendingPathComponent(".hidden.csv"))
        // gzip's magic, whatever the name says.
        try Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 3]).write(to: dir.appendingPathComponent("dump"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("old"), withIntermediateDirectories: true)
        let found = TableInputs.gather([dir.path])
        #expect(found.problems.isEmpty)
        #expect(found.inputs.map { URL(fileURLWithPath: $0.path ?? "").lastPathComponent } == ["a.TSV", "b.csv", "dump"])
        #expect(found.inputs.last?.facts.compression == "gzip")
        #expect(found.inputs.first?.facts.size == 4)
        #expect(Set(found.skipped.map(\.reason)) == [.directory, .notDelimited, .hidden])
        #expect(found.skippedLine?.contains("notes.md") == true)
    }

    @Test("a missing file or a directory with no delimited files is a problem, named; - twice too")
    func problems() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.write("x\n", to: dir.appendingPathComponent("readme.md"))
        let good = dir.appendingPathComponent("good.csv")
        try Self.write("a\n1\n", to: good)
        let missing = dir.appendingPathComponent("missing.csv").path
        let found = TableInputs.gather([good.path, missing, dir.path, "-", "-"])
        #expect(found.inputs.map(\.name) == [good.path, good.path, "stdin"], "the directory's one file, then stdin")
        #expect(found.problems == ["\(missing): no such file", "standard input (-) can be read only once"])
        #expect(found.problemLine == "\(missing): no such file (and 1 more input that cannot be read)")
        let empty = try Self.directory()
        defer { try? FileManager.default.removeItem(at: empty) }
        try Self.write("x\n", to: empty.appendingPathComponent("readme.md"))
        #expect(TableInputs.gather([empty.path]).problemLine == "\(empty.path): no delimited files in it (1 other entry: readme.md)")
        #expect(TableInputs.gather([]).inputs.map(\.isStandardInput) == [true], "no argument: standard input")
    }

    @Test("a thousand files: one store open, the rest counted in the background, one at a time")
    func census() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for index in 0..<1000 {
            try Self.write("id,v\n" + (0...(index % 7)).map { "\($0),x" }.joined(separator: "\n") + "\n",
                           to: dir.appendingPathComponent(String(format: "f%04d.csv", index)))
        }
        let inputs = TableInputs.gather([dir.path]).inputs
        #expect(inputs.count == 1000)
        // The census wakes the loop after each table it counts; this test is the loop.
        let news = ChangeSignal()
        let shelf = TableShelf(inputs: inputs, open: { input throws(CellStoreError) in try CellStore.open(InputSpec(path: input.path)) },
                               count: { input throws(CellStoreError) in try CellStore.open(InputSpec(path: input.path), startsLoader: false) },
                               wake: { news.notify() })
        let first = try shelf.store(0)
        shelf.startCounting()
        let counted = turn(within: 120, news: news, {
            #expect(shelf.openStoreCount <= 1)
            shelf.takeNews()
        }, until: { (0..<1000).allSatisfy { shelf.facts($0).isFinal } })
        #expect(counted, "the census finished")
        #expect(shelf.openStoreCount == 1 && first.rowCount == 2)
        for index in [0, 1, 6, 999] {
            var facts = shelf.facts(index)
            #expect(facts.identity?.size == Int64(5 + (index % 7 + 1) * 4), "the file as counted")
            facts.identity = nil
            #expect(facts == TableFacts(records: 2 + index % 7, isFinal: true, columns: 2, dialect: "comma"))
        }
    }
}
