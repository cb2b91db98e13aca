import CellStore

/// A file's rows with the user's edits over them: the `RowSource` of every table read
/// from a file. With no edits it passes the file's rows through.
///
/// Records are numbered as the edited table has them: records added come between the
/// input's, which move down by as many; a deleted record stays (marked) until the save.
/// The edits are also spliced into the bytes every pass reads (`CellStore.patch`), so
/// search, filters, sorts, counts, the summary and SQL see the edited values.
public final class EditedRows: MarkedRows {
    package let store: CellStore
    package private(set) var journal = EditJournal()
    /// Bumped when records are added or taken away (rows after them change numbers).
    public private(set) var generation = 0
    /// Records added before each group (`counted[g]`: in the groups before `g`).
    private var counted: [Int] = [0]
    private var nextAddedID = 1
    private var nextPatchID = 1
    /// True when the store's patch holds the journal as it is (not while steps are applied
    /// with no splicing): only then is it changed piece by piece.
    private var patchIsCurrent = true
    /// Times the patch of the bytes passes read was made whole (work, for tests).
    package private(set) var patchesMadeWhole = 0
    /// The input file as it was at the first edit: a save over it needs it unchanged.
    package var baseline: InputFingerprint?

    package init(store: CellStore) {
        self.store = store
    }

    // MARK: RowSource

    public var name: String { store.name }
    public var rowCount: Int {
        let count = store.rowCount
        return count + addedBefore(original: count + (store.isComplete ? 1 : 0))
    }
    public var isComplete: Bool { store.isComplete }
    public var columnCount: Int {
        journal.isEmpty ? store.columnCount : max(store.columnCount, store.patch.widest)
    }
    public var headerRows: Int? { nil }
    public var wake: @Sendable () -> Void { store.wake }
    public func snapshot() -> RowSnapshot? { nil }
    public func sortSnapshot() -> RowSnapshot? { nil }
    public var file: CellStore? { store }

    public func row(_ index: Int) -> Row? {
        guard !journal.isEmpty else { return store.row(index) }
        switch place(ofRecord: index) {
        case .added(let group, let position): return journal.groups[group].records[position].row
        case .original(let record): return journal.changed[record]?.row ?? store.row(record)
        }
    }

    /// - Complexity: as the file's `rows(_:)` for records not edited; an edited one is in hand.
    public func rows(_ refs: [RecordRef]) -> [Int: Row] {
        guard !journal.isEmpty else { return store.rows(refs) }
        var result: [Int: Row] = [:]
        var wanted: [RecordRef] = []
        var virtualOf: [Int: Int] = [:]
        for ref in refs {
            switch place(ofRecord: ref.record) {
            case .added(let group, let position):
                result[ref.record] = journal.groups[group].records[position].row
            case .original(let record):
                if let changed = journal.changed[record] {
                    result[ref.record] = changed.row
                } else {
                    virtualOf[record] = ref.record
                    wanted.append(RecordRef(record: record, offset: ref.offset.flatMap(store.patch.originalOffset)))
                }
            }
        }
        for (record, row) in store.rows(wanted) {
            if let virtual = virtualOf[record] { result[virtual] = row }
        }
        return result
    }

    public func takeNews() { store.takeNews() }

    public func mark(record: Int, column: Int) -> RowMark {
        guard !journal.isEmpty else { return .none }
        switch place(ofRecord: record) {
        case .added: return .added
        case .original(let original):
            if journal.deleted[original] != nil { return .removed }
            guard let changed = journal.changed[original] else { return .none }
            return column >= 0 && changed.columns.contains(column) ? .changedCell : .changed
        }
    }

    public func markedRecord(from record: Int, forward: Bool) -> Int? {
        guard !journal.isEmpty else { return nil }
        let marked = editedRecords
        if forward { return marked.first { $0 > record } }
        return marked.last { $0 < record }
    }

    /// Every edited record's number, in order.
    package var editedRecords: [Int] {
        var records = Set(journal.changed.keys.map(virtualRecord(ofOriginal:)))
        records.formUnion(journal.deleted.keys.map(virtualRecord(ofOriginal:)))
        for (index, group) in journal.groups.enumerated() {
            let start = group.point.anchor + counted[index]
            records.formUnion(start..<(start + group.records.count))
        }
        return records.sorted()
    }

    public var statusNote: String? {
        guard !journal.isEmpty else { return nil }
        var parts: [String] = []
        if journal.changedCount > 0 { parts.append("\(journal.changedCount) changed") }
        if journal.addedCount > 0 { parts.append("\(journal.addedCount) added") }
        if !journal.deleted.isEmpty { parts.append("\(journal.deleted.count) deleted") }
        return parts.joined(separator: ", ") + ", unsaved"
    }

    // MARK: Numbers

    /// Where a record of the edited table comes from.
    package enum Place: Equatable {
        /// An input record, by its number in the input.
        case original(Int)
        /// An added record: its group and place in it.
        case added(group: Int, index: Int)
    }

    /// Where record `record` of the edited table comes from.
    /// - Complexity: O(log g) for g places where records were added.
    package func place(ofRecord record: Int) -> Place {
        let groups = journal.groups
        guard !groups.isEmpty else { return .original(record) }
        // The last group that starts at or before `record`.
        var low = 0, high = groups.count
        while low < high {
            let middle = (low + high) / 2
            if groups[middle].point.anchor + counted[middle] <= record { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return .original(record) }
        let group = low - 1
        let start = groups[group].point.anchor + counted[group]
        if record < start + groups[group].records.count { return .added(group: group, index: record - start) }
        return .original(record - counted[group] - groups[group].records.count)
    }

    /// Records added before input record `original` (those before it, not at it).
    private func addedBefore(original: Int) -> Int {
        let groups = journal.groups
        var low = 0, high = groups.count
        while low < high {
            let middle = (low + high) / 2
            if groups[middle].point.anchor < original { low = middle + 1 } else { high = middle }
        }
        return counted[low]
    }

    /// The number in the edited table of input record `original`.
    package func virtualRecord(ofOriginal original: Int) -> Int { original + addedBefore(original: original + 1) }

    /// The number in the edited table of the added record `id`, if it is there.
    package func virtualRecord(ofAdded id: Int) -> Int? {
        guard let (group, index) = journal.place(ofAdded: id) else { return nil }
        return journal.groups[group].point.anchor + counted[group] + index
    }

    // MARK: Editing

    /// Applies `step` (or undoes it, `backwards`), and splices the edits into the bytes
    /// every pass reads.
    package func apply(_ step: EditStep, backwards: Bool = false) {
        apply([step], backwards: backwards)
    }

    /// Applies `steps` in order (or undoes them in reverse order), then splices once
    /// (unless not `splicing`: many edits made in a row, spliced at their end).
    package func apply(_ steps: [EditStep], backwards: Bool = false, splicing: Bool = true) {
        var moves = false
        for step in backwards ? steps.reversed().map(\.inverse) : steps {
            journal.apply(step)
            moves = moves || step.movesRecords
        }
        if moves {
            generation += 1
            counted = [0]
            for group in journal.groups { counted.append(counted[counted.count - 1] + group.records.count) }
        }
        guard splicing else {
            patchIsCurrent = false
            return
        }
        // A few steps on a patch that is up to date: only the splices they touch are made
        // again (one more edit on 100,000 costs that edit, not all of them).
        if patchIsCurrent, !steps.isEmpty, steps.count <= 64, splice(steps) { return }
        store.patch = patch(keepingDeleted: true)
        patchIsCurrent = true
        patchesMadeWhole += 1
    }

    /// The splices of the bytes passes read that `steps` (applied to the journal) touch,
    /// made again and put in place in the store's patch; false when that cannot be done
    /// piece by piece (the line-end guard is involved, or a record cannot be encoded):
    /// the patch is then made whole.
    private func splice(_ steps: [EditStep]) -> Bool {
        guard let dialect = store.dialect else { return false }
        let encoder = RecordEncoder(dialect: dialect)
        // Each place: the original bytes its splice replaces, and how to make it now.
        var changes: [Int: RecordBytes] = [:]
        var groups: [Int: Int64] = [:]
        for step in steps {
            switch step {
            case .change(let record, let from, let to):
                guard let place = (to ?? from)?.place else { continue }
                changes[record] = place
            case .changeAdded(let id, _, _):
                guard let (group, _) = journal.place(ofAdded: id) else { return false }
                groups[journal.groups[group].point.anchor] = journal.groups[group].point.offset
            case .add(_, let point, _), .remove(_, let point, _):
                groups[point.anchor] = point.offset
                // Whether record 0 is the first record written decides its quoting.
                if point.anchor == 0, let first = journal.changed[0] { changes[0] = first.place }
            case .delete, .undelete:
                // Deleted records stay rows until the save: the bytes passes read are the same.
                continue
            }
        }
        var patch = store.patch
        // Held only here while it changes, so its arrays change in place (unless a pass
        // holds it: that pass keeps the bytes it read).
        store.patch = .empty
        defer { store.patch = patch }
        let id = nextPatchID
        nextPatchID += 1
        do {
            for (record, place) in changes {
                let new = try journal.changed[record].map { try changeSplice(record: record, $0, encoder: encoder) }
                guard patch.replace(start: place.start, end: place.end, with: new, id: id) else { return false }
            }
            for (anchor, offset) in groups {
                let new = try journal.group(at: anchor).map {
                    try groupSplice(journal.groups[$0], keepingDeleted: true, encoder: encoder, dialect: dialect)
                }
                guard patch.replace(start: offset, end: offset, with: new, id: id) else { return false }
            }
        } catch {
            return false
        }
        return true
    }

    /// A new id for an added record.
    package func newAddedID() -> Int {
        defer { nextAddedID += 1 }
        return nextAddedID
    }

    /// Forgets every edit (after a save: the saved file holds them).
    package func clear() {
        journal = EditJournal()
        counted = [0]
        generation += 1
        store.patch = .empty
        patchIsCurrent = true
    }

    /// The place of input record `record`'s bytes, when it is known whole.
    package func bytes(ofRecord record: Int) -> RecordBytes? {
        store.recordReader(patched: false)?.bytes(ofRecord: record, endsAtEnd: store.endsWhereRead)
    }

    // MARK: Bytes

    /// The edits as bytes spliced into the input: for passes (`keepingDeleted`: a deleted
    /// record is still a row until the save, as on screen), or for the save (deleted
    /// records taken out). Throws when a record cannot be written in the input's dialect.
    package func patch(keepingDeleted: Bool) -> RecordPatch {
        (try? makePatch(keepingDeleted: keepingDeleted)) ?? .empty
    }

    /// As `patch(keepingDeleted:)`, saying why a record cannot be written.
    package func makePatch(keepingDeleted: Bool) throws(RecordEncoder.Refusal) -> RecordPatch {
        guard !journal.isEmpty, let dialect = store.dialect else { return .empty }
        let encoder = RecordEncoder(dialect: dialect)
        var splices: [RecordPatch.Splice] = []
        splices.reserveCapacity(journal.changed.count + journal.deleted.count + journal.groups.count)
        for (record, change) in journal.changed where keepingDeleted || journal.deleted[record] == nil {
            splices.append(try changeSplice(record: record, change, encoder: encoder))
        }
        if !keepingDeleted {
            for (record, place) in journal.deleted {
                splices.append(RecordPatch.Splice(start: place.start, end: place.end, record: record, bytes: [],
                                                  recordsRemoved: 1, recordsAdded: 0))
            }
        }
        for group in journal.groups {
            splices.append(try groupSplice(group, keepingDeleted: keepingDeleted, encoder: encoder, dialect: dialect))
        }
        defer { nextPatchID += 1 }
        let reader = store.recordReader(patched: false)
        splices = RecordPatch.keepingLineEnds(splices) { offset in reader?.bytes(offset..<(offset + 1)).first }
        return RecordPatch(splices, id: nextPatchID)
    }

    /// The splice of input record `record`'s change: its cells in the input's dialect and
    /// its own line end, in place of its bytes.
    private func changeSplice(record: Int, _ change: ChangedRecord,
                              encoder: RecordEncoder) throws(RecordEncoder.Refusal) -> RecordPatch.Splice {
        let isFirst = record == 0 && journal.group(at: 0) == nil
        let bytes = try encoder.encode(change.row, isFirstRecord: isFirst) + change.place.terminator
        return RecordPatch.Splice(start: change.place.start, end: change.place.end, record: record, bytes: bytes,
                                  recordsRemoved: 1, recordsAdded: 1, widest: change.row.count)
    }

    /// The splice of the records added at one place, each with a line end.
    private func groupSplice(_ group: EditJournal.Group, keepingDeleted: Bool, encoder: RecordEncoder,
                             dialect: Dialect) throws(RecordEncoder.Refusal) -> RecordPatch.Splice {
        var bytes: [UInt8] = []
        var widest = 0
        // After the input's last record, which has no line end and is deleted on saving:
        // the records take its place, the last again with no line end.
        let replacesLast = group.point.afterUnterminated && !keepingDeleted && journal.deleted[group.point.anchor - 1] != nil
        for (index, added) in group.records.enumerated() {
            let record = try encoder.encode(added.row, isFirstRecord: group.point.anchor == 0 && index == 0)
            if replacesLast {
                bytes += (index > 0 ? dialect.lineEnding : []) + record
            } else if group.point.afterUnterminated {
                bytes += dialect.lineEnding + record
            } else {
                bytes += record + dialect.lineEnding
            }
            widest = max(widest, added.row.count)
        }
        return RecordPatch.Splice(start: group.point.offset, end: group.point.offset, record: group.point.anchor,
                                  bytes: bytes, recordsRemoved: 0, recordsAdded: group.records.count, widest: widest)
    }
}
