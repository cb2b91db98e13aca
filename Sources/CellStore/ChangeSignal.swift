import Dispatch
import Synchronization

/// A version number that a producer bumps when it has news (the loader's index grew, a
/// filter found more rows, a pass ended), and that other threads wait on instead of
/// polling.
///
/// A waiter reads `version`, looks at what it waits for, and when that is not there yet
/// waits past the version it read: a change published in between is never missed, since
/// it moved the version on. Waking more often than needed is harmless (waiters look
/// again); missing a change is what this rules out, on one condition: every change to
/// what a waiter looks at publishes, whoever makes it. A wait has no time limit, and
/// there is no timed one: a change that publishes nothing is a bug to fix where it is
/// made, not to hide behind a waiter that looks again every so often.
public final class ChangeSignal: Sendable {
    private let state = Mutex<(version: UInt64, waiters: [DispatchSemaphore])>((0, []))

    package init() {}

    /// The number of changes published so far.
    package var version: UInt64 { state.withLock { $0.version } }

    /// Publishes a change: every thread waiting wakes.
    package func notify() {
        let waiters = state.withLock { state -> [DispatchSemaphore] in
            state.version &+= 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    /// Returns once a change after `version` has been published (at once if one has).
    package func wait(past version: UInt64) {
        let semaphore = DispatchSemaphore(value: 0)
        let waits = state.withLock { state -> Bool in
            guard state.version == version else { return false }
            state.waiters.append(semaphore)
            return true
        }
        if waits { semaphore.wait() }
    }
}
