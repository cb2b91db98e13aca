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

    /// Applies `steps` in order (or undoes them in reverse order), then splices once.
    package func apply(_ steps: [EditStep], backwards: Bool = false) {
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
        store.patch = patch(keepingDeleted: true)
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
            let isFirst = record == 0 && journal.group(at: 0) == nil
            let bytes = try encoder.encode(change.row, isFirstRecord: isFirst) + change.place.terminator
            splices.append(RecordPatch.Splice(start: change.place.start, end: change.place.end, record: record, bytes: bytes,
                                              recordsRemoved: 1, recordsAdded: 1, widest: change.row.count))
        }
        if !keepingDeleted {
            for (record, place) in journal.deleted {
                splices.append(RecordPatch.Splice(start: place.start, end: place.end, record: record, bytes: [],
                                                  recordsRemoved: 1, recordsAdded: 0))
            }
        }
        for group in journal.groups {
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
            splices.append(RecordPatch.Splice(start: group.point.offset, end: group.point.offset, record: group.point.anchor,
                                              bytes: bytes, recordsRemoved: 0, recordsAdded: group.records.count, widest: widest))
        }
        defer { nextPatchID += 1 }
        let reader = store.recordReader(patched: false)
        splices = RecordPatch.keepingLineEnds(splices) { offset in reader?.bytes(offset..<(offset + 1)).first }
        return RecordPatch(splices, id: nextPatchID)
    }
}
