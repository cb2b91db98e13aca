#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Diff
import Table
import Terminal
import Viewer

/// `--diff` on a terminal without `--output`: the diff as one table on screen, filled in
/// while the comparison runs.
enum DiffScreen {
    /// Shows the diff until the user quits; returns the exit status: diff's (0 no
    /// differences found, 1 differences, 2 trouble), or 128+N after signal N.
    /// `specs` are the old table's and the new one's.
    static func run(_ diffOptions: DiffOptions, specs: [InputSpec], options given: ViewerOptions, mouse: Bool,
                    theme: Theme, escapeDelay: Int?) -> Int32 {
        let wake = WakePipe(failureStatus: 2)
        let news = wake.news
        // Both inputs open before the terminal is taken, so a bad path leaves it alone.
        var stores: [CellStore] = []
        for spec in specs {
            do {
                stores.append(try CellStore.open(spec, readsAtRandom: !diffOptions.keys.isEmpty, onChange: news))
            } catch {
                fail(error.description, status: 2)
            }
        }
        checkKey(diffOptions.keyColumns, stores: stores, headerRows: given.headerRows)
        let rows = DiffRows(old: stores[0], new: stores[1], headerRows: given.headerRows,
                            options: TableDiff.Options(key: diffOptions.keyColumns), wake: news)
        stores = []
        var options = given
        // The marker and the key stay on the left.
        options.frozenColumns = max(given.frozenColumns, 1 + Set(diffOptions.keyColumns).count)
        let session = TerminalScreen.startSession(theme: theme, escapeDelay: escapeDelay, mouse: mouse, signalsTo: wake)
        let historyPath = HistoryFile.pathFromEnvironment
        let viewer = Viewer(source: rows, options: options, screenSize: session.size)
        viewer.history = HistoryFile.load(from: historyPath)
        let loop = AppLoop(table: viewer, screen: TerminalScreen(session: session, wake: wake), clock: MonotonicClock(),
                           reopen: { () throws(CellStoreError) -> CellStore in throw CellStoreError.closedInput })
        loop.run()
        session.end()
        HistoryFile.save(loop.table.history, to: historyPath)
        if loop.status != 0 { return loop.status }
        if let failure = rows.failure { fail(failure, status: 2) }
        let schemaDiffers = rows.columns.map { !$0.isSameSchema } ?? false
        return rows.counts.hasDifferences || schemaDiffers ? 1 : 0
    }

    /// A key column either table lacks: one line and exit 2 before the screen is taken,
    /// judged by the header rows (the comparison checks again against every column).
    static func checkKey(_ key: [String], stores: [CellStore], headerRows: Int) {
        guard !key.isEmpty, headerRows > 0 else { return }
        var names: [[String]] = []
        for store in stores {
            while store.rowCount < 1 && !store.isComplete && store.progress.failure == nil {
                let version = store.progressSignal.version
                if store.rowCount >= 1 || store.isComplete { break }
                store.progressSignal.wait(past: version)
            }
            if let failure = store.progress.failure { fail("\(store.name): \(failure)", status: 2) }
            let header = store.row(0)
            names.append(ColumnNames(header: header, longest: 1024).names(count: header?.count ?? 0))
        }
        for reference in key {
            let column: Int
            do {
                column = try ColumnReference(reference).resolve(in: names[0], columns: names[0].count)
            } catch {
                fail("--key '\(reference)': \(stores[0].name): \(error.description)", status: 2)
            }
            if !names[1].contains(names[0][column]) {
                fail("--key '\(reference)': \(stores[1].name) has no column '\(names[0][column])'", status: 2)
            }
        }
    }
}
