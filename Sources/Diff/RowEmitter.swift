import CellStore
import Table

/// Turns matched records into `DiffRow`s: reads the records of rows that differ (and of
/// same rows within the context), finds the changed cells, counts, and hands the rows to
/// the queue in batches.
///
/// Same rows are held back up to `context` at a time, so that when a difference follows
/// them their records can still be read before they leave.
final class RowEmitter {
    private let old: RowFetcher
    private let new: RowFetcher
    private let columns: DiffColumns
    private let context: Int
    private let queue: BoundedQueue<DiffRow>
    private let core: TableDiff.Core
    private var batch: [DiffRow] = []
    private var heldSame: [DiffRow] = []
    private var after = 0
    private var statistics = DiffStatistics()
    /// False once the owner stopped reading.
    private(set) var isOpen = true

    init(old: RowFetcher, new: RowFetcher, columns: DiffColumns, context: Int, core: TableDiff.Core) {
        self.old = old
        self.new = new
        self.columns = columns
        self.context = max(0, context)
        queue = core.queue
        self.core = core
        statistics.changedCells = Array(repeating: 0, count: columns.columns.count)
        batch.reserveCapacity(1024)
    }

    /// Records both tables have with the same values.
    func same(old oldRef: RecordRef, new newRef: RecordRef, hasNewColumnValues: Bool) {
        statistics.same += 1
        var row = DiffRow(kind: .same, old: oldRef, new: newRef)
        row.hasNewColumnValues = hasNewColumnValues
        if hasNewColumnValues {
            difference(row)
            return
        }
        if after > 0 {
            after -= 1
            read(&row)
            add(row)
            return
        }
        guard context > 0 else { return add(row) }
        heldSame.append(row)
        if heldSame.count > context { add(heldSame.removeFirst()) }
    }

    /// Records matched whose values differ (by their hashes).
    func changed(old oldRef: RecordRef, new newRef: RecordRef, hasNewColumnValues: Bool) {
        var row = DiffRow(kind: .changed, old: oldRef, new: newRef)
        row.hasNewColumnValues = hasNewColumnValues
        read(&row)
        if let oldRow = row.oldRow, let newRow = row.newRow {
            row.changedColumns = changedColumns(oldRow, newRow)
        }
        if row.changedColumns.isEmpty && row.oldRow != nil && row.newRow != nil {
            // Equal hashes aside, every compared cell agrees: the same (cells too long to
            // compare whole are the only way there).
            row.kind = .same
            statistics.same += 1
        } else {
            statistics.changed += 1
            for column in row.changedColumns { statistics.changedCells[column] += 1 }
        }
        difference(row)
    }

    /// Records both tables have with the same values, the new table having it elsewhere
    /// among the records both keep (by key).
    func moved(old oldRef: RecordRef, new newRef: RecordRef, hasNewColumnValues: Bool) {
        statistics.moved += 1
        var row = DiffRow(kind: .moved, old: oldRef, new: newRef)
        row.hasNewColumnValues = hasNewColumnValues
        difference(row)
    }

    func added(new newRef: RecordRef) {
        statistics.added += 1
        difference(DiffRow(kind: .added, old: nil, new: newRef))
    }

    func removed(old oldRef: RecordRef) {
        statistics.removed += 1
        difference(DiffRow(kind: .removed, old: oldRef, new: nil))
    }

    /// Pairs the records of a hunk in order (an old and a new record between the same two
    /// equal ones are one changed record), the rest removed or added.
    func hunk(old oldRefs: [RecordRef], new newRefs: [RecordRef], newFlags: (Int) -> Bool) {
        let pairs = min(oldRefs.count, newRefs.count)
        for index in 0..<pairs where isOpen {
            changed(old: oldRefs[index], new: newRefs[index], hasNewColumnValues: newFlags(newRefs[index].record))
        }
        for ref in oldRefs[pairs...] where isOpen { removed(old: ref) }
        for ref in newRefs[pairs...] where isOpen { added(new: ref) }
    }

    /// Notes facts found by the passes (keys) in the statistics.
    func note(_ change: (inout DiffStatistics) -> Void) { change(&statistics) }

    /// Hands out what is held and publishes the counts.
    func finish() {
        for row in heldSame { add(row) }
        heldSame.removeAll()
        flush()
    }

    private func difference(_ row: DiffRow) {
        var row = row
        if row.oldRow == nil && row.newRow == nil { read(&row) }
        for var held in heldSame {
            read(&held)
            add(held)
        }
        heldSame.removeAll(keepingCapacity: true)
        add(row)
        after = context
    }

    private func read(_ row: inout DiffRow) {
        if let ref = row.old, row.oldRow == nil { row.oldRow = old.row(ref.record, offset: ref.offset) }
        if let ref = row.new, row.newRow == nil { row.newRow = new.row(ref.record, offset: ref.offset) }
    }

    private func add(_ row: DiffRow) {
        var row = row
        if !core.keepsCells {
            // Read for the counts; the owner reads them again when it shows the row.
            row.oldRow = nil
            row.newRow = nil
        }
        batch.append(row)
        if batch.count >= 1024 { flush() }
    }

    private func flush() {
        let counts = statistics
        core.statistics.withLock { $0 = counts }
        if !batch.isEmpty {
            if !queue.push(contentsOf: batch) { isOpen = false }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// The shown columns, in both tables, whose cells differ.
    private func changedColumns(_ oldRow: Row, _ newRow: Row) -> [Int] {
        var changed: [Int] = []
        for (place, column) in columns.columns.enumerated() {
            guard let o = column.old, let n = column.new else { continue }
            if oldRow.field(o) != newRow.field(n) || oldRow.fullLength(ofCell: o) != newRow.fullLength(ofCell: n) {
                changed.append(place)
            }
        }
        return changed
    }
}
