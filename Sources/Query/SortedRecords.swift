import CellStore
import Scan
import Synchronization
import Table

/// The data records of an input in the order of one or more sort keys, made in bounded
/// memory whatever the input's size; the rows the viewer shows when a user sorts.
///
/// Start one with `SortedRecords.start(store:headerRows:keys:wake:)` on the UI thread. A
/// pass on a thread of its own (two cores: the input is cut at checkpoints) reads every
/// record once without parsing its other cells and notes its key, number and start offset;
/// up to `memoryBudget` they are sorted in memory, beyond it sorted runs spill to
/// temporary files, and the runs are merged once into the order, which is read back by
/// window (a temporary file past a small budget). The view's rows appear as the merge
/// makes them: `count` grows from the first rows on and `isComplete` turns true at the
/// end. `records(in:)` hands out refs with offsets, so each row is read with
/// `CellStore.row(_:at:)`. `index(of:)` finds a record's row by its key (a binary search
/// that reads about 25 records). Header records never move and are not in the sequence.
///
/// An input still loading is followed: the pass reads the records as the index reaches
/// them, and the merge starts when the input is complete. Temporary files are unlinked as
/// they are made, so none is left on any way out. Dropping the object cancels the pass
/// and waits for its thread; `cancel()` stops it sooner.
package final class SortedRecords: RecordSequence {
    /// Where the pass is.
    package enum Phase: Sendable, Equatable {
        case reading, merging, done, cancelled
        case failed(String)
    }

    /// What the pass shares with the object.
    final class Core: Sendable {
        let permutation: Permutation
        let phase = Mutex(Phase.reading)
        let done = Atomic<Int64>(0)
        let total = Atomic<Int64>(0)
        let runs = Atomic<Int>(0)
        /// Published when merged rows are added and when the pass ends.
        let changes = ChangeSignal()

        init(permutation: Permutation = Permutation()) { self.permutation = permutation }
    }

    package let keys: [SortKey]
    package let kinds: [ColumnKind]
    package let headerRows: Int
    let core: Core
    /// What is sorted: read again to find a record's row by its key.
    let input: PassInput
    /// The edits in the bytes the sort read.
    package var patch: RecordPatch {
        if case .readers(let readers) = input { return readers.patch }
        return .empty
    }
    /// The pass; dropping it (with the object) cancels it and waits for its thread. None
    /// for an order kept from an earlier session.
    private let scan: BackgroundScan<Bool>?
    /// The order kept from an earlier session this was made from (nil: a pass made it).
    package let stored: StoredPairs?

    /// Memory the sort may use for keys, all workers together.
    package static let defaultBudget = 64 << 20

    /// Starts sorting the data records of `store` by `keys` (kinds judged from the first
    /// thousand data records). `wake` is called from the pass's thread on progress.
    package static func start(store: CellStore, headerRows: Int, keys: [SortKey], kinds: [ColumnKind]? = nil,
                             memoryBudget: Int = defaultBudget, workers: Int = 2,
                             wake: @escaping @Sendable () -> Void = {}) -> SortedRecords {
        let kinds = kinds ?? keys.map { ColumnKind.judge(column: $0.column, in: store, headerRows: headerRows) }
        return SortedRecords(input: .readers(store.follows ? store.recordReadersAsOfNow : store.recordReaders), headerRows: headerRows,
                             keys: keys, kinds: kinds, memoryBudget: memoryBudget, workers: workers, wake: wake)
    }

    /// Starts sorting the data rows of `rows` (a sheet's) by `keys`, with the same keys as
    /// a file's records (kinds judged from the first thousand data rows).
    package static func start(rows: RowSnapshot, headerRows: Int, keys: [SortKey], kinds: [ColumnKind]? = nil,
                             memoryBudget: Int = defaultBudget, wake: @escaping @Sendable () -> Void = {}) -> SortedRecords {
        let kinds = kinds ?? keys.map { ColumnKind.judge(column: $0.column, in: rows, headerRows: headerRows) }
        // One thread reads the rows: the one budget is its own.
        return SortedRecords(input: .rows(rows), headerRows: headerRows, keys: keys, kinds: kinds, memoryBudget: memoryBudget,
                             workers: 1, wake: wake)
    }

    init(input: PassInput, headerRows: Int, keys: [SortKey], kinds: [ColumnKind], memoryBudget: Int,
         workers: Int, wake: @escaping @Sendable () -> Void) {
        self.keys = keys
        self.kinds = kinds
        self.headerRows = headerRows
        self.input = input
        let core = Core()
        self.core = core
        let job = SortJob(input: input, headerRows: headerRows, builder: KeyBuilder(keys: keys, kinds: kinds),
                          budget: max(1 << 16, memoryBudget / max(1, workers)), workers: max(1, workers), core: core, wake: wake)
        stored = nil
        scan = BackgroundScan(name: "csvfreeze sort", total: 0, wake: wake) { control in
            job.run(control: control)
        }
    }

    /// The order of `store`'s data records by `keys` kept from an earlier session: complete
    /// at once, with no pass (`stored` was checked before; see `StoredPairs`).
    package init(store: CellStore, headerRows: Int, keys: [SortKey], kinds: [ColumnKind], stored: StoredPairs) {
        self.keys = keys
        self.kinds = kinds
        self.headerRows = headerRows
        input = .readers(store.recordReaders)
        core = Core(permutation: Permutation(stored: stored))
        core.phase.withLock { $0 = .done }
        scan = nil
        self.stored = stored
    }

    /// Stops the pass; the rows merged so far stay readable.
    package func cancel() { scan?.cancel() }

    /// Waits until the pass has ended (for the command line, tests and the benchmark).
    package func wait() { scan?.wait() }

    /// The (record, offset) pairs of view rows `range` (clamped), flattened; -1 for an
    /// offset not known: what a session keeps of a complete sort.
    package func pairs(in range: Range<Int>) -> [Int64] {
        core.permutation.records(in: range).flatMap { [Int64($0.record), $0.offset ?? -1] }
    }

    package var phase: Phase { core.phase.withLock { $0 } }
    /// Bytes of the input read so far, and the input's size as known now.
    package var progress: (done: Int64, total: Int64) { (core.done.load(ordering: .relaxed), core.total.load(ordering: .relaxed)) }
    /// Sorted runs written to temporary files.
    package var spilledRuns: Int { core.runs.load(ordering: .relaxed) }

    // MARK: RecordSequence

    package var count: Int { core.permutation.count }
    package var changes: ChangeSignal { core.changes }
    package var isComplete: Bool {
        switch phase {
        case .done, .cancelled, .failed: return true
        case .reading, .merging: return false
        }
    }

    package func records(in range: Range<Int>) -> [RecordRef] { core.permutation.records(in: range) }

    package func index(of record: Int) -> Int? {
        let lookUp: (Int) -> Row?, probe: (RecordRef) -> Row?
        switch input {
        case .readers(let readers):
            guard let reader = readers.current() else { return nil }
            lookUp = { reader.record($0) }
            probe = { ref in ref.offset.flatMap { reader.record(at: $0) } }
        case .rows(let rows):
            lookUp = rows.row
            probe = { rows.row($0.record) }
        }
        guard record >= headerRows, let row = lookUp(record) else { return nil }
        var builder = KeyBuilder(keys: keys, kinds: kinds)
        let wanted = builder.key(of: { row.field($0) })
        // The first row whose (key, record) is not before the wanted one.
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            guard let ref = records(in: middle..<(middle + 1)).first, let probe = probe(ref) else { return nil }
            let key = builder.key(of: { probe.field($0) })
            let order = key.withUnsafeBytes { a in wanted.withUnsafeBytes { b in SortRun.compare(a, b) } }
            if order < 0 || (order == 0 && ref.record < record) { low = middle + 1 } else { high = middle }
        }
        guard low < count, records(in: low..<(low + 1)).first?.record == record else { return nil }
        return low
    }
}
