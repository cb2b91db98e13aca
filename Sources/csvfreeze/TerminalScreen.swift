#if canImport(Glibc)
import Glibc
#endif
import App
import FreezeLayout
import Terminal
import Viewer

/// The pipe that wakes the screen's loop: news writes `TerminalScreen.newsByte` to it
/// (through `mark`: once until the loop has looked), signal handlers their number; both
/// ends never block and are closed in a child process.
struct WakePipe {
    let read: Int32
    let write: Int32
    /// Marks news for the loop: the first mark since the loop last looked writes a byte.
    let mark: NewsMark

    /// Opens the pipe, or says so and exits with `failureStatus` (a diff's trouble is 2,
    /// the viewer's 1).
    init(failureStatus: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fail("cannot create a pipe", status: failureStatus) }
        for descriptor in ends {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        read = ends[0]
        write = ends[1]
        let descriptor = write
        mark = NewsMark {
            var byte = TerminalScreen.newsByte
            _ = Glibc.write(descriptor, &byte, 1)
        }
    }

    /// Tells the loop there is news (new rows, a finished pass): what every source is given.
    var news: @Sendable () -> Void {
        let mark = self.mark
        return { mark.mark() }
    }
}

/// The real screen: ncurses for drawing and keys, and a pipe that the loader (news) and
/// signal handlers (their numbers) write to, polled together with the terminal.
final class TerminalScreen: Screen {
    /// Byte the loader writes to the wake pipe; signals write their own number.
    static let newsByte: UInt8 = 0

    let session: TerminalSession
    private let wakeRead: Int32
    private let news: NewsMark

    /// Takes the terminal (or says why not and exits with 2): signals are routed to the
    /// wake pipe, the mouse is read when `mouse` is true.
    static func startSession(theme: Theme, escapeDelay: Int?, mouse: Bool, signalsTo wake: WakePipe) -> TerminalSession {
        let session: TerminalSession
        do {
            session = try TerminalSession(theme: theme, escapeDelay: escapeDelay)
        } catch {
            fail(error.description, status: 2)
        }
        session.routeSignals(to: wake.write)
        if mouse { session.enableMouse() }
        return session
    }

    init(session: TerminalSession, wake: WakePipe) {
        self.session = session
        wakeRead = wake.read
        news = wake.mark
    }

    var size: Size { session.size }

    func draw(_ frame: Frame) { session.draw(frame) }

    func wait(timeout: Double?) -> [Happening] {
        let milliseconds = timeout.map { Int32(($0 * 1000).rounded(.up)) } ?? -1
        var fds = [pollfd(fd: session.inputDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 2, milliseconds) < 0 { return errno == EINTR ? [] : [.hangUp] }
        var happenings: [Happening] = []
        if fds[1].revents != 0 {
            var bytes = [UInt8](repeating: 0, count: 256)
            while true {
                let count = read(wakeRead, &bytes, bytes.count)
                if count <= 0 { break }
                for byte in bytes[..<count] {
                    switch Int32(byte) {
                    case Int32(Self.newsByte): if !happenings.contains(.news) { happenings.append(.news) }
                    case SIGWINCH: happenings.append(.resize(session.refreshSize()))
                    default: happenings.append(.signal(Int32(byte)))
                    }
                }
            }
        }
        if fds[0].revents != 0 {
            var gotEvent = false
            while let event = session.nextEvent() {
                gotEvent = true
                switch event {
                case .key(let key): happenings.append(.key(key))
                case .mouse(let event): happenings.append(.mouse(event))
                case .resize(let size): happenings.append(.resize(size))
                }
            }
            if !gotEvent && fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { happenings.append(.hangUp) }
        }
        return happenings
    }

    func takeNews() { news.take() }

    func suspend() -> Size {
        session.suspend()
        return session.size
    }

    func forgetContents() { session.repaintAll() }

    func copyToClipboard(_ bytes: [UInt8]) { session.copyToClipboard(bytes) }
}

/// The monotonic clock.
final class MonotonicClock: Clock {
    var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
