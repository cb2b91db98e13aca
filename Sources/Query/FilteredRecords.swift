import CellStore
import Scan
import Synchronization
import Table

/// The data records that meet every one of some filters, in the file's order or in the
/// order of another view (a sort): the rows the viewer shows when a user filters.
///
/// Start one with `FilteredRecords.start(store:headerRows:filters:over:wake:)` on the UI
/// thread. A pass on a thread of its own finds each filter's matching records with the
/// search's raw-byte scan (`CellSearch`: raw bytes searched for candidates, only records
/// around a candidate parsed), a stretch of the input at a time, and keeps the records
/// that meet every filter as one bit per record (a bitmap with counts per 512 bits), so
/// memory does not grow with the matches. Over another view, the record bits are then
/// laid over that view's rows in its order (the base's order is kept).
///
/// It is readable while it runs: `count` is the rows found so far, the first matches at
/// once, `isComplete` turns true at the end. An input still loading is followed: the pass
/// covers the records indexed so far and goes on as the index grows (`isFollowingInput`
/// says so). `index(of:)` is a rank in the bitmap. Dropping the object cancels the pass
/// and waits for its thread.
package final class FilteredRecords: RecordSequence {
    final class Core: Sendable {
        /// Over the file: members are record numbers. Over a base: rows of the base.
        let rows = Mutex(RankedBitmap())
        /// Over a base: the record bits, while they are being found.
        let done = Atomic<Int64>(0)
        let total = Atomic<Int64>(0)
        let state = Mutex<(complete: Bool, following: Bool, failure: String?)>((false, true, nil))
        /// Published when rows are added and when the pass ends.
        let changes = ChangeSignal()
        let decidedFromRawBytes = Atomic<Bool>(false)
    }

    package let filters: [RecordFilter]
    package let headerRows: Int
    /// The view filtered, or nil for the file's order.
    package let base: (any RecordSequence)?
    let core = Core()
    /// The pass; dropping it (with the object) cancels it and waits for its thread. None
    /// for rows kept from an earlier session.
    private let scan: BackgroundScan<Bool>?
    /// The edits in the bytes the filter read.
    package let patch: RecordPatch
    /// The rows kept by an earlier session, read from its file block by block as they are
    /// needed (`StoredBitmap`); nil for rows found by a pass.
    package let stored: StoredBitmap?

    /// Starts filtering the data records of `store` (or of `base`, keeping its order).
    /// Throws when a pattern does not compile.
    /// With `decidesFromRawBytes`, a plain file's raw bytes are first searched for a
    /// filter's literal with no index (`RawAbsence`): where none holds it, the pass ends at
    /// once with no rows, while the loader may still be indexing (for `--output`, where
    /// nothing else waits on the index).
    package static func start(store: CellStore, headerRows: Int, filters: [RecordFilter], over base: (any RecordSequence)? = nil,
                             decidesFromRawBytes: Bool = false,
                             wake: @escaping @Sendable () -> Void = {}) throws(QueryError) -> FilteredRecords {
        let patterns = try filters.map { (filter) throws(QueryError) in try filter.compile() }
        return FilteredRecords(input: .readers(store.follows ? store.recordReadersAsOfNow : store.recordReaders), headerRows: headerRows,
                               filters: filters, patterns: patterns, base: base, decidesFromRawBytes: decidesFromRawBytes, wake: wake)
    }

    /// Starts filtering the data records of `rows` (a sheet's), each cell matched as the
    /// raw-byte scan confirms a file's. Throws when a pattern does not compile.
    package static func start(rows: RowSnapshot, headerRows: Int, filters: [RecordFilter], over base: (any RecordSequence)? = nil,
                             wake: @escaping @Sendable () -> Void = {}) throws(QueryError) -> FilteredRecords {
        let patterns = try filters.map { (filter) throws(QueryError) in try filter.compile() }
        return FilteredRecords(input: .rows(rows), headerRows: headerRows, filters: filters, patterns: patterns, base: base, wake: wake)
    }

    init(input: PassInput, headerRows: Int, filters: [RecordFilter], patterns: [CompiledPattern],
         base: (any RecordSequence)?, decidesFromRawBytes: Bool = false, wake: @escaping @Sendable () -> Void) {
        if case .readers(let readers) = input { patch = readers.patch } else { patch = .empty }
        stored = nil
        self.filters = filters
        self.headerRows = headerRows
        self.base = base
        let job = FilterJob(input: input, headerRows: headerRows, filters: filters, patterns: patterns, base: base,
                            decidesFromRawBytes: decidesFromRawBytes, core: core, wake: wake)
        scan = BackgroundScan(name: "csvfreeze filter", total: 0, wake: wake) { control in job.run(control: control) }
    }

    /// The rows `filters` kept, from an earlier session: `words` over `length` records of
    /// the file (or rows of `base`), complete at once, with no pass. Nil when the words do
    /// not make a bitmap of that length.
    package init?(filters: [RecordFilter], headerRows: Int, base: (any RecordSequence)?, words: [UInt64], length: Int) {
        guard let bitmap = RankedBitmap(words: words, length: length) else { return nil }
        // Kept from an earlier session, before any edit: over the file's own bytes.
        patch = .empty
        stored = nil
        self.filters = filters
        self.headerRows = headerRows
        self.base = base
        scan = nil
        core.rows.withLock { $0 = bitmap }
        core.state.withLock { $0 = (true, false, nil) }
    }

    /// The rows `filters` kept, from an earlier session's file (`stored`, over the file's
    /// records or rows of `base`): complete at once, its count known, its blocks read as
    /// rows in them are wanted. A block that fails its check reads as rows not there
    /// (record -1), and `stored.hasFailed` says the view is to filter again.
    package init(filters: [RecordFilter], headerRows: Int, base: (any RecordSequence)?, stored: StoredBitmap) {
        patch = .empty
        self.stored = stored
        self.filters = filters
        self.headerRows = headerRows
        self.base = base
        scan = nil
        core.state.withLock { $0 = (true, false, nil) }
    }

    /// The bits of a complete pass (positions are records of the file, or rows of the
    /// base), and how many positions they cover: what a session keeps. None for rows kept
    /// by a session (`stored` says where they lie).
    package var bitmap: (words: [UInt64], length: Int) { core.rows.withLock { ($0.allWords, $0.length) } }

    /// Stops the pass; the rows found so far stay readable.
    package func cancel() { scan?.cancel() }

    /// Waits until the pass has ended (for the command line, tests and the benchmark).
    package func wait() { scan?.wait() }

    /// Bytes of the input read so far by the filters, and what they will read as known now.
    package var progress: (done: Int64, total: Int64) { (core.done.load(ordering: .relaxed), core.total.load(ordering: .relaxed)) }
    /// True while the input is still loading and the pass follows it.
    package var isFollowingInput: Bool { core.state.withLock { $0.following && !$0.complete } }
    /// Why the pass stopped early, if it did.
    package var failure: String? { core.state.withLock { $0.failure } }
    /// True when the raw bytes alone showed that no record is kept (see `start`).
    package var wasDecidedFromRawBytes: Bool { core.decidedFromRawBytes.load(ordering: .relaxed) }

    // MARK: RecordSequence

    package var count: Int { stored?.count ?? core.rows.withLock { $0.count } }
    package var isComplete: Bool { core.state.withLock { $0.complete } }
    package var changes: ChangeSignal { core.changes }

    package func records(in range: Range<Int>) -> [RecordRef] {
        let positions = stored?.members(range) ?? core.rows.withLock { $0.members(range) }
        // A block of a kept bitmap that failed its check: rows not there, never others.
        if positions.first == -1 { return positions.map { _ in RecordRef(record: -1) } }
        guard let base else { return positions.map { RecordRef(record: $0) } }
        guard let first = positions.first, let last = positions.last else { return [] }
        // One read of the base's rows spanned, when they are close; else one at a time.
        if last - first < positions.count * 4 + 64 {
            let refs = base.records(in: first..<(last + 1))
            return positions.compactMap { $0 - first < refs.count ? refs[$0 - first] : nil }
        }
        return positions.compactMap { base.records(in: $0..<($0 + 1)).first }
    }

    package func index(of record: Int) -> Int? {
        guard let position = base.map({ $0.index(of: record) }) ?? record else { return nil }
        if let stored { return stored.contains(position) == true ? stored.rank(position) : nil }
        return core.rows.withLock { $0.contains(position) ? $0.rank(position) : nil }
    }

    /// The rows kept before `record`'s place (in the file, or in the base's order): a rank.
    public func index(following record: Int) -> Int? {
        guard let position = base.map({ $0.index(of: record) }) ?? record else { return nil }
        if let stored { return stored.rank(position) }
        return core.rows.withLock { $0.rank(position) }
    }
}
