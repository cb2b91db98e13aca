import FreezeLayout
import Viewer

/// Something that happened, as the event loop hears of it.
package enum Happening: Sendable, Equatable {
    case key(Key)
    case mouse(MouseEvent)
    case resize(Size)
    /// The input has news (more rows, progress, the end).
    case news
    /// A signal that ends the session (SIGTERM, SIGHUP, SIGINT): exit status 128 + it.
    case signal(Int32)
    /// The terminal went away.
    case hangUp
}

extension Happening {
    /// A key or a mouse event: the user's doing.
    var isInput: Bool {
        switch self {
        case .key, .mouse: return true
        default: return false
        }
    }
}

/// Where the loop draws and what it waits on: the terminal, or a fake in tests.
package protocol Screen: AnyObject {
    var size: Size { get }
    /// Shows `frame` (the loop calls it only when the frame changed).
    func draw(_ frame: Frame)
    /// Waits until something happens or `timeout` seconds pass (nil: no limit); returns
    /// everything that happened, in order (empty on a timeout).
    func wait(timeout: Double?) -> [Happening]
    /// The loop is about to look at the news it heard of: news marked from now on is to
    /// wake it again (see `NewsMark`).
    func takeNews()
    /// Gives the terminal back to the shell until the user resumes (Ctrl-Z); returns the
    /// size then.
    func suspend() -> Size
    /// Forgets what is on the terminal, so the next frame is drawn whole (Ctrl-L).
    func forgetContents()
    /// Puts bytes on the clipboard (OSC 52).
    func copyToClipboard(_ bytes: [UInt8])
}

extension Screen {
    /// A screen whose news is not marked (a test's) has nothing to take.
    package func takeNews() {}
}

/// The time, in seconds, from any fixed start.
package protocol Clock: AnyObject {
    var now: Double { get }
}
