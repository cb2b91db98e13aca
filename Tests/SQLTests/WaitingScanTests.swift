#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SQL

/// An input read from a pipe that the test writes to: the index grows only when it does.
final class PipedInput {
    let store: CellStore
    private let descriptors: [Int32]
    private var isClosed = false

    init(checkpointSpacing: Int64 = 64 << 10) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SQLError.engine("no pipe") }
        // A child another test spawns meanwhile (a tmux server) must not keep the write end
        // open: the input would never end.
        for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        descriptors = fds
        store = try CellStore.open(InputSpec(path: "/dev/fd/\(fds[0])", delimiter: UInt8(ascii: ",")), checkpointSpacing: checkpointSpacing)
    }

    func write(_ text: String) {
        Array(text.utf8).withUnsafeBytes { part in
            var done = 0
            while done < part.count {
                let count = Glibc.write(descriptors[1], part.baseAddress! + done, part.count - done)
                if count <= 0 { return }
                done += count
            }
        }
    }

    /// Ends the input.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = Glibc.close(descriptors[1])
    }

    /// Waits (at most a minute: `turn`) until the index has `rows` records, on the index's
    /// signal.
    func awaitIndexed(_ rows: Int) {
        let store = self.store
        let indexed = turn(news: store.progressSignal, {}, until: { store.progress.rowCount >= rows || store.isComplete })
        #expect(indexed, "the index reaches \(rows) records")
    }

    deinit {
        close()
        store.stopLoading()
        _ = Glibc.close(descriptors[0])
    }
}

@Suite("SQL scans that wait for the index", .timeLimit(.minutes(30)))
struct WaitingScanTests {
    @Test("a scan waiting for the index waits on its signal, not on a clock, and a cancel wakes it")
    func waitsOnTheSignal() throws {
        let input = try PipedInput()
        input.write("id,name\n" + (1...1500).map { "\($0),name\($0)\n" }.joined())
        input.awaitIndexed(1001)
        let table = try #require(SQLInput(store: input.store, name: "t", headerRows: 1))
        let control = QueryControl()
        let outcome = Mutex<Result<[[String]], SQLError>?>(nil)
        Thread {
            do throws(SQLError) {
                let database = try SQLDatabase(inputs: [table], settings: .tiny(pieceBytes: 4096), control: control)
                let answer = try database.prepare("select count(*) from t")
                var all: [[String]] = []
                while let some = try answer.next(batch: 10) { all += some.map(\.strings) }
                let rows = all
                outcome.withLock { $0 = .success(rows) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }.start()
        // The scan reads the pieces the index has, then waits for more (the pipe is open)...
        #expect(turn(pausing: { usleep(1000) }, until: { control.lookCount > 0 }))
        let before = control.lookCount
        // ...and while nothing comes it does not look again (no timer): a scan looking every
        // quarter second would have looked eight times in a quiet second, one polling every
        // few milliseconds hundreds. (Two workers may each finish a look begun before.)
        #expect(!turn(within: 1, pausing: { usleep(1000) }, until: { control.lookCount > before + 2 }),
                "looked \(control.lookCount - before) times in a second with no news")
        #expect(outcome.withLock { $0 } == nil, "the count waits for the rest of the input")
        control.cancel()
        #expect(turn(pausing: { usleep(1000) }, until: { outcome.withLock { $0 } != nil }), "a cancel wakes the waiting scan")
        #expect(outcome.withLock { $0 } == .failure(.cancelled))
    }
}
