import CellStore
import Dispatch
import Synchronization

/// Turns something driven a step at a time (an event loop, a viewer) until `condition`
/// holds, waiting between turns for news on `news` (which the sources' wake publishes),
/// never sleeping: a turn that found nothing new waits until something changes. False
/// when `condition` does not hold within `seconds`: a watchdog then publishes on `news`,
/// so that a wait for news that never comes ends and the test fails instead of hanging.
package func turnUntil(_ condition: () -> Bool, news: ChangeSignal, seconds: Double = 60, turn: () -> Void) -> Bool {
    let expired = Atomic<Bool>(false)
    let watchdog = DispatchWorkItem {
        expired.store(true, ordering: .releasing)
        news.notify()
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
    defer { watchdog.cancel() }
    while true {
        // Read before the turn looks: news during or after it moves it on.
        let version = news.version
        if condition() { return true }
        turn()
        if condition() { return true }
        if expired.load(ordering: .acquiring) { return false }
        news.wait(past: version)
    }
}
