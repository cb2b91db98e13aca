import CellStore
import Dispatch
import Foundation
import Synchronization
import Testing
@testable import SQL

/// Two workers sharing one `PieceSource`, as a scan's workers do, over an input that ends
/// while both wait: whichever worker's look adds the last piece or finds the end, the
/// other must hear of it. The waits have no time limit; a watchdog fails the round (and
/// frees the workers) if one is never woken.
@Suite("Pieces shared by two workers", .timeLimit(.minutes(30)))
struct SharedPieceTests {
    /// What one worker read: the records of each piece it took, in order.
    private final class Taken: Sendable {
        let records = Mutex<[Range<Int>]>([])
    }

    @Test("1,000 inputs closed just before their last piece: neither worker waits for news that never comes")
    func noWorkerWaitsForEver() throws {
        let lines = (1...60).map { "\($0),name\($0)\n" }
        var hung = 0
        for round in 0..<1000 {
            let input = try PipedInput(checkpointSpacing: 64)
            // Every record but the last: the pieces up to the last checkpoint are known.
            input.write("id,name\n" + lines.dropLast().joined())
            input.awaitIndexed(lines.count)
            let control = QueryControl()
            let source = PieceSource(readers: input.store.recordReaders, records: 1..<Int.max, limit: 128, control: control)
            #expect(!source.isFinal)
            let stop = Atomic<Bool>(false)
            // A bit per worker that found no piece and is about to wait, and its signal.
            let waiting = ChangeSignal()
            let arrivals = Atomic<Int>(0)
            let taken = [Taken(), Taken()]
            let finished = DispatchSemaphore(value: 0)
            for worker in 0..<2 {
                let thread = Thread {
                    var index = worker
                    let isCancelled = {
                        arrivals.bitwiseOr(1 << worker, ordering: .relaxed)
                        waiting.notify()
                        return stop.load(ordering: .relaxed)
                    }
                    while let item = source.item(index, isCancelled: isCancelled) {
                        taken[worker].records.withLock { $0.append(item.records) }
                        index += 2
                    }
                    finished.signal()
                }
                thread.start()
            }
            // Both workers have taken what is known and wait for more...
            while arrivals.load(ordering: .relaxed) != 3 {
                let version = waiting.version
                if arrivals.load(ordering: .relaxed) == 3 { break }
                waiting.wait(past: version)
            }
            // ...when the last record comes and the input ends.
            input.write(lines[lines.count - 1])
            input.close()
            for _ in 0..<2 where finished.wait(timeout: .now() + 30) == .timedOut {
                // The watchdog: a worker is waiting for news that will not come.
                Issue.record("round \(round): a worker waited 30 s for news that never came")
                hung += 1
                stop.store(true, ordering: .relaxed)
                input.store.progressSignal.notify()
                finished.wait()
            }
            let pieces = (taken[0].records.withLock { $0 } + taken[1].records.withLock { $0 }).sorted { $0.lowerBound < $1.lowerBound }
            // The pieces cover records 1...60 once, with no gap (the first from the header's
            // checkpoint, before record 1).
            let covered = pieces.reduce(into: [Int]()) { $0 += Array($1) }
            #expect(covered.drop { $0 < 1 } == Array(1...lines.count)[...], "round \(round): \(pieces)")
            #expect(source.isFinal)
            if hung > 0 { break }
        }
    }
}
