#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Dispatch
import Synchronization

/// A pass over an input on a thread of its own, owned by whoever started it: the search
/// now, and the filters, sort keys and counts to come.
///
/// The pass reads, reports progress and checks for cancellation through a `ScanControl`,
/// and hands back a result. Its owner reads `status` when woken; `cancel()` stops it at
/// the next check (every piece of a few hundred KiB); dropping the scan cancels it and
/// waits for its thread, so no pass outlives its owner.
package final class BackgroundScan<Result: Sendable>: Sendable {
    /// Where the pass is.
    package enum Status: Sendable {
        case running(done: Int64, total: Int64)
        case finished(Result)
        case cancelled
    }

    private final class Core: Sendable {
        let control: ScanControl
        let outcome = Mutex<Status?>(nil)
        let ended = DispatchSemaphore(value: 0)

        init(control: ScanControl) { self.control = control }

        func waitForEnd() {
            if outcome.withLock({ $0 }) != nil { return }
            ended.wait()
            ended.signal()   // for anyone else waiting
        }
    }

    private let core: Core

    /// Starts `body` on a new thread; `wake` is called (from that thread) on progress and
    /// at the end. `body` returns nil when it stopped because it was cancelled.
    package init(name: String, total: Int64, wake: @escaping @Sendable () -> Void,
                _ body: @escaping @Sendable (ScanControl) -> Result?) {
        let core = Core(control: ScanControl(total: total, wake: wake))
        self.core = core
        BackgroundThread.start(name: name) {
            BackgroundScan.yieldToInteractiveThreads()
            let result = body(core.control)
            let status: Status = core.control.isCancelled ? .cancelled : result.map(Status.finished) ?? .cancelled
            core.outcome.withLock { $0 = status }
            core.ended.signal()
            wake()
        }
    }

    deinit {
        core.control.cancel()
        core.waitForEnd()
    }

    /// Progress, the result, or that it was cancelled.
    package var status: Status {
        core.outcome.withLock { $0 } ?? .running(done: core.control.bytesDone, total: core.control.total)
    }

    /// Asks the pass to stop; its status becomes `.cancelled` when it has.
    package func cancel() { core.control.cancel() }

    /// Blocks until the pass has ended (for tests and the benchmark).
    package func wait() { core.waitForEnd() }

    /// Lowers the calling thread's priority a little, so that the thread that reads keys
    /// and draws gets a core first even when scans and other programs want every core.
    static func yieldToInteractiveThreads() {
        #if os(Linux)
        // On Linux the nice value belongs to a thread, and 0 means the calling one.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
        #endif
    }

    /// Threads started by `start`, joined by `wait()`: their starter owns them and waits
    /// for them before it goes on past what they use (on every way out, so none outlives
    /// it).
    package final class Join: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let count: Int
        private let waited = Atomic<Bool>(false)

        fileprivate init(count: Int) { self.count = count }

        fileprivate func signal() { done.signal() }

        /// Blocks until every thread has returned; later calls return at once.
        package func wait() {
            guard !waited.exchange(true, ordering: .acquiringAndReleasing) else { return }
            for _ in 0..<count { done.wait() }
        }
    }

    /// Starts `body(0)`, `body(1)`… each on a thread of its own and returns at once: for a
    /// caller that writes out earlier work while these run (the exporter's rounds).
    package static func start(_ count: Int, threadName: String = "csvfreeze scan", yieldsToInteractiveThreads: Bool = true,
                              _ body: @escaping @Sendable (Int) -> Void) -> Join {
        start(0..<count, threadName: threadName, yieldsToInteractiveThreads: yieldsToInteractiveThreads, body)
    }

    private static func start(_ indices: Range<Int>, threadName: String, yieldsToInteractiveThreads: Bool,
                              _ body: @escaping @Sendable (Int) -> Void) -> Join {
        let join = Join(count: indices.count)
        for index in indices {
            BackgroundThread.start(name: "\(threadName) \(index)") {
                if yieldsToInteractiveThreads { yieldToInteractiveThreads() }
                body(index)
                join.signal()
            }
        }
        return join
    }

    /// Runs `body(0)` on the calling thread and `body(1)`… on threads of their own, and
    /// returns when all have: the worker threads of every pass (scans, sorts, filters,
    /// SQL). Threads are named `threadName` and their number; those of a background pass
    /// yield to the interactive thread, those a caller waits for keep its priority.
    package static func runConcurrently(_ count: Int, threadName: String = "csvfreeze scan", yieldsToInteractiveThreads: Bool = true,
                                        _ body: @escaping @Sendable (Int) -> Void) {
        let others = start(1..<max(1, count), threadName: threadName, yieldsToInteractiveThreads: yieldsToInteractiveThreads, body)
        body(0)
        others.wait()
    }
}

/// What a pass shares with its owner: whether to stop, and how far it has come.
package final class ScanControl: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// What `cancel()` reaches, under one lock: the signals the pass is waiting on (woken,
    /// so a pass never waits for news that will not come once it is told to stop), and what
    /// stops work under way that does not look at `isCancelled` (see `running`).
    private struct Listeners {
        var isCancelled = false
        var signals: [ChangeSignal] = []
        var stops: [Int: @Sendable () -> Void] = [:]
        var nextStop = 0
    }
    private let listeners = Mutex(Listeners())
    private let done = Atomic<Int64>(0)
    /// Bytes the pass expects to read (for a percentage).
    package let total: Int64
    private let wake: @Sendable () -> Void
    private let step: Int64
    /// The pass this is a part of, and what this part's whole `total` counts there.
    private let owner: (control: ScanControl, worth: Int64)?

    package init(total: Int64 = 0, wake: @escaping @Sendable () -> Void = {}) {
        self.total = total
        self.wake = wake
        step = max(total / 50, 1 << 22)
        owner = nil
    }

    private init(total: Int64, owner: ScanControl, worth: Int64) {
        self.total = max(1, total)
        wake = {}
        step = Int64.max
        self.owner = (owner, worth)
    }

    /// A part of this pass counted in units of its own (a stacked table's bytes, in a
    /// search counting the stack's records): its `total` are worth `worth` of this pass's.
    /// It stops when this pass does, and its progress is this pass's.
    package func part(total: Int64, worth: Int64) -> ScanControl {
        ScanControl(total: total, owner: self, worth: worth)
    }

    package var isCancelled: Bool { cancelled.load(ordering: .relaxed) || owner?.control.isCancelled == true }

    package func cancel() {
        if let owner { return owner.control.cancel() }
        cancelled.store(true, ordering: .relaxed)
        let (stops, waiting) = listeners.withLock { state in
            state.isCancelled = true
            return (Array(state.stops.values), state.signals)
        }
        for stop in stops { stop() }
        for signal in waiting { signal.notify() }
    }

    /// Runs `work`, which cannot look at `isCancelled` (indexing a table), with `stop`
    /// called if the pass is cancelled meanwhile; false, and `work` not run, when it was
    /// cancelled before.
    @discardableResult
    package func running(_ work: () -> Void, stoppedBy stop: @escaping @Sendable () -> Void) -> Bool {
        if let owner { return owner.control.running(work, stoppedBy: stop) }
        // Registered under the lock `cancel()` takes: either it sees `stop`, or this sees it was cancelled.
        let key = listeners.withLock { state -> Int? in
            guard !state.isCancelled else { return nil }
            state.nextStop += 1
            state.stops[state.nextStop] = stop
            return state.nextStop
        }
        guard let key else { return false }
        work()
        listeners.withLock { _ = $0.stops.removeValue(forKey: key) }
        return true
    }

    /// Waits until `signal` publishes a change after `version` (read before looking at
    /// what is waited for), or the pass is cancelled; returns false when cancelled.
    @discardableResult
    package func wait(for signal: ChangeSignal, past version: UInt64) -> Bool {
        if let owner { return owner.control.wait(for: signal, past: version) }
        // Registered under the same lock `cancel()` takes: either it sees this signal and
        // wakes it, or this sees that it was cancelled.
        let registered = listeners.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.signals.append(signal)
            return true
        }
        guard registered else { return false }
        signal.wait(past: version)
        listeners.withLock { state in
            if let index = state.signals.firstIndex(where: { $0 === signal }) { state.signals.remove(at: index) }
        }
        return !isCancelled
    }
    package var bytesDone: Int64 { done.load(ordering: .relaxed) }

    /// Counts `bytes` more as done; wakes the owner every 2% (or 4 MiB).
    package func advance(by bytes: Int64) {
        let before = done.add(bytes, ordering: .relaxed).oldValue
        if let owner {
            // Each call counts the owner's units between its own before and after: however
            // the parts' threads interleave, the owner's count is this one's, scaled.
            let scale = Double(owner.worth) / Double(total)
            let counted = Int64(Double(before + bytes) * scale) - Int64(Double(before) * scale)
            if counted > 0 { owner.control.advance(by: counted) }
            return
        }
        if before / step != (before + bytes) / step { wake() }
    }
}
