import CellStore
import Dispatch
import Query
import Scan
import Synchronization
import Table

/// The comparison of two tables, made on threads of its own and stepped by its owner in
/// batches of aligned rows while it runs; dropping it (or `cancel()`) stops it.
///
/// With key columns, records are matched by their keys' values: each input's (key, record,
/// hash) entries are sorted in runs that spill to temporary files past the memory budget
/// (the sort's way), and the two sorted streams are merged, duplicates matched in file
/// order; the rows are then put back in the new file's order (removed records where the
/// old file had them, records out of their old order moved: see `KeptOrder`), as daff
/// orders them. Without keys, records are aligned by position: each input's records become
/// 64-bit hashes (8 bytes a record in memory), aligned by `Alignment`. A record's hash is
/// of its values in the columns both tables have, so quoting, the delimiter and the
/// columns' order do not matter; two records whose hashes are equal are the same (a chance
/// of about 2⁻⁶⁴ otherwise). Only the records of rows that differ, and of same rows within
/// the context asked for, are read again (by offset).
package final class TableDiff {
    package struct Options: Sendable {
        /// Key columns as the user names them (a name, or a number from 1); none: by position.
        package var key: [String]
        /// Same rows before and after each difference whose records are read for showing.
        package var context: Int
        /// Bytes the keyed passes keep in memory, both inputs together, before spilling.
        package var memoryBudget: Int
        /// False when the owner keeps only each row's kind and records (the screen reads a
        /// row's cells again when it shows it): rows then come without their cells, and up
        /// to 65,536 wait for the owner instead of 8,192, so a comparison is not held back
        /// between two looks of the event loop (`AppLoop.newsInterval`).
        package var keepsCells = true

        package init(key: [String] = [], context: Int = 0, memoryBudget: Int = 64 << 20) {
            self.key = key
            self.context = context
            self.memoryBudget = memoryBudget
        }
    }

    /// Where the comparison is.
    package enum Phase: Sendable, Equatable {
        case reading, aligning, done, cancelled
        case failed(String)
    }

    /// The columns matched by name, in the order shown.
    package let columns: DiffColumns
    /// The key's columns, as places in `columns` (empty: by position).
    package let keyColumns: [Int]
    let core: Core
    private var scan: BackgroundScan<Bool>?

    final class Core: Sendable {
        /// Rows handed to the owner, a bounded number held (see `Options.keepsCells`): the
        /// owner's event loop is woken when rows come into an empty queue, and takes all
        /// there is then.
        let queue: BoundedQueue<DiffRow>
        let keepsCells: Bool
        let phase = Mutex(Phase.reading)
        let statistics = Mutex(DiffStatistics())
        /// The stage past reading and how far it is (reading's bytes are the scan's).
        let progress = Mutex(DiffProgress(stage: .reading, done: 0, total: 0))

        init(keepsCells: Bool, wake: @escaping @Sendable () -> Void) {
            self.keepsCells = keepsCells
            queue = BoundedQueue(limit: keepsCells ? 8192 : 65_536, onArrival: wake)
        }
    }

    /// Starts comparing `old` with `new`. Throws when a key column is missing from either.
    package init(old: DiffInput, new: DiffInput, options: Options, wake: @escaping @Sendable () -> Void = {}) throws(DiffError) {
        let columns = DiffColumns(old: old.names, new: new.names)
        var keyColumns: [Int] = []
        for reference in options.key {
            let oldColumn: Int
            do {
                oldColumn = try ColumnReference(reference).resolve(in: old.names, columns: old.names.count)
            } catch {
                throw .unknownKey("--key '\(reference)': \(old.name): \(error.description)")
            }
            let name = old.names[oldColumn]
            guard let shown = columns.commonColumn(named: name) else {
                throw .unknownKey("--key '\(reference)': \(new.name) has no column '\(name)'")
            }
            if !keyColumns.contains(shown) { keyColumns.append(shown) }
        }
        self.columns = columns
        self.keyColumns = keyColumns
        let core = Core(keepsCells: options.keepsCells, wake: wake)
        self.core = core
        core.statistics.withLock { $0.changedCells = Array(repeating: 0, count: columns.columns.count) }
        let job = DiffJob(old: old, new: new, columns: columns, keyColumns: keyColumns, options: options, core: core, wake: wake)
        scan = BackgroundScan(name: "csvfreeze diff", total: old.byteCount + new.byteCount, wake: wake) { control in
            job.run(control: control)
        }
    }

    deinit {
        core.queue.close()
        scan = nil
    }

    /// Up to `batch` more rows, waiting for them while the comparison runs; nil at the end.
    package func next(batch: Int) -> [DiffRow]? { core.queue.take(max(1, batch)) }

    /// The rows made so far, up to `batch`, without waiting: empty when none is ready yet,
    /// nil at the end (what the screen takes on news, between frames).
    package func poll(batch: Int) -> [DiffRow]? { core.queue.poll(max(1, batch)) }

    /// Stops the comparison; rows already made stay readable.
    package func cancel() {
        scan?.cancel()
        core.queue.close()
    }

    /// Waits until the comparison has ended (it must not be waiting for room: read its rows).
    package func wait() { scan?.wait() }

    package var phase: Phase { core.phase.withLock { $0 } }

    /// How far the comparison is: reading both inputs (bytes), then matching keys and
    /// putting the rows in order, or aligning records by position.
    package var progress: DiffProgress {
        let progress = core.progress.withLock { $0 }
        guard progress.stage == .reading, case .running(let done, let total)? = scan?.status else { return progress }
        return DiffProgress(stage: .reading, done: done, total: total)
    }
    package var statistics: DiffStatistics { core.statistics.withLock { $0 } }
}

/// How far a comparison is: the stage it is in and the part of it done.
package struct DiffProgress: Sendable, Equatable {
    package enum Stage: Sendable, Equatable {
        /// Reading and hashing both inputs (counted in bytes).
        case reading
        /// By key: matching the sorted keys of both inputs (entries).
        case matching
        /// By key: putting the rows in the new file's order (rows); rows come meanwhile.
        case ordering
        /// By position: aligning the records of both inputs; rows come meanwhile.
        case aligning
    }

    package var stage: Stage
    package var done: Int64
    package var total: Int64

    /// The part of the stage done, from 0 to 1.
    package var fraction: Double { total > 0 ? min(1, max(0, Double(done) / Double(total))) : 0 }
}

/// Publishes a stage's progress to the owner, waking it at each hundredth.
struct ProgressMeter {
    let core: TableDiff.Core
    let stage: DiffProgress.Stage
    let total: Int64
    let wake: @Sendable () -> Void
    private var published = -1

    init(core: TableDiff.Core, stage: DiffProgress.Stage, total: Int64, wake: @escaping @Sendable () -> Void) {
        self.core = core
        self.stage = stage
        self.total = total
        self.wake = wake
        advance(to: 0)
    }

    mutating func advance(to done: Int64) {
        let hundredths = total > 0 ? Int(min(done, total) * 100 / total) : 100
        guard hundredths != published else { return }
        published = hundredths
        let progress = DiffProgress(stage: stage, done: done, total: total)
        core.progress.withLock { $0 = progress }
        wake()
    }
}
