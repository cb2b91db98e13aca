#if canImport(Glibc)
import Glibc
#endif
import App
import Testing
import TestSupport

/// Turns `subject` with news until `condition` holds, as the terminal's loop turns each
/// time a thread wakes it: `FakeScreen.turn` (a second of fake time a turn, so whatever
/// the loop put off is due; between turns a wait for the sources' news on the screen's
/// signal, a minute at most), with an issue naming `what` when it does not hold.
func turn(_ subject: AppLoop, _ screen: FakeScreen, until what: String,
          sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) {
    screen.turn(subject, until: what, condition, sourceLocation: sourceLocation)
}
