import CellStore

/// A record the user changed: its cells now, which of them changed, and where its bytes
/// lie in the input (what its new bytes replace).
package struct ChangedRecord: Sendable, Equatable {
    package var row: Row
    package var columns: Set<Int>
    package var place: RecordBytes

    package init(row: Row, columns: Set<Int>, place: RecordBytes) {
        self.row = row
        self.columns = columns
        self.place = place
    }
}

/// A record the user added, known by an id that stays while records around it come and go.
package struct AddedRecord: Sendable, Equatable {
    package let id: Int
    package var row: Row

    package init(id: Int, row: Row) {
        self.id = id
        self.row = row
    }
}

/// Where added records go: before input record `anchor`, at byte `offset` (where that
/// record starts, or the input's end). `afterUnterminated`: the record before has no line
/// end (the input's last), so each added record brings one before itself.
package struct InsertionPoint: Sendable, Equatable {
    package var anchor: Int
    package var offset: Int64
    package var afterUnterminated: Bool

    package init(anchor: Int, offset: Int64, afterUnterminated: Bool = false) {
        self.anchor = anchor
        self.offset = offset
        self.afterUnterminated = afterUnterminated
    }
}

/// One change to the journal, with what it undoes: undo applies it backwards.
package enum EditStep: Sendable, Equatable {
    /// Input record `record`'s change, from `from` to `to` (nil: as in the input).
    case change(record: Int, from: ChangedRecord?, to: ChangedRecord?)
    /// An added record's cells.
    case changeAdded(id: Int, from: Row, to: Row)
    /// Input record `record` deleted (its bytes, to take out on saving).
    case delete(record: Int, place: RecordBytes)
    /// A record added at `point`, as the `index`-th of those added there.
    case add(AddedRecord, at: InsertionPoint, index: Int)
    /// An added record taken away again (`x` on it).
    case remove(AddedRecord, at: InsertionPoint, index: Int)

    /// The step that undoes this one.
    package var inverse: EditStep {
        switch self {
        case .change(let record, let from, let to): return .change(record: record, from: to, to: from)
        case .changeAdded(let id, let from, let to): return .changeAdded(id: id, from: to, to: from)
        case .delete(let record, let place): return .undelete(record: record, place: place)
        case .undelete(let record, let place): return .delete(record: record, place: place)
        case .add(let record, let point, let index): return .remove(record, at: point, index: index)
        case .remove(let record, let point, let index): return .add(record, at: point, index: index)
        }
    }

    /// A deleted record brought back (undoing `.delete`).
    case undelete(record: Int, place: RecordBytes)

    /// True when the step adds or takes away a record: rows after it change numbers.
    package var movesRecords: Bool {
        switch self {
        case .add, .remove: return true
        default: return false
        }
    }
}

/// The edits of a table: input records changed (record → new cells) or deleted, and
/// records added between them. It holds only what was edited: memory grows with the
/// edits, never with the input.
package struct EditJournal: Sendable, Equatable {
    /// Records added before one input record, in order.
    package struct Group: Sendable, Equatable {
        package var point: InsertionPoint
        package var records: [AddedRecord]
    }

    package private(set) var changed: [Int: ChangedRecord] = [:]
    /// Deleted input records, with their bytes.
    package private(set) var deleted: [Int: RecordBytes] = [:]
    /// Added records, by the input record they come before, in its order.
    package private(set) var groups: [Group] = []
    /// Added records in all.
    package private(set) var addedCount = 0

    package init() {}

    package var isEmpty: Bool { changed.isEmpty && deleted.isEmpty && groups.isEmpty }
    /// Every edit, counted as the status line counts them.
    package var count: Int { changedCount + addedCount + deleted.count }
    /// Input records changed and not deleted.
    package var changedCount: Int { changed.keys.filter { deleted[$0] == nil }.count }

    /// The group of records added before input record `anchor`, if any.
    package func group(at anchor: Int) -> Int? {
        let index = groupIndex(atOrAfter: anchor)
        return index < groups.count && groups[index].point.anchor == anchor ? index : nil
    }

    /// The first group whose anchor is `anchor` or later.
    private func groupIndex(atOrAfter anchor: Int) -> Int {
        var low = 0, high = groups.count
        while low < high {
            let middle = (low + high) / 2
            if groups[middle].point.anchor < anchor { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Where the added record `id` is: its group and place in it.
    package func place(ofAdded id: Int) -> (group: Int, index: Int)? {
        for (group, entry) in groups.enumerated() {
            if let index = entry.records.firstIndex(where: { $0.id == id }) { return (group, index) }
        }
        return nil
    }

    /// Applies `step`.
    package mutating func apply(_ step: EditStep) {
        switch step {
        case .change(let record, _, let to):
            changed[record] = to
        case .changeAdded(let id, _, let to):
            if let (group, index) = place(ofAdded: id) { groups[group].records[index].row = to }
        case .delete(let record, let place):
            deleted[record] = place
        case .undelete(let record, _):
            deleted[record] = nil
        case .add(let record, let point, let index):
            let at = groupIndex(atOrAfter: point.anchor)
            if at < groups.count && groups[at].point.anchor == point.anchor {
                groups[at].records.insert(record, at: min(index, groups[at].records.count))
            } else {
                groups.insert(Group(point: point, records: [record]), at: at)
            }
            addedCount += 1
        case .remove(let record, _, _):
            guard let (group, index) = place(ofAdded: record.id) else { return }
            groups[group].records.remove(at: index)
            if groups[group].records.isEmpty { groups.remove(at: group) }
            addedCount -= 1
        }
    }
}
