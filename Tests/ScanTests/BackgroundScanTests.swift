import Scan
import Synchronization
import Testing

@Suite("Background scan")
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
                while !control.isCancelled { control.advance(by: 1) }
                flags.ended.store(true, ordering: .relaxed)
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
            while !control.isCancelled {}
            return 1
        }
        cancelled.cancel()
        cancelled.wait()
        guard case .cancelled = cancelled.status else {
            Issue.record("not cancelled: \(cancelled.status)")
            return
        }
    }
}
