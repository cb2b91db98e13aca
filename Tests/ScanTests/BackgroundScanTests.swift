import CellStore
import Foundation
import Scan
import Synchronization
import Testing
import TestSupport

@Suite("Background scan", .timeLimit(.minutes(30)))
struct BackgroundScanTests {
    final class Flags: Sendable {
        let started = Atomic<Bool>(false)
        let ended = Atomic<Bool>(false)
        let wakes = Atomic<Int>(0)
    }

    @Test("dropping the scan stops its thread before the owner goes on")
    func dropStops() {
        let flags = Flags()
        do {
            let scan = BackgroundScan<Int>(name: "test scan", total: 0, wake: {}) { control in
                flags.started.store(true, ordering: .relaxed)
                // Until the drop cancels it (a minute at most: a cancel that never comes fails).
                let cancelled = turn(pausing: {}, { control.advance(by: 1) }, until: { control.isCancelled })
                flags.ended.store(cancelled, ordering: .relaxed)
                return nil
            }
            _ = scan.status
        }
        let started = flags.started.load(ordering: .relaxed), ended = flags.ended.load(ordering: .relaxed)
        #expect(started)
        #expect(ended)
    }

    @Test("a finished pass hands over its result and wakes its owner; a cancelled one says so")
    func result() {
        let flags = Flags()
        let scan = BackgroundScan<Int>(name: "test scan", total: 100 << 22, wake: { flags.wakes.add(1, ordering: .relaxed) }) { control in
            for _ in 0..<100 { control.advance(by: 1 << 22) }
            return 42
        }
        scan.wait()
        guard case .finished(42) = scan.status else {
            Issue.record("not finished with 42: \(scan.status)")
            return
        }
        #expect(flags.wakes.load(ordering: .relaxed) >= 50)
        let cancelled = BackgroundScan<Int>(name: "test scan", total: 0, wake: {}) { control in
            _ = turn(pausing: {}, until: { control.isCancelled })
            return 1
        }
        cancelled.cancel()
        cancelled.wait()
        guard case .cancelled = cancelled.status else {
            Issue.record("not cancelled: \(cancelled.status)")
            return
        }
    }

    @Test("a pass waiting on a signal goes on when it is published, and stops at once when cancelled")
    func waitsOnASignal() {
        let signal = ChangeSignal()
        let published = Mutex(0)
        // The pass waits for the third change; it looks only when woken.
        let scan = BackgroundScan<Int>(name: "test scan", total: 0, wake: {}) { control in
            while true {
                let version = signal.version
                let seen = published.withLock { $0 }
                if seen >= 3 { return seen }
                guard control.wait(for: signal, past: version) else { return nil }
            }
        }
        for count in 1...3 {
            published.withLock { $0 = count }
            signal.notify()
        }
        #expect(Self.ends(scan), "the third change was missed")
        guard case .finished(3) = scan.status else {
            Issue.record("not finished with 3: \(scan.status)")
            return
        }
        // Nothing is ever published: only the cancel can end the wait.
        let waiting = BackgroundScan<Int>(name: "test scan", total: 0, wake: {}) { control in
            let version = signal.version
            return control.wait(for: signal, past: version) ? 1 : nil
        }
        waiting.cancel()
        #expect(Self.ends(waiting), "the cancel did not wake the pass")
        guard case .cancelled = waiting.status else {
            Issue.record("not cancelled: \(waiting.status)")
            return
        }
    }

    /// True when `scan` ends within a minute (a pass that never wakes fails, not hangs).
    private static func ends<Result>(_ scan: BackgroundScan<Result>) -> Bool {
        let ended = DispatchSemaphore(value: 0)
        let thread = Thread {
            scan.wait()
            ended.signal()
        }
        thread.start()
        return ended.wait(timeout: .now() + 60) == .success
    }
}
