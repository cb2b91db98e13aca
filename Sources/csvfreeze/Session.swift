#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Table
import Terminal
import Viewer

/// The interactive path: the store, the terminal, and the event loop between them.
enum Session {
    /// Runs the viewer until the user quits; returns the exit status.

    /// Exit status with `--echo` when the user quit without choosing (fzf's, for the same case).
    static let cancelledStatus: Int32 = 130

    static func run(inputs: [TableInput], note: String? = nil, reading: InputSettings, options given: ViewerOptions, mouse: Bool, theme: Theme = .auto, terminator: UInt8 = 0x0A,
                    query: QueryOptions? = nil, escapeDelay: Int? = nil, stacked: Bool = false,
                    sessions: SessionStore? = nil) -> Int32 {
        let options = given
        // Ctrl-S writes over none of them, shown or not (see `OpenInputs`).
        let claim = OpenInputs.Claim(paths: inputs.compactMap(\.path))
        defer { withExtendedLifetime(claim) {} }
        let wake = WakePipe(failureStatus: 1)
        let wakeLoop = wake.news
        let follows = options.follows
        // Open the input before touching the terminal, so a bad path leaves it alone.
        func open(_ input: TableInput) throws(CellStoreError) -> CellStore {
            try reading.open(input, onChange: wakeLoop)
        }
        func open() throws(CellStoreError) -> CellStore { try open(inputs[0]) }
        // Several inputs: the tables not shown are counted in the background, each opened
        // without its loader (the census indexes it on its own thread) and closed again.
        let shelf: TableShelf? = inputs.count > 1
            ? TableShelf(inputs: inputs, follows: follows, open: open, count: { input throws(CellStoreError) in
                try reading.open(input, asOfNow: true, startsLoader: false)
            }, wake: wakeLoop)
            : nil
        // The first store and viewer are held only until the loop takes them: after `R`
        // the loop owns the new ones, and the old ones (with their threads) must go.
        // One file, not followed: its kept session (see `SessionStore`), read before the store
        // is opened so a kept index spares the loader.
        var sessionKey: SessionKey?
        var kept: SessionContent?
        var keptNote: String?
        if let sessions, inputs.count == 1, !follows, let path = inputs[0].path, path != "-",
           let key = SessionStore.key(ofFileAt: path) {
            sessionKey = key
            (kept, keptNote) = sessions.load(for: key)
        }
        var first: CellStore?
        do {
            if shelf == nil, let index = kept?.index {
                let store = try reading.open(inputs[0], startsLoader: false, onChange: wakeLoop)
                if store.adopt(index) { store.announceIndex() } else { store.startLoading() }
                first = store
            }
            first = try first ?? shelf?.store(0) ?? open()
            // What is read once is read from the start, as it arrives, so its producer never
            // waits for the table to be shown.
            try shelf?.openReadOnce()
        } catch {
            fail("\(error)", status: 1)
        }
        // --filter, --sort and --columns: their columns are named against the header, read
        // before the terminal is taken, so a wrong name is a plain one-line error.
        var resolved: QueryOptions.Resolved?
        if let query, query.isActive {
            do {
                resolved = try resolve(query, for: first!, headerRows: options.headerRows)
            } catch {
                fail(error.description, status: 2)
            }
        }
        // A compressed file is read once: it changes only as a whole (see DECISIONS.md).
        let followNote = followNotice(first!, options: options)
        let notice = [followNote, note].compactMap { $0 }.joined(separator: "; ")
        let session = TerminalScreen.startSession(theme: theme, escapeDelay: escapeDelay, mouse: mouse, signalsTo: wake)
        var firstOptions = options
        if let shelf { firstOptions.place = "1/\(shelf.count)" }
        if followNote != nil { firstOptions.follows = false }
        var viewer: Viewer? = Viewer(store: first!, options: firstOptions, screenSize: session.size)
        first = nil
        if let resolved { viewer?.apply(filters: resolved.filters, sortKeys: resolved.keys, columns: resolved.columns) }
        // The command line's view wins over the kept one (the kept index stays).
        var restored: String?
        if let kept, resolved == nil { restored = viewer?.restore(session: kept) }
        let historyPath = HistoryFile.pathFromEnvironment
        viewer?.history = HistoryFile.load(from: historyPath)
        let said = [notice.isEmpty ? nil : notice, keptNote, restored].compactMap { $0 }.joined(separator: "; ")
        if !said.isEmpty { viewer?.say(said) }
        let screen = TerminalScreen(session: session, wake: wake)
        let loop: AppLoop
        if let shelf {
            // Each table shown for the first time gets the command line's view, named
            // against its own header; one where a name is not found says so and shows all.
            loop = AppLoop(shelf: shelf, first: viewer!, options: options, screen: screen, clock: MonotonicClock(),
                           stacked: stacked) { viewer, _ in
                if let file = viewer.file, let notice = followNotice(file, options: options) { viewer.say(notice) }
                guard let query, query.isActive, let file = viewer.file else { return }
                do {
                    let resolved = try resolve(query, for: file, headerRows: options.headerRows)
                    viewer.apply(filters: resolved.filters, sortKeys: resolved.keys, columns: resolved.columns)
                } catch {
                    viewer.say("the command line's view does not apply here: \(error)")
                }
            }
        } else {
            loop = AppLoop(table: viewer!, screen: screen, clock: MonotonicClock(), reopen: open)
        }
        viewer = nil
        loop.run()
        shelf?.stopCounting()
        let table = loop.table
        session.end()
        // A signal or a lost terminal asked nothing: edits not saved are kept in a file.
        if loop.endedWithoutAsking { keepUnsavedEdits(of: loop.tableViewers) }
        HistoryFile.save(table.history, to: historyPath)
        // The table's session, for the same file (it may have changed meanwhile: the index
        // is kept only when it covers the file as it is now).
        if let sessions, let sessionKey, let path = inputs[0].path, let file = table.file, !table.options.isSheet,
           let key = SessionStore.key(ofFileAt: path), key.isSameFile(as: sessionKey) {
            sessions.save(sessions.content(of: table, store: file, size: key.size), for: key)
        }
        if let choice = table.chosen {
            if case .column(let column) = choice {
                // The column's cells in the view's rows, in its order, through the export
                // pipeline: a file is read to its end, a stream as far as it came.
                let file = table.file
                let asOfNow = file.map { !$0.isComplete && (!$0.isReloadable || $0.follows) } ?? false
                if asOfNow { file?.stopLoading() }
                defer { file?.stopLoading() }
                return echo(column: column, of: table, asOfNow: asOfNow, headerRows: options.headerRows, terminator: terminator)
            }
            if case .rows(let records) = choice {
                table.file?.stopLoading()
                return echo(records: records, of: table, terminator: terminator)
            }
            table.file?.stopLoading()
            return echo(choice, terminator: terminator)
        }
        table.file?.stopLoading()
        // A script must tell "quit without choosing" from "chose an empty cell".
        if options.echo != nil && loop.status == 0 { return cancelledStatus }
        return loop.status
    }

    /// Writes each table's unsaved edits, spliced into its input as Ctrl-S would save them,
    /// to a new file in the state folder's `recovery/`, and says where on stderr: a session
    /// ended by SIGTERM, SIGHUP or the terminal's going away loses nothing typed.
    static func keepUnsavedEdits(of viewers: [Viewer]) {
        for viewer in viewers where viewer.keepsEditsOnExit {
            let name = viewer.file?.name ?? "table"
            let edits = viewer.unsavedEdits == 1 ? "1 unsaved edit" : "\(viewer.unsavedEdits) unsaved edits"
            do {
                let folder = try StateDirectory.folder("recovery")
                var base = String(name.split(separator: "/").last ?? "").filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
                if base.isEmpty || base.hasPrefix(".") { base = "table" + base }
                var now = time(nil)
                var parts = tm()
                localtime_r(&now, &parts)
                func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
                let stamp = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))-\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
                var path = folder + "/" + stamp + "-" + base
                var suffix = 2
                while access(path, F_OK) == 0 {
                    path = folder + "/" + stamp + "-\(suffix)-" + base
                    suffix += 1
                }
                if let failure = viewer.writeEditsForRecovery(to: path) {
                    say("\(edits) of \(name) could not be kept: \(failure)")
                } else {
                    say("\(edits) of \(name) kept in \(path) (the file with them applied)")
                }
            } catch {
                say("\(edits) of \(name) could not be kept: \(error.description)")
            }
        }
    }

    /// The command line's filters, sort and columns, named against `store`'s header (read
    /// first: this waits for it).
    static func resolve(_ query: QueryOptions, for store: CellStore, headerRows: Int) throws(QueryOptions.Problem) -> QueryOptions.Resolved {
        store.waitForIndex { store.rowCount >= max(1, headerRows) }
        let header = headerRows > 0 ? store.row(0) : nil
        return try query.resolve(names: ColumnNames(header: header), columnCount: max(store.columnCount, header?.count ?? 0))
    }

    /// Why `store` is not followed although `--follow` asks it: it is read once.
    static func followNotice(_ store: CellStore, options: ViewerOptions) -> String? {
        guard options.follows else { return nil }
        if let compression = store.compressionName {
            return "\(compression == "xz" ? "an" : "a") \(compression) file is read once, not followed (R reads it again)"
        }
        if store.isConverted { return "text converted to UTF-8 is read once, not followed (R reads it again)" }
        return nil
    }
}
