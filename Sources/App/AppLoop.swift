import CellStore
import FreezeLayout
import SQL
import Viewer

/// The event loop: draws the sheet on top, waits for keys, news from the input and the
/// animation clock, and applies them. It owns a stack of sheets: the table at the bottom,
/// and any sheet pushed over it (a frequency or summary sheet), which `q` pops back.
///
/// With several inputs it is the container of the open tables (see `AppLoop+Tables`):
/// each table has its own viewer and its own stack of sheets, and the loop shows one.
///
/// It never touches a terminal: the executable gives it the real `Screen` and `Clock`,
/// tests give it fakes and drive it step by step.
package final class AppLoop {
    /// Time between animation frames: the spring-back takes at most 4 (≤ 150 ms).
    package static let frameInterval = 0.03
    /// News is looked at no more often than this while it keeps coming: sources mark every
    /// change (a megabyte indexed, a row of an SQL answer, a table counted), and the loop,
    /// not each of them, keeps time. News after a quiet spell is looked at at once.
    package static let newsInterval = 0.05
    /// A sheet whose pass is filling it (`SheetSource.isFilling`) takes its news no more
    /// often than this: its counts so far are merged and laid out on this thread. A pass's
    /// end is taken at the next look.
    package static let sheetInterval = 0.25

    /// A sheet on the stack: its viewer, and the pass that makes its rows (none for the table).
    struct Entry {
        let viewer: Viewer
        let source: SheetSource?
        /// The sheet that opened this one: what Enter on a row means applies there.
        weak var opener: Viewer?
    }

    /// The sheets of the table on screen, the table's viewer first.
    var entries: [Entry]
    /// The sheets, the table first; the last is on screen.
    package var sheets: [Viewer] { entries.map(\.viewer) }
    let screen: any Screen
    private let clock: any Clock
    /// Opens table `n`'s input again (for `R`, and a followed file that was truncated).
    let reopen: (Int) throws(CellStoreError) -> CellStore
    /// Opens another file as the inputs are opened: where a table's edits were saved, read
    /// instead of the table's input (nil: the table's input is read again).
    package var openPath: ((String) throws(CellStoreError) -> CellStore)?
    var lastFrame: Frame?
    /// The open tables, when there are several (nil: the one table the loop was made with).
    let shelf: TableShelf?
    /// Each table's viewer and sheets while it is not on screen, or what the user did in it
    /// once its viewer was put away (see `AppLoop+Tables`).
    var slots: [Slot]
    /// The table on screen (an index into `slots`).
    package internal(set) var current = 0
    /// Options for the viewer of a table shown for the first time.
    let tableOptions: ViewerOptions
    /// Called once for the viewer of each table shown for the first time (the command
    /// line's filters and sort apply to it).
    let prepare: (Viewer, Int) -> Void
    /// Bumped each time a table is shown, to put away the least recently shown.
    var useClock = 0
    /// The stacked view's viewer and sheets while a table is shown instead (nil until the
    /// tables are first stacked); see `AppLoop+Stack`.
    var stackEntries: [Entry]?
    /// True while the stacked view is on screen.
    package internal(set) var isStacked = false
    /// Told of a table's viewer (and its index) about to be put away to bound memory, while
    /// its store is still open: its session is kept then.
    package var onPutAway: ((Int, Viewer) -> Void)?
    /// The next animation frame is due at this time; nil while nothing moves (the loop
    /// then waits with no timeout, so an idle viewer uses no CPU).
    private var nextTick: Double?
    /// When news was last looked at, and when news heard since is to be (nil: none waits).
    private var lookedAt = -Double.infinity
    private var newsDue: Double?
    /// When filling sheets last took their news, and when the news they were not given
    /// at the last look is due (nil: none waits).
    private var sheetsTookAt = -Double.infinity
    private var sheetNewsDue: Double?
    /// 128 + the signal that ended the session, or 0.
    package private(set) var status: Int32 = 0
    /// True when a signal or the terminal's going away ended the session: unsaved edits
    /// were not asked about, and are kept in recovery files.
    package private(set) var endedWithoutAsking = false
    package private(set) var isFinished = false

    package init(table: Viewer, screen: any Screen, clock: any Clock,
                reopen: @escaping () throws(CellStoreError) -> CellStore) {
        entries = [Entry(viewer: table, source: nil)]
        self.screen = screen
        self.clock = clock
        self.reopen = { _ throws(CellStoreError) in try reopen() }
        shelf = nil
        slots = [Slot()]
        tableOptions = table.options
        prepare = { _, _ in }
    }

    /// A loop over the tables of `shelf`, showing `first` (table 0's viewer, made by the
    /// caller so that its errors come before the screen); the viewers of the others are
    /// made with `options` when they are first shown, and given to `prepare` then.
    package init(shelf: TableShelf, first: Viewer, options: ViewerOptions, screen: any Screen, clock: any Clock,
                stacked: Bool = false, prepare: @escaping (Viewer, Int) -> Void = { _, _ in }) {
        entries = [Entry(viewer: first, source: nil)]
        self.screen = screen
        self.clock = clock
        self.shelf = shelf
        self.reopen = { [unowned shelf] index throws(CellStoreError) in try shelf.freshStore(index) }
        slots = (0..<shelf.count).map { _ in Slot() }
        slots[0].hasBeenShown = true
        tableOptions = options
        self.prepare = prepare
        shelf.startCounting()
        if stacked && !shelf.hasDatabaseTables {
            // What the first table had to say (files skipped, a note on following) is said on the stack.
            let note = first.message
            enterStack()
            if let note { table.say(note) }
        }
    }

    /// The table (the bottom sheet).
    package var table: Viewer { entries[0].viewer }
    /// The sheet on screen.
    package var top: Viewer { entries[entries.count - 1].viewer }

    /// Puts `sheet` over the others; `q` or Esc in it comes back here.
    package func push(_ sheet: Viewer) {
        entries.append(Entry(viewer: sheet, source: nil, opener: top))
        lastFrame = nil
    }

    /// Puts a sheet made by a pass over the others (opened from `opener`, the top sheet
    /// unless said); it fills in as the pass runs.
    package func push(_ source: SheetSource, openedFrom opener: Viewer? = nil) {
        entries.append(Entry(viewer: source.viewer, source: source, opener: opener ?? top))
        lastFrame = nil
    }

    /// Runs until the user quits, a signal ends the session, or the terminal goes away.
    package func run() {
        while !isFinished { step() }
    }

    /// One turn: draw if needed, wait, apply what happened.
    package func step() {
        draw()
        if top.isAnimating {
            if nextTick == nil { nextTick = clock.now + Self.frameInterval }
        } else {
            nextTick = nil
        }
        // The wait ends at the first thing due: a frame, news put off, a sheet's news.
        let due = [nextTick, newsDue, sheetNewsDue].compactMap { $0 }.min()
        let happenings = screen.wait(timeout: due.map { max(0, $0 - clock.now) })
        let now = clock.now
        if let due = nextTick, now >= due {
            top.handle(.tick)
            nextTick = due + Self.frameInterval
        }
        if happenings.contains(.news) && newsDue == nil {
            newsDue = max(now, lookedAt + Self.newsInterval)
        }
        if let look = [newsDue, sheetNewsDue].compactMap({ $0 }).min(), now >= look { lookAtNews(now: now) }
        var changed: String?
        if happenings.contains(where: \.isInput) {
            // Before any key acts on rows read earlier: did the file change since? (The
            // list of tables and the stack show every table's: theirs too.)
            _ = table.file?.noticeChangeOnDisk()
            if isStacked || entries.last?.source is TableListSheet { changed = noticeTableChanges() }
        }
        for happening in happenings where !isFinished {
            apply(happening)
            settle()
            if table.wantsReload { break }
        }
        settle()
        if let changed, !isFinished { top.say(changed) }
    }

    /// Draws the top sheet when its frame changed.
    func draw() {
        if top.needsRefresh { top.handle(.refresh) }
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
            for entry in entries { entry.viewer.handle(.resize(size)) }
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
            for entry in entries { entry.viewer.handle(.resize(size)) }
        case .news:
            break
        case .signal(let number):
            status = 128 + number
            isFinished = true
            endedWithoutAsking = true
        case .hangUp:
            isFinished = true
            endedWithoutAsking = true
        }
    }

    /// Looks at the news: the screen's mark is taken first (news marked from here on
    /// wakes the loop again), then the shelf's stores and the sheets.
    private func lookAtNews(now: Double) {
        newsDue = nil
        lookedAt = now
        screen.takeNews()
        shelf?.takeNews()
        hearNews(now: now)
    }

    /// News from an input or a pass: every sheet takes it (a sheet's pass publishes its
    /// rows first; a filling one at most every `sheetInterval`, and then at its due time
    /// even if no news comes); a followed file that was truncated is read again from its
    /// start, one whose name holds a new file (rotated) is read anew.
    func hearNews(now: Double) {
        let sheetsMayTake = now >= sheetsTookAt + Self.sheetInterval
        var tookFilling = false, putOff = false
        for entry in entries {
            if let source = entry.source {
                if !source.isFilling {
                    source.update()
                } else if sheetsMayTake {
                    source.update()
                    tookFilling = true
                } else {
                    putOff = true
                }
            }
            entry.viewer.handle(.refresh)
        }
        if tookFilling { sheetsTookAt = now }
        sheetNewsDue = putOff ? sheetsTookAt + Self.sheetInterval : nil
        if let progress = table.file?.progress, table.options.follows && (progress.wasTruncated || progress.wasReplaced) {
            replaceTable(restarting: progress.wasTruncated ? "file truncated: following from its new start"
                                                           : "file replaced: following the new file")
        }
    }

    /// After a command: hands over the clipboard, pops a finished sheet, reloads.
    private func settle() {
        for entry in entries {
            if let bytes = entry.viewer.takeClipboard() { screen.copyToClipboard(bytes) }
        }
        if entries.count > 1, let record = top.takeSheetRecord(), let sheet = entries.last {
            // Enter on a sheet's row: the sheet says what it means for the one below.
            switch sheet.source?.choose(record: record) ?? .nothing {
            case .nothing:
                top.finish()
            case .command(let command):
                // It applies to the sheet that opened this one: the sheets above it close.
                let index = sheet.opener.flatMap { opener in entries.lastIndex { $0.viewer === opener } } ?? entries.count - 2
                for entry in entries[(index + 1)...] { entry.source?.cancel() }
                entries.removeSubrange((index + 1)...)
                lastFrame = nil
                if let opener = sheet.opener, entries[index].viewer === opener { opener.handle(command) }
            case .stay(let message):
                // Nothing to do for the sheet below: the sheet stays, saying why.
                top.say(message)
            case .push(let next):
                // The sheet stays under the one it opens, which answers to the same opener.
                push(next, openedFrom: sheet.opener)
            }
        }
        while entries.count > 1 && top.isFinished {
            let closed = entries.removeLast()
            lastFrame = nil
            closed.source?.cancel()
            if let farewell = closed.source?.farewell { top.say(farewell) }
        }
        if let source = top.takeSheet() { push(source) }
        if let query = top.takeQuery() {
            if let database = query.source as? DatabaseRows {
                push(QuerySheet(query: query.text, over: database, table: top))
            } else if let file = query.source.file {
                push(QuerySheet(query: query.text, over: file, table: top))
            }
        }
        if top.takeSheetSwitch(), let shown = entries.last, let other = shown.source?.switched() {
            // `%`: the column's sheet in its other form (bins, or values), in the same place.
            shown.source?.cancel()
            entries.removeLast()
            entries.append(Entry(viewer: other.viewer, source: other, opener: shown.opener))
            lastFrame = nil
        }
        if table.isFinished { isFinished = true }
        if table.wantsReload { replaceTable(restarting: nil) }
        if let saved = table.takeReopen() { replaceTable(savedTo: saved.path, isInput: saved.isInput, record: saved.record) }
        var request: TableRequest?
        for entry in entries {
            if let asked = entry.viewer.takeTableRequest() { request = asked }
        }
        if let request, !isFinished { perform(request) }
    }

    /// A new store and table for the same input, with what the user did kept (the
    /// freeze, widths, cursor and search); on failure the old one stays and says why.
    /// Sheets over the table describe the old store, so they close. `restarting` says why
    /// a followed file is read anew (truncated, or replaced under its name).
    func replaceTable(restarting: String?) {
        let old = table
        do {
            let fresh = Viewer(store: try reopen(current), options: old.options, screenSize: old.screenSize)
            old.file?.stopLoading()
            fresh.adopt(old)
            if let restarting {
                // The cursor on the new content's last row, followed on, as `tail -F` shows.
                fresh.moveCursor(toRow: max(0, fresh.dataRowCount - 1), column: old.cursorColumn)
                fresh.say(restarting)
            }
            for entry in entries.dropFirst() { entry.source?.cancel() }
            entries = [Entry(viewer: fresh, source: nil)]
            lastFrame = nil
        } catch {
            old.cancelReload(because: error.description)
        }
    }

    /// After the table's edits were saved to `path`: the table reads that file (its own
    /// input read again when `isInput`), the view kept, the cursor on `record` of it. If
    /// the file cannot be opened, the old table stays and says so.
    func replaceTable(savedTo path: String, isInput: Bool, record: Int?) {
        let old = table
        do {
            let store: CellStore
            if !isInput, let openPath { store = try openPath(path) } else { store = try reopen(current) }
            let fresh = Viewer(store: store, options: old.options, screenSize: old.screenSize)
            old.file?.stopLoading()
            fresh.adopt(old)
            fresh.say(old.message ?? "saved")
            if let record { fresh.awaitRecord(record, column: old.cursorColumn) }
            for entry in entries.dropFirst() { entry.source?.cancel() }
            entries = [Entry(viewer: fresh, source: nil)]
            lastFrame = nil
        } catch {
            old.say("saved to \(path), but it cannot be read back: \(error.description)")
        }
    }
}
