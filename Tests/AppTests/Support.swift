#if canImport(Glibc)
import Glibc
#endif
import App
import Testing
import TestSupport

/// Turns `subject` with news until `condition` holds, as the terminal's loop turns each
/// time a thread wakes it: `TestSupport.turn` (a minute at most, and the test's time
/// limit), with an issue naming `what` and the status line when it does not hold.
/// `pause` comes before each turn (2 ms unless told, or a wait for the loop's wake).
func turn(_ subject: AppLoop, _ screen: FakeScreen, until what: String, pausing pause: () -> Void = { usleep(2_000) },
          sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) {
    let held = TestSupport.turn(pausing: pause, {
        screen.script = [[.news]]
        subject.step()
    }, until: condition)
    if !held {
        Issue.record("timed out waiting for \(what); the status line: \(subject.top.frame().lines.last ?? "")",
                     sourceLocation: sourceLocation)
    }
}
