#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Terminal
import Viewer

/// The interactive path: the store, the terminal, and the event loop between them.
enum Session {
    /// Byte the loader writes to the wake pipe; signals write their own number.
    static let newsByte: UInt8 = 0

    /// Runs the viewer until the user quits; returns the exit status.
    /// Time between animation frames: the spring-back takes at most 4 (≤ 150 ms).
    static let frameInterval = 0.03

    /// Exit status with `--echo` when the user quit without choosing (fzf's, for the same case).
    static let cancelledStatus: Int32 = 130

    static func run(path: String?, delimiter: UInt8?, quote: UInt8?, preamble: PreambleRule, spoolLimit: SpoolLimit,
                    options given: ViewerOptions, mouse: Bool, theme: Theme = .auto, terminator: UInt8 = 0x0A) -> Int32 {
        var options = given
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else { fail("cannot create a pipe", status: 1) }
        for descriptor in wake {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        let wakeWrite = wake[1]
        // Open the input before touching the terminal, so a bad path leaves it alone.
        func open() throws(CellStoreError) -> CellStore {
            try CellStore.open(path: path, delimiter: delimiter, quote: quote, preamble: preamble, follows: options.follows,
                               spoolLimit: spoolLimit, onChange: {
                var byte = Session.newsByte
                _ = Glibc.write(wakeWrite, &byte, 1)
            })
        }
        let store: CellStore
        do {
            store = try open()
        } catch {
            fail(error.description, status: 1)
        }
        // A compressed file is read once: it changes only as a whole (see DECISIONS.md).
        var notice: String?
        if options.follows, let compression = store.compressionName {
            options.follows = false
            notice = "a \(compression) file is read once, not followed (R reads it again)"
        }
        let session: TerminalSession
        do {
            session = try TerminalSession(theme: theme)
        } catch {
            fail(error.description, status: 2)
        }
        session.routeSignals(to: wakeWrite)
        if mouse { session.enableMouse() }
        var viewer = Viewer(store: store, options: options, screenSize: session.size)
        var environment: [String: String] = [:]
        for name in ["CSVFREEZE_HISTORY", "XDG_STATE_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        let historyPath = HistoryFile.path(environment: environment)
        viewer.history = HistoryFile.load(from: historyPath)
        if let notice { viewer.say(notice) }
        var status: Int32 = 0
        var lastFrame: Frame?
        // The next animation frame is due at this time; nil while nothing moves, and then
        // poll blocks with no timeout, so an idle viewer uses no CPU.
        var nextTick: Double?
        loop: while !viewer.isFinished {
            let frame = viewer.frame()
            if frame != lastFrame {
                session.draw(frame)
                lastFrame = frame
            }
            if viewer.isAnimating {
                if nextTick == nil { nextTick = now() + frameInterval }
            } else {
                nextTick = nil
            }
            let timeout = nextTick.map { Int32(max(0, ($0 - now()) * 1000).rounded(.up)) } ?? -1
            var fds = [pollfd(fd: session.inputDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, timeout) < 0 {
                if errno == EINTR { continue }
                break
            }
            if let due = nextTick, now() >= due {
                viewer.handle(.tick)
                nextTick = due + frameInterval
            }
            if fds[1].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 256)
                var hadNews = false
                while true {
                    let count = read(wake[0], &bytes, bytes.count)
                    if count <= 0 { break }
                    for byte in bytes[..<count] {
                        switch Int32(byte) {
                        case Int32(newsByte): hadNews = true
                        case SIGWINCH: viewer.handle(.resize(session.refreshSize()))
                        default:
                            status = 128 + Int32(byte)
                            break loop
                        }
                    }
                }
                if hadNews { viewer.handle(.refresh) }
                if hadNews && options.follows && viewer.store.progress.wasTruncated {
                    viewer = restarted(viewer, open: open)
                }
            }
            defer {
                if let bytes = viewer.takeClipboard() { session.copyToClipboard(bytes) }
                if viewer.wantsReload {
                    viewer = reloaded(viewer, open: open)
                }
            }
            if fds[0].revents != 0 {
                // Before any key acts on rows read earlier: did the file change since?
                viewer.store.noticeChangeOnDisk()
                var gotEvent = false
                while let event = session.nextEvent() {
                    gotEvent = true
                    switch event {
                    case .key(Key.control("z")):
                        // Suspend, in every mode: the terminal is the session's, not the viewer's.
                        session.suspend()
                        viewer.handle(.resize(session.size))
                        lastFrame = nil
                    case .key(Key.control("l")):
                        session.repaintAll()
                        lastFrame = nil
                    case .key(let key): viewer.handle(key: key)
                    case .mouse(let event): viewer.handle(.mouse(event))
                    case .resize(let size): viewer.handle(.resize(size))
                    }
                    if viewer.isFinished || viewer.wantsReload { break }
                }
                if !gotEvent && fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                    // The terminal went away.
                    break
                }
            }
        }
        session.end()
        HistoryFile.save(viewer.history, to: historyPath)
        viewer.store.stopLoading()
        if let choice = viewer.chosen {
            // A column is read again from the input: only a file can be (a FIFO would wait
            // for a writer that is gone).
            return echo(choice, path: viewer.store.isReloadable ? path : nil, delimiter: delimiter, quote: quote,
                        preamble: preamble, headerRows: options.headerRows, terminator: terminator)
        }
        // A script must tell "quit without choosing" from "chose an empty cell".
        if options.echo != nil && status == 0 { return cancelledStatus }
        return status
    }

    /// Prints what `--echo` chose, on stdout, once the terminal is restored: a cell or a
    /// row as it is, or every data value of a column (streamed), each followed by
    /// `terminator` (a line feed, or NUL with `-0`).
    static func echo(_ choice: Choice, path: String?, delimiter: UInt8?, quote: UInt8?, preamble: PreambleRule,
                     headerRows: Int, terminator: UInt8) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        switch choice {
        case .bytes(let bytes):
            _ = Output.writeToStandardOutput(bytes + [terminator])
        case .column(let column):
            guard path != nil && path != "-" else {
                fail("--echo column needs a FILE it can read again (a pipe or FIFO was read already)", status: 1)
            }
            var seen = 0
            var buffer: [UInt8] = []
            var pieces = RecordPieces()
            do {
                try RecordStream.forEach(path: path, delimiter: delimiter, quote: quote, preamble: preamble) { row in
                    // A record with a cell over the parser's limit comes in pieces.
                    let first = pieces.place(row)
                    defer { if !row.continuesInNext { seen += 1 } }
                    guard seen >= headerRows else { return true }
                    if column >= first { buffer.append(contentsOf: row.field(column - first)) }
                    if !row.continuesInNext { buffer.append(terminator) }
                    // Written out piece by piece too, so a value of any size streams.
                    if buffer.count >= 1 << 16 {
                        defer { buffer.removeAll(keepingCapacity: true) }
                        return Output.writeToStandardOutput(buffer)
                    }
                    return true
                }
            } catch {
                fail(error.description, status: 1)
            }
            _ = Output.writeToStandardOutput(buffer)
        }
        return 0
    }

    /// A new store and viewer for the same file, the cursor where it was. On failure the
    /// old ones stay, with the reason in the status line.
    static func reloaded(_ viewer: Viewer, open: () throws(CellStoreError) -> CellStore) -> Viewer {
        do {
            let fresh = Viewer(store: try open(), options: viewer.options, screenSize: viewer.screenSize)
            viewer.store.stopLoading()
            fresh.adopt(viewer)
            return fresh
        } catch {
            viewer.cancelReload(because: error.description)
            return viewer
        }
    }

    /// A followed file was truncated (copytruncate rotation): like `tail -F`, it is read
    /// again from its start, and followed on; the status line says so.
    static func restarted(_ viewer: Viewer, open: () throws(CellStoreError) -> CellStore) -> Viewer {
        do {
            let fresh = Viewer(store: try open(), options: viewer.options, screenSize: viewer.screenSize)
            viewer.store.stopLoading()
            // Widths and freezes as they were; the cursor on the new content's last row,
            // followed on, as `tail -F` shows the new lines.
            fresh.adopt(viewer)
            fresh.moveCursor(toRow: max(0, fresh.dataRowCount - 1), column: viewer.cursorColumn)
            fresh.say("file truncated: following from its new start")
            return fresh
        } catch {
            viewer.cancelReload(because: error.description)
            return viewer
        }
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
