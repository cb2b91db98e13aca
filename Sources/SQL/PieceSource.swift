import CellStore
import Scan
import Synchronization

/// The pieces of an input that a scan reads, numbered in input order, made as the index
/// grows: a scan starts while the input is still being indexed, and reads each stretch
/// soon after the index has passed it.
///
/// A piece ends at a checkpoint (so every record in it is known whole), or at the input's
/// end once the index is complete. Each comes with the records it holds, which the index
/// tells.
final class PieceSource: Sendable {
    struct Item: Sendable {
        var piece: ScanInput.Piece
        /// Records that start in the piece.
        var records: Range<Int>
    }

    private struct State {
        var items: [Item] = []
        var nextRecord: Int
        var isFinal = false
        /// Bytes the index had read at the last refresh.
        var refreshedAt: Int64 = -1
    }

    private let readers: RecordReaders
    private let records: Range<Int>
    private let limit: Int64
    private let state: Mutex<State>
    /// The query's control, which counts the looks at the index (for tests).
    private let control: QueryControl?

    init(readers: RecordReaders, records: Range<Int>, limit: Int64, control: QueryControl? = nil) {
        self.readers = readers
        self.records = records
        self.limit = limit
        self.control = control
        state = Mutex(State(nextRecord: records.lowerBound))
        if records.isEmpty { state.withLock { $0.isFinal = true } }
        refresh()
    }

    /// True when every piece is known now (the index is complete).
    var isFinal: Bool { state.withLock { $0.isFinal } }

    /// Pieces known now.
    var knownCount: Int { state.withLock { $0.items.count } }

    /// Piece `index`, waiting for the index to reach it; nil when the input has fewer
    /// pieces, or when `isCancelled` says to stop.
    ///
    /// It waits on the index's signal (`readers.changes`), with no time limit: everything
    /// that can end the wait publishes on it. The loader does as the index grows and at
    /// its end; `refresh()` does when it adds pieces or learns there are no more (another
    /// worker may be waiting for exactly those); whoever makes `isCancelled` true does too
    /// (`QueryControl.cancel`, `RowFeed.stop`, a `GroupFeed` that goes), so a waiting scan
    /// stops at once.
    func item(_ index: Int, isCancelled: () -> Bool) -> Item? {
        let changes = readers.changes
        while true {
            // Read before looking: a change after the look moves it on, and the wait returns.
            let version = changes.version
            control?.noteLook()
            let (found, isFinal) = state.withLock { ($0.items.indices.contains(index) ? $0.items[index] : nil, $0.isFinal) }
            if let found { return found }
            if isFinal || isCancelled() { return nil }
            if refreshIfGrown() { continue }
            changes.wait(past: version)
        }
    }

    /// Refreshes once the index has read a few pieces more, or is complete: each refresh
    /// takes a copy of the checkpoints, which the loader then pays for once (its array is
    /// shared until its next append), so it must not happen at every wait.
    private func refreshIfGrown() -> Bool {
        let progress = readers.progress
        let step = max(limit * 8, 4 << 20)
        let due = state.withLock { progress.isComplete || progress.bytesRead >= $0.refreshedAt + step }
        return due && refresh()
    }

    /// Adds the pieces the index has passed since the last call; true when it added any
    /// (or learned that there are no more), and then it publishes on the index's signal.
    ///
    /// Workers share the source: the one whose call adds a piece, or finalises the source,
    /// is not always the one waiting for it. Another one's call finds nothing left to add
    /// and waits; without this news it would wait for a change the loader has already
    /// published (its last) and that nothing else would bring.
    @discardableResult
    func refresh() -> Bool {
        guard takeIndex() else { return false }
        readers.changes.notify()
        return true
    }

    /// The work of `refresh()`, under the lock; true when the pieces known changed.
    private func takeIndex() -> Bool {
        let progress = readers.progress
        guard let input = ScanInput(readers: readers) else {
            // An input that ended before its dialect was known has no pieces.
            guard progress.isComplete else { return false }
            return state.withLock { state in
                defer { state.isFinal = true }
                return !state.isFinal
            }
        }
        let isFinal = input.reader.isFinal && progress.isComplete
        return state.withLock { state in
            guard !state.isFinal else { return false }
            state.refreshedAt = max(state.refreshedAt, progress.bytesRead)
            // Records before the last checkpoint lie in closed pieces; the rest only once the
            // input has ended.
            let indexed = input.indexedRecords
            let upper = isFinal ? records.upperBound : min(records.upperBound, indexed)
            let total = isFinal ? min(records.upperBound, progress.rowCount) : upper
            var added = false
            if state.nextRecord < upper {
                let pieces = input.pieces(for: state.nextRecord..<upper, limit: limit, raw: true)
                for (index, piece) in pieces.enumerated() {
                    let end = index + 1 < pieces.count ? pieces[index + 1].firstRecord : total
                    // A piece may start before the first record wanted (the header's checkpoint).
                    state.items.append(Item(piece: piece, records: piece.firstRecord..<max(piece.firstRecord, end)))
                    added = true
                }
                state.nextRecord = upper
            }
            if isFinal {
                state.isFinal = true
                added = true
            }
            return added
        }
    }
}
