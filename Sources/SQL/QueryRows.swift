#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Dispatch
import Synchronization
import Table

/// The answer to a query as a table on screen: a row source whose rows SQLite makes on a
/// thread the answer owns, published in batches while the statement runs.
///
/// The thread waits for the input's first rows (the columns are those of the header and
/// the first thousand records, as with `--sql`), opens a connection of its own over the
/// input's index (followed as it grows: the query sees the whole input, reading each part
/// as soon as the index has passed it), prepares the query and steps it. Everything
/// SQLite touches stays on that thread; only finished rows cross to the UI thread, which
/// takes them on news (`update()`). At most `limits` rows are kept: past them the
/// statement stops and the answer says so (`Phase.cut`), so memory does not grow with an
/// answer of any size. `cancel()` stops the statement from the UI thread (SQLite's
/// progress handler, and the tables' read-ahead); dropping the answer cancels it and waits
/// for its thread.
package final class QueryRows: StoppableRows {
    /// How much of an answer is kept in memory.
    package struct Limits: Sendable {
        /// Rows kept at most.
        package var rows = 1_000_000
        /// Bytes of rows kept at most (cells and their bookkeeping, as `Row.memoryCost`).
        package var bytes = 256 << 20

        package init() {}
    }

    /// Where the answer is.
    package enum Phase: Sendable, Equatable {
        /// Waiting for the input's first rows, which name its columns.
        case waiting
        /// SQLite runs the statement.
        case running
        /// Every row of the answer is here.
        case done
        /// The statement was stopped at the limit: the rows here are the first ones.
        case cut
        /// The statement failed: before the answer had columns, or after some rows came.
        case failed(SQLError)
        /// Stopped by `cancel()`.
        case cancelled

        /// True when no more rows will come.
        package var isFinal: Bool {
            switch self {
            case .waiting, .running: false
            case .done, .cut, .failed, .cancelled: true
            }
        }
    }

    /// What the thread publishes for the UI thread.
    private struct Published: Sendable {
        var columns: [String]?
        var rowidColumn: Int?
        var rows: [Row] = []
        var phase = Phase.waiting
        var seconds: Double?
        var cutColumns: (seen: Int, of: Int)?
    }

    package let name: String
    package let wake: @Sendable () -> Void
    /// The query, as typed.
    package let query: String
    private let published = Handoff(Published())
    private let control: QueryControl
    private let readers: RecordReaders
    private let ended = DispatchSemaphore(value: 0)

    // The UI thread's copy of what was published.
    private var header: Row?
    /// The rows taken, in parts as they came (a snapshot shares them).
    private var parts: [[Row]] = []
    private var starts: [Int] = []
    private var dataRows = 0
    private var widest = 0
    private var tookRowsWhileRunning = false
    /// Where the answer is, as of the last `update()`.
    package private(set) var phase = Phase.waiting
    /// The column of the answer that is the input's rowid (`select rowid, …`), if any.
    package private(set) var rowidColumn: Int?
    /// Seconds the statement took, once it has ended.
    package private(set) var seconds: Double?
    /// When the input has more columns than SQLite lets a table have: how many the table
    /// has, of how many.
    package private(set) var cutColumns: (seen: Int, of: Int)?
    package private(set) var generation = 0

    /// Starts `query` over the input that `readers` read, whose header row's cells are
    /// `header` (none when `headerRows` is 0), as tables `names` (`t` and its stem).
    /// `wake` is called from the answer's thread when it has news.
    package init(query: String, readers: RecordReaders, header: [String], headerRows: Int, names: [String],
                limits: Limits = Limits(), settings: SQLSettings = SQLSettings(),
                wake: @escaping @Sendable () -> Void) {
        self.query = query
        self.readers = readers
        self.wake = wake
        name = "SQL " + query.split(whereSeparator: \.isNewline).joined(separator: " ")
        // The input read so far is news too: while a sort or a group reads it, no row
        // comes for a long time. Every piece read and every row marks news; the event
        // loop decides when to look.
        control = QueryControl(onRead: wake)
        let control = self.control, published = self.published, ended = self.ended
        // A cancel while the thread waits for the input's first rows wakes it.
        control.watch([readers.changes])
        BackgroundThread.start(name: "csvfreeze sql answer") {
            QueryRows.yieldToInteractiveThreads()
            let started = ContinuousClock.now
            var phase = Phase.done
            do throws(SQLError) {
                try QueryRows.awaitFirstRows(readers: readers, headerRows: headerRows, control: control)
                guard let input = SQLInput(readers: readers, header: header, name: names.first ?? "t", headerRows: headerRows) else {
                    throw .input("no records to query")
                }
                let database = try SQLDatabase(inputs: names.map { input.named($0) }, settings: settings, control: control)
                let answer = try database.prepareKeepingControl(query)
                // A column of the input named rowid hides SQLite's own.
                let hasRowidColumn = input.columns.contains { SQLNames.folded($0) == "rowid" }
                let rowid = hasRowidColumn ? nil : answer.rowidColumn(ofTables: names)
                let columns = answer.columns
                let cut = input.omittedColumns > 0 ? (input.columns.count, input.columns.count + input.omittedColumns) : nil
                published.change { state in
                    state.columns = columns
                    state.rowidColumn = rowid
                    state.cutColumns = cut
                    state.phase = .running
                }
                wake()
                var kept = 0, bytes = 0
                // A row at a time: each is published as it comes, whatever the next step costs.
                while let rows = try answer.next(batch: 1) {
                    guard let row = rows.first else { continue }
                    if kept >= limits.rows || bytes + row.memoryCost > limits.bytes {
                        phase = .cut
                        break
                    }
                    kept += 1
                    bytes += row.memoryCost
                    published.change { $0.rows.append(row) }
                    wake()
                }
            } catch {
                phase = error == .cancelled ? .cancelled : .failed(error)
            }
            let took = (ContinuousClock.now - started).components
            let seconds = Double(took.seconds) + Double(took.attoseconds) / 1e18
            let final = phase
            published.change { state in
                state.phase = final
                state.seconds = seconds
            }
            ended.signal()
            wake()
        }
    }

    deinit {
        control.cancel()
        ended.wait()
    }

    /// Stops the statement; the rows so far stay (the phase becomes `cancelled` once the
    /// thread has stopped).
    package func cancel() { control.cancel() }

    /// Blocks until the statement has ended (for tests).
    package func waitForEnd() {
        ended.wait()
        ended.signal()
    }

    /// Takes what the answer's thread published since the last call (on the UI thread, on
    /// news); true when something changed.
    @discardableResult
    package func update() -> Bool {
        let before = phase
        let news = published.change { state -> Published in
            let news = state
            state.rows = []
            return news
        }
        if header == nil, let columns = news.columns {
            header = Row(cells: columns)
            widest = columns.count
            rowidColumn = news.rowidColumn
            cutColumns = news.cutColumns
        }
        if !news.rows.isEmpty {
            parts.append(news.rows)
            starts.append(dataRows)
            dataRows += news.rows.count
            widest = max(widest, news.rows.map(\.count).max() ?? 0)
            if !news.phase.isFinal { tookRowsWhileRunning = true }
        }
        phase = news.phase
        seconds = news.seconds
        if phase.isFinal && !before.isFinal && tookRowsWhileRunning {
            // A sort or filter started while rows came covered the rows of then: with the
            // answer whole, they run again over every row.
            generation += 1
        }
        return !news.rows.isEmpty || news.phase != before || (news.columns != nil && parts.isEmpty && before == .waiting)
    }

    /// Bytes of the input the statement's scans have read so far, and the input's size
    /// when known (a scan of a table twice reads it twice).
    package var inputRead: (bytes: Int64, total: Int64?) {
        let progress = readers.progress
        return (control.bytesRead, progress.isComplete ? progress.bytesRead : progress.totalBytes)
    }

    /// The answer's column names, once the statement is prepared.
    package var columns: [String]? { header?.strings }

    /// Rows of the answer taken so far.
    package var answerRowCount: Int { dataRows }
    /// True while the statement may still make rows.
    package var isRunning: Bool { !phase.isFinal }

    // MARK: RowSource

    /// The header (once the columns are known) and the rows so far.
    package var rowCount: Int { header == nil ? 0 : 1 + dataRows }
    package var isComplete: Bool { phase.isFinal }
    package var columnCount: Int { widest }
    /// The answer's column names.
    package var headerRows: Int? { 1 }

    package func row(_ index: Int) -> Row? {
        if index == 0 { return header }
        guard index > 0, index <= dataRows else { return nil }
        return Self.row(index - 1, parts: parts, starts: starts)
    }

    /// The rows now: the parts are shared, not copied.
    package func snapshot() -> RowSnapshot? {
        guard let header else { return RowSnapshot(rows: []) }
        let parts = self.parts, starts = self.starts
        return RowSnapshot(count: rowCount, columnCount: widest) { range in
            range.map { $0 == 0 ? header : Self.row($0 - 1, parts: parts, starts: starts) }
        }
    }

    /// Data row `index` (from 0) of `parts`.
    private static func row(_ index: Int, parts: [[Row]], starts: [Int]) -> Row {
        let part = Self.part(holding: index, starts: starts)
        return parts[part][index - starts[part]]
    }

    // MARK: The answer's thread

    /// Waits until the index has the header and the first thousand records (the columns
    /// are taken from them, as with `--sql`), or the whole input when it is shorter.
    static func awaitFirstRows(readers: RecordReaders, headerRows: Int, control: QueryControl) throws(SQLError) {
        let wanted = headerRows + 1000
        let changes = readers.changes
        while true {
            let version = changes.version
            let progress = readers.progress
            if control.isCancelled { throw .cancelled }
            if let failure = progress.failure, progress.rowCount == 0 { throw .input(failure) }
            if progress.rowCount >= wanted || progress.isComplete { return }
            changes.wait(past: version)
        }
    }

    /// Lowers the thread's priority a little, as the viewer's other passes do: keys and
    /// drawing get a core first.
    static func yieldToInteractiveThreads() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
        #endif
    }
}
