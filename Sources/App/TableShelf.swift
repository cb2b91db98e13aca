import CellStore
import SQL
import Table

/// The inputs of a session with several tables, and the stores open on them.
///
/// A store is opened when its table is first wanted (shown, or read by the stacked view),
/// never before: a thousand files cost a thousand small entries here, not a thousand
/// descriptors and loader threads. Stores the event loop's viewers hold stay open as long
/// as those do; a few more, read by the stacked view, are kept by recent use (`keep`).
/// What the list of tables says of a table that is not open comes from the census, which
/// counts the others in the background.
///
/// It belongs to the UI thread, as the stores do.
package final class TableShelf {
    /// A store handed out, held weakly: the viewer (or the list of kept ones) owns it.
    private final class Handed {
        weak var store: CellStore?
        init(_ store: CellStore) { self.store = store }
    }

    /// A database's table handed out, held weakly as a store is.
    private final class HandedTable {
        weak var source: DatabaseRows?
        init(_ source: DatabaseRows) { self.source = source }
    }

    package let inputs: [TableInput]
    /// Whether every input is followed as it grows (`--follow`).
    package let follows: Bool
    private let open: (TableInput) throws(CellStoreError) -> CellStore
    /// Opens a table without starting its loader, from any thread (the census's opener;
    /// a search through the stacked view reads the tables no one holds with it).
    let countOpener: @Sendable (TableInput) throws(CellStoreError) -> CellStore
    let census: TableCensus
    private var handed: [Int: Handed] = [:]
    /// Database tables handed out (read through SQLite, not stores).
    private var handedTables: [Int: HandedTable] = [:]
    private let wake: @Sendable () -> Void
    /// Stores kept open by recent use, least recent first.
    private var kept: [(index: Int, store: CellStore)] = []
    /// Stores kept at most by recent use (those viewers hold do not count).
    package var keptLimit = 32
    /// Stores of what is read once, as it arrives (standard input, a pipe, a FIFO): never
    /// closed, so each is read to its end and counted by its own store.
    private var readOnce: [Int: CellStore] = [:]
    /// The facts last read from each table's store.
    private var lastKnown: [Int: TableFacts] = [:]

    /// The tables `inputs`; `open` opens one for showing (its loader started, waking the
    /// event loop), `count` opens one for the census (not started: it is indexed on the
    /// census's thread, and wakes no one); `wake` wakes the event loop.
    package init(inputs: [TableInput], follows: Bool = false,
                open: @escaping (TableInput) throws(CellStoreError) -> CellStore,
                count: @escaping @Sendable (TableInput) throws(CellStoreError) -> CellStore,
                wake: @escaping @Sendable () -> Void) {
        self.inputs = inputs
        self.follows = follows
        self.open = open
        countOpener = count
        self.wake = wake
        census = TableCensus(inputs: inputs, follows: follows, open: count, wake: wake)
    }

    deinit { census.stop() }

    /// Tables, in order.
    package var count: Int { inputs.count }

    /// Starts counting the tables not open, in the background.
    package func startCounting() { census.resume() }

    /// Opens every input that is read once, so each is read from the start as it arrives
    /// and its producer never waits for the table to be shown.
    package func openReadOnce() throws(CellStoreError) {
        for index in inputs.indices where inputs[index].readsOnce { _ = try store(index) }
    }

    /// Stops counting (the session ends).
    package func stopCounting() { census.stop() }

    /// True when some table is a database's (the stacked view reads files only).
    package var hasDatabaseTables: Bool { inputs.contains(where: \.isDatabaseTable) }

    /// Table `index`'s rows: its store, or for a database's table its `DatabaseRows`
    /// (the one open, or a new one).
    package func source(_ index: Int) throws(CellStoreError) -> any RowSource {
        let input = inputs[index]
        guard input.isDatabaseTable, let path = input.path, let table = input.table else { return try store(index) }
        if let source = handedTables[index]?.source { return source }
        let source = try DatabaseRows(path: path, table: table, wake: wake)
        handedTables[index] = HandedTable(source)
        return source
    }

    /// Table `index`'s store: the one open, or a new one.
    package func store(_ index: Int) throws(CellStoreError) -> CellStore {
        if let store = openStore(index) { return store }
        let store = try open(inputs[index])
        handed[index] = Handed(store)
        if inputs[index].readsOnce { readOnce[index] = store }
        census.claim(index)
        return store
    }

    /// A new store for table `index` (`R`: its input read again), in place of the old one.
    package func freshStore(_ index: Int) throws(CellStoreError) -> CellStore {
        let store = try open(inputs[index])
        if inputs[index].readsOnce { readOnce[index] = store }
        handed[index]?.store?.stopLoading()
        kept.removeAll { $0.index == index }
        handed[index] = Handed(store)
        census.claim(index)
        return store
    }

    /// Table `index`'s store if one is open.
    package func openStore(_ index: Int) -> CellStore? {
        guard let store = handed[index]?.store else { return nil }
        return store
    }

    /// Keeps table `index`'s store open a while after its last use (the stacked view
    /// reads tables no viewer holds); the least recently used go past `keptLimit`.
    package func keep(_ index: Int, _ store: CellStore) {
        if let place = kept.lastIndex(where: { $0.index == index }) {
            if place == kept.count - 1 { return }
            kept.remove(at: place)
        }
        kept.append((index, store))
        while kept.count > keptLimit {
            let gone = kept.removeFirst()
            gone.store.stopLoading()
        }
    }

    /// Stores open now (for tests and `--debug-stats`).
    package var openStoreCount: Int { handed.values.filter { $0.store != nil }.count }

    /// Table `index` as the list shows it: from its store while one is open, else what
    /// the census or its last store found.
    package func facts(_ index: Int) -> TableFacts {
        if let store = openStore(index) { return TableFacts(store: store, follows: follows) }
        if let source = handedTables[index]?.source {
            // The census's exact count, until the table's own walk has counted it.
            if !source.isComplete, case .done(let facts) = census.state(index) { return facts }
            return TableFacts(records: source.rowCount, isFinal: source.isComplete, columns: source.columnCount,
                              dialect: source.kindName, failure: source.failure)
        }
        if case .done(let facts) = census.state(index) { return facts }
        return lastKnown[index] ?? TableFacts()
    }

    /// The tables whose files changed on disk since they were counted (deleted, replaced,
    /// shorter, rewritten), each forgotten: its stores here are let go (a viewer keeps its
    /// own, which says so itself) and it is counted again, so the list and the stack show
    /// it as it is now, never its old counts as if current. One `stat` per table counted;
    /// followed files (`--follow`), which change by design, are left to their stores.
    package func noticeChanges() -> [(index: Int, change: DiskChange)] {
        guard !follows else { return [] }
        var changes: [(index: Int, change: DiskChange)] = []
        for index in inputs.indices where !inputs[index].readsOnce {
            guard let path = inputs[index].path else { continue }
            let identity: FileIdentity?
            if let store = openStore(index) {
                identity = store.openedIdentity
            } else if case .done(let facts) = census.state(index) {
                identity = facts.identity
            } else {
                identity = lastKnown[index]?.identity
            }
            guard let change = identity?.change(at: path) else { continue }
            forget(index)
            changes.append((index, change))
        }
        return changes
    }

    /// Lets go of what is known of table `index` and counts it again.
    private func forget(_ index: Int) {
        handed[index] = nil
        kept.removeAll { $0.index == index }
        lastKnown[index] = nil
        census.recount(index)
    }

    /// Takes the news of the stores open: a store that read its table to the end has
    /// counted it (the census need not), one that closed before it did leaves the
    /// table to the census again.
    package func takeNews() {
        for (index, handed) in handed {
            if let store = handed.store {
                let facts = TableFacts(store: store, follows: follows)
                lastKnown[index] = facts
                if facts.isFinal, census.state(index) != .done(facts) { census.record(index, facts) }
            } else {
                self.handed[index] = nil
                if case .done = census.state(index) { continue }
                census.release(index)
            }
        }
    }
}
