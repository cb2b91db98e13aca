import Synchronization

/// A queue from one thread to another that holds a bounded number of elements: the
/// producer waits for room, the consumer for elements, and both wait on one
/// `ChangeSignal`, with no time limit. Every change (a push, a take, the end, a close)
/// publishes on it, so neither side can miss the other's.
///
/// The producer ends the queue with `finish()`; the consumer goes with `close()`: the
/// producer's next push fails (it is to stop), while elements already queued stay
/// readable. What the diff hands its viewer, the grouped scan its cursor, and the
/// decompressor its loader.
package final class BoundedQueue<Element: Sendable>: Sendable {
    private struct State {
        var elements: [Element] = []
        /// Elements before this one were taken (dropped in one go once they are half).
        var start = 0
        var isFinished = false
        var isClosed = false

        var count: Int { elements.count - start }
    }

    private let state = Mutex(State())
    private let changes = ChangeSignal()
    /// Elements held at most: a push waits until fewer are held (a push of several then
    /// adds them all).
    package let limit: Int
    /// Called when elements come into an empty queue: a consumer that takes on news
    /// rather than waiting (an event loop) hears once per time it emptied the queue.
    private let onArrival: @Sendable () -> Void

    package init(limit: Int, onArrival: @escaping @Sendable () -> Void = {}) {
        self.limit = max(1, limit)
        self.onArrival = onArrival
    }

    /// Adds `element`, waiting while the queue is full; false when the consumer has gone.
    @discardableResult
    package func push(_ element: Element) -> Bool { push(contentsOf: [element]) }

    /// Adds `elements`, waiting while the queue is full; false when the consumer has gone.
    @discardableResult
    package func push(contentsOf elements: [Element]) -> Bool {
        guard !elements.isEmpty else { return true }
        while true {
            let version = changes.version
            // nil: full; else whether they were added, and whether the queue was empty.
            let outcome: (added: Bool, wasEmpty: Bool)? = state.withLock { state in
                if state.isClosed { return (false, false) }
                guard state.count < limit else { return nil }
                let wasEmpty = state.count == 0
                if state.start > 0 && state.start * 2 > state.elements.count {
                    state.elements.removeSubrange(..<state.start)
                    state.start = 0
                }
                state.elements.append(contentsOf: elements)
                return (true, wasEmpty)
            }
            guard let outcome else {
                changes.wait(past: version)
                continue
            }
            if outcome.added {
                changes.notify()
                if outcome.wasEmpty { onArrival() }
            }
            return outcome.added
        }
    }

    /// No more elements will come.
    package func finish() {
        state.withLock { $0.isFinished = true }
        changes.notify()
    }

    /// The consumer goes: a producer waiting for room, or pushing later, gets false.
    package func close() {
        state.withLock { $0.isClosed = true }
        changes.notify()
    }

    /// True once the consumer has gone.
    package var isClosed: Bool { state.withLock { $0.isClosed } }

    /// The next element, waiting for it; nil once the queue is finished or closed, and empty.
    package func pop() -> Element? { take(1)?.first }

    /// Up to `count` elements, waiting for at least one; nil once the queue is finished or
    /// closed, and empty. Empty once `isStopped` holds while none is there: whoever makes
    /// it hold calls `interrupt()`, so the wait ends.
    package func take(_ count: Int, isStopped: () -> Bool = { false }) -> [Element]? {
        while true {
            let version = changes.version
            guard let taken = poll(count) else { return nil }
            if !taken.isEmpty || isStopped() { return taken }
            changes.wait(past: version)
        }
    }

    /// Wakes a `take` waiting now, to look at its `isStopped` again; changes nothing.
    package func interrupt() { changes.notify() }

    /// Up to `count` elements without waiting: empty when none is there yet, nil once the
    /// queue is finished or closed, and empty.
    package func poll(_ count: Int) -> [Element]? {
        let taken: [Element]? = state.withLock { state in
            let available = state.count
            guard available > 0 else { return state.isFinished || state.isClosed ? nil : [] }
            let end = state.start + min(max(1, count), available)
            let taken = Array(state.elements[state.start..<end])
            state.start = end
            if state.start == state.elements.count {
                state.elements.removeAll(keepingCapacity: true)
                state.start = 0
            }
            return taken
        }
        if let taken, !taken.isEmpty { changes.notify() }
        return taken
    }
}
