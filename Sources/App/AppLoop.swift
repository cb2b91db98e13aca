import CellStore
import FreezeLayout
import Viewer

/// The event loop: draws the sheet on top, waits for keys, news from the input and the
/// animation clock, and applies them. It owns a stack of sheets: the table at the bottom,
/// and any sheet pushed over it (a frequency or summary sheet), which `q` pops back.
///
/// It never touches a terminal: the executable gives it the real `Screen` and `Clock`,
/// tests give it fakes and drive it step by step.
public final class AppLoop {
    /// Time between animation frames: the spring-back takes at most 4 (≤ 150 ms).
    public static let frameInterval = 0.03

    /// The sheets, the table first; the last is on screen.
    public private(set) var sheets: [Viewer]
    private let screen: any Screen
    private let clock: any Clock
    /// Opens the input again (for `R`, and a followed file that was truncated).
    private let reopen: () throws(CellStoreError) -> CellStore
    private var lastFrame: Frame?
    /// The next animation frame is due at this time; nil while nothing moves (the loop
    /// then waits with no timeout, so an idle viewer uses no CPU).
    private var nextTick: Double?
    /// 128 + the signal that ended the session, or 0.
    public private(set) var status: Int32 = 0
    public private(set) var isFinished = false

    public init(table: Viewer, screen: any Screen, clock: any Clock,
                reopen: @escaping () throws(CellStoreError) -> CellStore) {
        sheets = [table]
        self.screen = screen
        self.clock = clock
        self.reopen = reopen
    }

    /// The table (the bottom sheet).
    public var table: Viewer { sheets[0] }
    /// The sheet on screen.
    public var top: Viewer { sheets[sheets.count - 1] }

    /// Puts `sheet` over the others; `q` or Esc in it comes back here.
    public func push(_ sheet: Viewer) {
        sheets.append(sheet)
        lastFrame = nil
    }

    /// Runs until the user quits, a signal ends the session, or the terminal goes away.
    public func run() {
        while !isFinished { step() }
    }

    /// One turn: draw if needed, wait, apply what happened.
    public func step() {
        draw()
        if top.isAnimating {
            if nextTick == nil { nextTick = clock.now + Self.frameInterval }
        } else {
            nextTick = nil
        }
        let happenings = screen.wait(timeout: nextTick.map { max(0, $0 - clock.now) })
        if let due = nextTick, clock.now >= due {
            top.handle(.tick)
            nextTick = due + Self.frameInterval
        }
        if happenings.contains(.news) { hearNews() }
        if happenings.contains(where: \.isInput) {
            // Before any key acts on rows read earlier: did the file change since?
            _ = table.store.noticeChangeOnDisk()
        }
        for happening in happenings where !isFinished {
            apply(happening)
            settle()
            if table.wantsReload { break }
        }
        settle()
    }

    /// Draws the top sheet when its frame changed.
    private func draw() {
        let frame = top.frame()
        if frame != lastFrame {
            screen.draw(frame)
            lastFrame = frame
        }
    }

    private func apply(_ happening: Happening) {
        switch happening {
        case .key(Key.control("z")):
            // Suspend, in every mode: the terminal is the session's, not the sheet's.
            let size = screen.suspend()
            for sheet in sheets { sheet.handle(.resize(size)) }
            lastFrame = nil
        case .key(Key.control("l")):
            screen.forgetContents()
            lastFrame = nil
        case .key(Key.control("c")):
            // Quits from anywhere, whatever sheet is on top.
            top.handle(key: Key.control("c"))
            isFinished = true
        case .key(let key):
            top.handle(key: key)
        case .mouse(let event):
            top.handle(.mouse(event))
        case .resize(let size):
            for sheet in sheets { sheet.handle(.resize(size)) }
        case .news:
            break
        case .signal(let number):
            status = 128 + number
            isFinished = true
        case .hangUp:
            isFinished = true
        }
    }

    /// News from an input: every sheet takes it; a followed file that was truncated is
    /// read again from its start.
    private func hearNews() {
        for sheet in sheets { sheet.handle(.refresh) }
        if table.options.follows && table.store.progress.wasTruncated {
            replaceTable(restarting: true)
        }
    }

    /// After a command: hands over the clipboard, pops a finished sheet, reloads.
    private func settle() {
        for sheet in sheets {
            if let bytes = sheet.takeClipboard() { screen.copyToClipboard(bytes) }
        }
        while sheets.count > 1 && top.isFinished {
            sheets.removeLast()
            lastFrame = nil
        }
        if table.isFinished { isFinished = true }
        if table.wantsReload { replaceTable(restarting: false) }
    }

    /// A new store and table for the same input, with what the user did kept (the
    /// freeze, widths, cursor and search); on failure the old one stays and says why.
    /// Sheets over the table describe the old store, so they close.
    private func replaceTable(restarting: Bool) {
        let old = table
        do {
            let fresh = Viewer(store: try reopen(), options: old.options, screenSize: old.screenSize)
            old.store.stopLoading()
            fresh.adopt(old)
            if restarting {
                // The cursor on the new content's last row, followed on, as `tail -F` shows.
                fresh.moveCursor(toRow: max(0, fresh.dataRowCount - 1), column: old.cursorColumn)
                fresh.say("file truncated: following from its new start")
            }
            sheets = [fresh]
            lastFrame = nil
        } catch {
            old.cancelReload(because: error.description)
        }
    }
}
