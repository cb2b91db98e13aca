#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Export
import Table
import Terminal
import Viewer

/// The interactive path: the store, the terminal, and the event loop between them.
enum Session {
    /// Runs the viewer until the user quits; returns the exit status.

    /// Exit status with `--echo` when the user quit without choosing (fzf's, for the same case).
    static let cancelledStatus: Int32 = 130

    static func run(path: String?, delimiter: UInt8?, quote: UInt8?, encoding: TextEncoding? = nil, preamble: PreambleRule,
                    spoolLimit: SpoolLimit,
                    options given: ViewerOptions, mouse: Bool, theme: Theme = .auto, terminator: UInt8 = 0x0A,
                    query: QueryOptions? = nil, escapeDelay: Int? = nil) -> Int32 {
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
            try CellStore.open(path: path, delimiter: delimiter, quote: quote, preamble: preamble, encoding: encoding,
                               follows: options.follows,
                               spoolLimit: spoolLimit, onChange: {
                var byte = TerminalScreen.newsByte
                _ = Glibc.write(wakeWrite, &byte, 1)
            })
        }
        // The first store and viewer are held only until the loop takes them: after `R`
        // the loop owns the new ones, and the old ones (with their threads) must go.
        var first: CellStore?
        do {
            first = try open()
        } catch {
            fail(error.description, status: 1)
        }
        // --filter, --sort and --columns: their columns are named against the header, read
        // before the terminal is taken, so a wrong name is a plain one-line error.
        var resolved: QueryOptions.Resolved?
        if let query, query.isActive {
            while true {
                let version = first!.progressSignal.version
                if first!.rowCount >= max(1, options.headerRows) || first!.isComplete { break }
                first!.progressSignal.wait(past: version)
            }
            let header = options.headerRows > 0 ? first!.row(0) : nil
            do {
                resolved = try query.resolve(names: ColumnNames(header: header), columnCount: max(first!.columnCount, header?.count ?? 0))
            } catch {
                fail(error.description, status: 2)
            }
        }
        // A compressed file is read once: it changes only as a whole (see DECISIONS.md).
        var notice: String?
        if options.follows, let compression = first!.compressionName {
            options.follows = false
            notice = "\(compression == "xz" ? "an" : "a") \(compression) file is read once, not followed (R reads it again)"
        } else if options.follows, first!.isConverted {
            options.follows = false
            notice = "text converted to UTF-8 is read once, not followed (R reads it again)"
        }
        let session: TerminalSession
        do {
            session = try TerminalSession(theme: theme, escapeDelay: escapeDelay)
        } catch {
            fail(error.description, status: 2)
        }
        session.routeSignals(to: wakeWrite)
        if mouse { session.enableMouse() }
        var viewer: Viewer? = Viewer(store: first!, options: options, screenSize: session.size)
        first = nil
        if let resolved { viewer?.apply(filters: resolved.filters, sortKeys: resolved.keys, columns: resolved.columns) }
        var environment: [String: String] = [:]
        for name in ["CSVFREEZE_HISTORY", "XDG_STATE_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        let historyPath = HistoryFile.path(environment: environment)
        viewer?.history = HistoryFile.load(from: historyPath)
        if let notice { viewer?.say(notice) }
        let loop = AppLoop(table: viewer!, screen: TerminalScreen(session: session, wakeRead: wake[0]),
                           clock: MonotonicClock(), reopen: open)
        viewer = nil
        loop.run()
        let table = loop.table
        session.end()
        HistoryFile.save(table.history, to: historyPath)
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
            table.file?.stopLoading()
            return echo(choice, terminator: terminator)
        }
        table.file?.stopLoading()
        // A script must tell "quit without choosing" from "chose an empty cell".
        if options.echo != nil && loop.status == 0 { return cancelledStatus }
        return loop.status
    }

    /// Prints, for `--echo column`, the column's cell of each row of the view, in its
    /// order, each followed by `terminator`; a cell of any size is printed whole.
    static func echo(column: Int, of viewer: Viewer, asOfNow: Bool, headerRows: Int, terminator: UInt8) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        guard var plan = ExportPlan(view: viewer.table, asOfNow: asOfNow) else { return 0 }
        plan.columns = nil
        let outcome = Exporter.run(plan, to: ExportSink(descriptor: 1)) { _, hand in
            ColumnValues(column: column, terminator: terminator, headerRows: headerRows, sink: hand)
        }
        if outcome.readerLeft { return 0 }
        if let failure = outcome.failure { fail(failure, status: 1) }
        return 0
    }

    /// Prints what `--echo` chose, on stdout, once the terminal is restored: a cell or a
    /// row as it is, followed by `terminator` (a line feed, or NUL with `-0`).
    static func echo(_ choice: Choice, terminator: UInt8) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        switch choice {
        case .bytes(let bytes):
            _ = Output.writeToStandardOutput(bytes + [terminator])
        case .cell(let cell):
            var open = true
            cell.read { piece in
                open = Output.writeToStandardOutput(Array(piece))
                return open
            }
            if open { _ = Output.writeToStandardOutput([terminator]) }
        case .record, .column:
            // Chosen in a sheet, for the sheet below: nothing to print.
            break
        }
        Output.checkStandardOutput()
        return 0
    }
}
