#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Dispatch
import Synchronization

/// Turns `step` until `condition` holds: the one way a test waits for work on other
/// threads (a loop woken with news, a view refreshed, a store read to its end, a screen
/// read again). True when `condition` holds; false once `seconds` have passed or the
/// running test was cancelled, which its time limit does: Swift Testing cannot stop
/// synchronous code, so a wait that missed both would hang the whole run.
///
/// Between two looks it calls `pause` (2 ms of sleep unless told, or a wait on a signal
/// that bounds itself), then `step`.
package func turn(within seconds: Double = 60, pausing pause: () -> Void = { usleep(2_000) },
                  _ step: () throws -> Void, until condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while try !condition() {
        if ContinuousClock.now >= deadline || Task.isCancelled { return false }
        pause()
        try step()
    }
    return true
}

/// `turn` with nothing to do between looks but `pause`: a plain bounded wait.
package func turn(within seconds: Double = 60, pausing pause: () -> Void = { usleep(2_000) }, until condition: () -> Bool) -> Bool {
    turn(within: seconds, pausing: pause, {}, until: condition)
}

/// `turn` for work that publishes on `news` whenever what `condition` looks at changes
/// (the sources' wake, a store's progress signal): between two looks it waits for news
/// past the version read before the look, so it never sleeps and misses no change. Once
/// `seconds` have passed a watchdog publishes on `news`, so that a wait for news that
/// never comes ends and the test fails instead of hanging.
package func turn(within seconds: Double = 60, news: ChangeSignal, _ step: () throws -> Void,
                  until condition: () throws -> Bool) rethrows -> Bool {
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
        if try condition() { return true }
        try step()
        if try condition() { return true }
        if expired.load(ordering: .acquiring) || Task.isCancelled { return false }
        news.wait(past: version)
    }
}
