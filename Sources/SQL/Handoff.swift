import CellStore
import Synchronization

/// A state that threads share under a lock, and a signal to wait for its changes: what a
/// condition variable gives, made of a `Mutex` and a `ChangeSignal`, so that the compiler
/// checks everything that goes from one thread to another through it (the state is
/// `Sendable`).
///
/// A waiter reads the signal's version before it looks at the state; every change
/// publishes after it is made, so a change made between the look and the wait is never
/// missed (see `ChangeSignal`).
final class Handoff<State: Sendable>: Sendable {
    private let state: Mutex<State>
    private let news = ChangeSignal()

    init(_ initial: State) { state = Mutex(initial) }

    /// Changes the state and wakes every thread waiting on it.
    @discardableResult
    func change<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        let result = state.withLock { body(&$0) }
        news.notify()
        return result
    }

    /// Reads the state.
    func read<Result: Sendable>(_ body: (State) -> Result) -> Result {
        state.withLock { body($0) }
    }

    /// Waits until `body` returns a value, looking again after each change; `body` may
    /// change the state as it returns one (the other threads are then woken).
    func await<Result: Sendable>(_ body: (inout State) -> Result?) -> Result {
        while true {
            let version = news.version
            if let result = state.withLock({ body(&$0) }) {
                news.notify()
                return result
            }
            news.wait(past: version)
        }
    }
}
