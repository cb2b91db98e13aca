import Synchronization

/// News for the event loop, marked from any thread and taken by the loop: the first mark
/// after the loop took the news wakes it (`wake`: a byte down the wake pipe); later marks
/// find it marked and cost an atomic exchange, until the loop takes the news.
///
/// Sources mark every change they make (a megabyte indexed, a row of an SQL answer, a
/// table counted): none of them keeps time. The loop decides when to look, on its clock
/// (`AppLoop.newsInterval`), and takes the mark before it looks, so news marked while it
/// looks wakes it again: nothing marked is left unseen.
package final class NewsMark: Sendable {
    private let isMarked = Atomic<Bool>(false)
    private let wake: @Sendable () -> Void

    package init(wake: @escaping @Sendable () -> Void) { self.wake = wake }

    /// There is news: wakes the loop unless it has been woken since it last looked.
    package func mark() {
        if !isMarked.exchange(true, ordering: .acquiringAndReleasing) { wake() }
    }

    /// The loop is about to look: the next mark wakes it again.
    package func take() {
        _ = isMarked.exchange(false, ordering: .acquiringAndReleasing)
    }
}
