#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Dispatch
import SQL
import Synchronization

/// What the list of open tables says of one: its records, columns and dialect, counted in
/// the background or read from its store; unknown (nil) until then.
package struct TableFacts: Sendable, Equatable {
    /// Records, header records included; nil until counted.
    package var records: Int?
    /// False while the count may still grow (the table is being read or followed).
    package var isFinal = false
    /// Columns: the most cells of any record.
    package var columns: Int?
    /// The dialect as the status line says it (`comma`, `tab, UTF-16LE`).
    package var dialect: String?
    /// Why the table could not be read, if it could not.
    package var failure: String?
    /// The file these facts were read from, as it was then (nil for what is not a file):
    /// the list and the stack compare it with the file now.
    package var identity: FileIdentity?

    package init(records: Int? = nil, isFinal: Bool = false, columns: Int? = nil, dialect: String? = nil, failure: String? = nil,
                 identity: FileIdentity? = nil) {
        self.records = records
        self.isFinal = isFinal
        self.columns = columns
        self.dialect = dialect
        self.failure = failure
        self.identity = identity
    }

    /// The facts of an open store now.
    init(store: CellStore, follows: Bool) {
        let progress = store.progress
        self.init(records: store.rowCount, isFinal: store.isComplete && !follows, columns: store.columnCount,
                  dialect: store.dialect?.summary, failure: progress.failure, identity: store.openedIdentity)
    }
}

/// Counts, in the background, the tables that no one has opened: one at a time, on one
/// thread at low priority (nice 5, as passes run), so a thousand files never mean a
/// thousand threads or descriptors, and the screen keeps a core. Each table is opened,
/// indexed to its end on the census's own thread and closed again: only its facts stay.
///
/// Tables are counted in order, so the stacked view, which needs each table's count to
/// place the next, fills from the top. A table the user opens is counted by its own
/// store instead (`claim`); one closed before its store finished is counted here again.
final class TableCensus: Sendable {
    enum State: Sendable, Equatable {
        case pending
        /// Open on screen: its store counts it.
        case claimed
        case counting
        case done(TableFacts)
    }

    private struct Shared {
        var states: [State]
        var isRunning = false
        var isStopped = false
        /// Stops the count under way (the store being indexed).
        var stopCurrent: (@Sendable () -> Void)?
        /// Signalled when the thread running now ends.
        var ended: DispatchSemaphore?
    }

    private let inputs: [TableInput]
    private let follows: Bool
    private let open: @Sendable (TableInput) throws(CellStoreError) -> CellStore
    private let wake: @Sendable () -> Void
    private let shared: Mutex<Shared>

    /// Counts `inputs` with stores made by `open` (not started: the census indexes them on
    /// its own thread); `wake` tells the event loop there are new facts (after each table).
    init(inputs: [TableInput], follows: Bool, open: @escaping @Sendable (TableInput) throws(CellStoreError) -> CellStore,
         wake: @escaping @Sendable () -> Void) {
        self.inputs = inputs
        self.follows = follows
        self.open = open
        self.wake = wake
        // What is read once is read from the start by its own store: never counted here (a
        // FIFO with no writer yet would hold the count of every table after it).
        shared = Mutex(Shared(states: inputs.map { $0.readsOnce ? .claimed : .pending }))
    }

    deinit { stop() }

    /// The state of table `index`.
    func state(_ index: Int) -> State { shared.withLock { $0.states[index] } }

    /// Every table's state, at one moment.
    var states: [State] { shared.withLock { $0.states } }

    /// Table `index` is open on screen: its store counts it (a count under way goes on,
    /// and is kept if it ends first).
    func claim(_ index: Int) {
        shared.withLock { state in
            if state.states[index] == .pending { state.states[index] = .claimed }
        }
    }

    /// Table `index`'s own store counted it: these are its facts.
    func record(_ index: Int, _ facts: TableFacts) {
        shared.withLock { $0.states[index] = .done(facts) }
    }

    /// Table `index`'s file changed on disk since it was counted: the census counts it again
    /// (a count under way is not kept: it may have read the file before the change).
    func recount(_ index: Int) {
        shared.withLock { state in
            if !inputs[index].readsOnce { state.states[index] = .pending }
        }
        resume()
    }

    /// Table `index`'s store went before it finished: the census counts it.
    func release(_ index: Int) {
        shared.withLock { state in
            if state.states[index] == .claimed && !inputs[index].readsOnce { state.states[index] = .pending }
        }
        resume()
    }

    /// Starts counting, if there is anything to count and no count runs.
    func resume() {
        let starts: Bool = shared.withLock { state in
            guard !state.isRunning, !state.isStopped, state.states.contains(.pending) else { return false }
            state.isRunning = true
            state.ended = DispatchSemaphore(value: 0)
            return true
        }
        guard starts else { return }
        BackgroundThread.start(name: "csvfreeze census", stackSize: 1 << 20) { [self] in run() }
    }

    /// Stops counting and waits for the thread (the session ends).
    func stop() {
        let ended: DispatchSemaphore? = shared.withLock { state in
            state.isStopped = true
            state.stopCurrent?()
            return state.isRunning ? state.ended : nil
        }
        ended?.wait()
    }

    private func run() {
        #if os(Linux)
        // The screen's thread comes first: on Linux the nice value is the calling thread's.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
        #endif
        while true {
            let next: Int? = shared.withLock { state in
                guard !state.isStopped, let index = state.states.firstIndex(of: .pending) else {
                    state.isRunning = false
                    state.ended?.signal()
                    return nil
                }
                state.states[index] = .counting
                return index
            }
            guard let index = next else { break }
            let facts = count(inputs[index])
            shared.withLock { state in
                state.stopCurrent = nil
                if state.states[index] == .counting || state.states[index] == .claimed {
                    state.states[index] = state.isStopped ? .pending : .done(facts)
                }
            }
            // Marks news; the event loop decides when to look (a thousand small files
            // are counted faster than it would draw them).
            wake()
        }
    }

    /// Opens, indexes and closes one input; its facts, or why it could not be read.
    private func count(_ input: TableInput) -> TableFacts {
        if input.isDatabaseTable, let path = input.path, let table = input.table {
            do {
                let (rows, columns, isView) = try DatabaseRows.census(path: path, table: table)
                return TableFacts(records: rows + 1, isFinal: true, columns: columns, dialect: isView ? "SQLite view" : "SQLite table")
            } catch {
                return TableFacts(records: 0, isFinal: true, columns: 0, failure: error.description)
            }
        }
        let store: CellStore
        do {
            store = try open(input)
        } catch {
            return TableFacts(records: 0, isFinal: true, columns: 0, failure: error.description)
        }
        let stop = store.stopIndexing
        let stopped = shared.withLock { state -> Bool in
            state.stopCurrent = stop
            return state.isStopped
        }
        if !stopped { store.indexOnCallingThread() }
        var facts = TableFacts(store: store, follows: follows)
        facts.isFinal = store.isComplete && !follows
        return facts
    }
}
