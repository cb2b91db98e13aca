#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Export
import SQL
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
                    sessions: SessionStore? = nil, recovery: (journal: RecoveryJournal, path: String)? = nil) -> Int32 {
        let options = given
        // Ctrl-S writes over none of them, shown or not (see `OpenInputs`).
        let claim = OpenInputs.Claim(paths: inputs.compactMap(\.path))
        defer { withExtendedLifetime(claim) {} }
        let wake = WakePipe(failureStatus: 1)
        let wakeLoop = wake.news
        let follows = options.follows
        // Several tables, or a followed file: each file's session (see `TableSessions`).
        let tables = sessions.flatMap { inputs.count > 1 || follows ? TableSessions(store: $0, inputs: inputs, follows: follows) : nil }
        // Open the input before touching the terminal, so a bad path leaves it alone.
        func open(_ input: TableInput) throws(CellStoreError) -> CellStore {
            if let tables { return try tables.open(input, reading: reading, onChange: wakeLoop) }
            return try reading.open(input, onChange: wakeLoop)
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
        if let sessions, inputs.count == 1, !follows, !inputs[0].isDatabaseTable, let path = inputs[0].path, path != "-",
           let key = SessionStore.key(ofFileAt: path) {
            sessionKey = key
            (kept, keptNote) = sessions.load(for: key, file: path)
        }
        var first: CellStore?
        // A database's table is read through SQLite, not as text: a source of its own.
        var firstTable: (any RowSource)?
        do {
            if inputs[0].isDatabaseTable {
                firstTable = try shelf?.source(0) ?? openTable(inputs[0], wake: wakeLoop)
            } else if shelf == nil, let index = kept?.index {
                let store = try reading.open(inputs[0], startsLoader: false, onChange: wakeLoop)
                take(index, grew: kept?.fileGrew == true, into: store)
                first = store
            }
            if firstTable == nil { first = try first ?? shelf?.store(0) ?? open() }
            // What is read once is read from the start, as it arrives, so its producer never
            // waits for the table to be shown.
            try shelf?.openReadOnce()
        } catch {
            fail("\(error)", status: 1)
        }
        // --recover: the journal's edits made again on the whole index, before the
        // terminal is taken, so one that does not fit is a plain one-line error.
        var recovered: (rows: EditedRows, steps: [EditStep])?
        if let recovery, shelf == nil, let store = first {
            store.waitForIndex { false }
            if let failure = store.progress.failure { fail("\(store.name): \(failure)", status: 1) }
            let rows = EditedRows(store: store)
            do {
                recovered = (rows, try rows.replay(recovery.journal))
            } catch {
                fail("--recover \(recovery.path): \(error.description): nothing applied", status: 65)
            }
        }
        // --filter, --sort and --columns: their columns are named against the header, read
        // before the terminal is taken, so a wrong name is a plain one-line error.
        var resolved: QueryOptions.Resolved?
        if let query, query.isActive {
            do {
                if let firstTable {
                    resolved = try query.resolve(names: ColumnNames(header: firstTable.row(0)), columnCount: firstTable.columnCount)
                } else if let first {
                    resolved = try resolve(query, for: first, headerRows: options.headerRows)
                }
            } catch {
                fail(error.description, status: 2)
            }
        }
        // A compressed file is read once: it changes only as a whole (see DECISIONS.md).
        let followNote = first.flatMap { followNotice($0, options: options) }
        let notice = [followNote, note].compactMap { $0 }.joined(separator: "; ")
        let session = TerminalScreen.startSession(theme: theme, escapeDelay: escapeDelay, mouse: mouse, signalsTo: wake)
        var firstOptions = options
        if let shelf { firstOptions.place = "1/\(shelf.count)" }
        if followNote != nil { firstOptions.follows = false }
        var viewer: Viewer? = recovered.map { Viewer(source: $0.rows, options: firstOptions, screenSize: session.size) }
            ?? first.map { Viewer(store: $0, options: firstOptions, screenSize: session.size) }
            ?? firstTable.map { Viewer(source: $0, options: firstOptions, screenSize: session.size) }
        firstTable = nil
        let recoveredNote = recovered.flatMap { recovered in
            recovery.map { viewer?.noteRecovered(recovered.steps, from: $0.path) }
        } ?? nil
        first = nil
        if let resolved { viewer?.apply(filters: resolved.filters, sortKeys: resolved.keys, columns: resolved.columns) }
        // The command line's view wins over the kept one (the kept index stays).
        var restored: String?
        if let kept, resolved == nil { restored = viewer?.restore(session: kept) }
        if let tables, resolved == nil, let viewer { restored = tables.restore(viewer, 0) }
        let historyPath = HistoryFile.pathFromEnvironment
        viewer?.history = HistoryFile.load(from: historyPath)
        let said = [recoveredNote, notice.isEmpty ? nil : notice, keptNote, restored].compactMap { $0 }.joined(separator: "; ")
        if !said.isEmpty { viewer?.say(said) }
        let screen = TerminalScreen(session: session, wake: wake)
        let loop: AppLoop
        if let shelf {
            // Each table shown for the first time gets the command line's view, named
            // against its own header; one where a name is not found says so and shows all.
            loop = AppLoop(shelf: shelf, first: viewer!, options: options, screen: screen, clock: MonotonicClock(),
                           stacked: stacked) { viewer, index in
                let notice = viewer.file.flatMap { followNotice($0, options: options) }
                let restored = query?.isActive == true ? nil : tables?.restore(viewer, index)
                let said = [notice, restored].compactMap { $0 }.joined(separator: "; ")
                if !said.isEmpty { viewer.say(said) }
                guard let query, query.isActive else { return }
                do {
                    let resolved: QueryOptions.Resolved
                    if let file = viewer.file {
                        resolved = try resolve(query, for: file, headerRows: options.headerRows)
                    } else {
                        resolved = try query.resolve(names: ColumnNames(header: viewer.source.row(0)), columnCount: viewer.source.columnCount)
                    }
                    viewer.apply(filters: resolved.filters, sortKeys: resolved.keys, columns: resolved.columns)
                } catch {
                    viewer.say("the command line's view does not apply here: \(error)")
                }
            }
        } else {
            loop = AppLoop(table: viewer!, screen: screen, clock: MonotonicClock(), reopen: open)
        }
        viewer = nil
        if let tables {
            // Which table was shown, and whether they were stacked.
            if shelf != nil, let state = tables.store.loadTables(for: inputs) {
                loop.restoreTables(showing: state.shown, stacked: stacked || state.stacked)
            }
            loop.onPutAway = { index, viewer in tables.save(viewer, index) }
        }
        loop.run()
        shelf?.stopCounting()
        let table = loop.table
        session.end()
        // A signal or a lost terminal asked nothing: edits not saved are kept in a file.
        if loop.endedWithoutAsking { keepUnsavedEdits(of: loop.tableViewers) }
        HistoryFile.save(table.history, to: historyPath)
        tables?.saveAll(loop)
        // The table's session, for the same file (it may have changed meanwhile: the index
        // is kept only when it covers the file as it is now), or for the file a save over
        // it put in its place, which the table reads now (another inode: its own key).
        if let sessions, let sessionKey, let path = inputs[0].path, let file = table.file, !table.options.isSheet,
           let key = SessionStore.key(ofFileAt: path),
           key.isSameFile(as: sessionKey) || file.fingerprintIfUnchanged().map({ $0.device == key.device && $0.inode == key.inode }) == true {
            sessions.save(sessions.content(of: table, store: file, size: key.size), for: key, previous: kept)
            // The file saved over is gone (its name holds the saved one): so is its session.
            if !key.isSameFile(as: sessionKey) { sessions.remove(sessionAt: sessions.path(for: sessionKey)) }
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
}
