import Query
import Table

/// What a change of view changes, kept whole: the filters and sort with the passes that
/// made their rows (kept, not made again: undoing a sort of 10 GB is instant), the columns
/// shown, the widths set and the freeze.
struct ViewMoment {
    var query: ViewQuery.Made
    var filters: [RecordFilter]
    var sortKeys: [SortKey]
    var sorted: SortedRecords?
    var filtered: FilteredRecords?
    var columns: ColumnMap
    var widths: ColumnLayout
    var frozenRows: Range<Int>
    var frozenColumns: Int

    /// True when `other` shows the table as this moment does (the passes aside: the same
    /// filters and sort make the same rows).
    func looksLike(_ other: ViewMoment) -> Bool {
        filters == other.filters && sortKeys == other.sortKeys && columns == other.columns
            && widths.overrides == other.widths.overrides && widths.fullWidth == other.widths.fullWidth
            && frozenRows == other.frozenRows && frozenColumns == other.frozenColumns
    }

    /// The passes this moment keeps alive (their rows, perhaps spilled to disk).
    var keptPasses: Int { (sorted == nil ? 0 : 1) + (filtered == nil ? 0 : 1) }
}

/// The undo history: changes of the table (journal steps) and of the view, the last one
/// first undone. A command is undoable when it changes what a save writes or how the
/// table looks (VisiData's rule); the state before it is kept, never replayed.
///
/// It is bounded: at most `limit` steps and `passLimit` kept passes (a sort's order may
/// be hundreds of megabytes on disk); past them the oldest steps go, and the viewer says so.
struct UndoHistory {
    /// Where the cursor was: the record and input column.
    struct Place: Equatable {
        var record: Int?
        var column: Int
    }

    enum Step {
        /// Journal steps, applied in order, and the cursor before and after.
        case edit([EditStep], before: Place, after: Place)
        /// A change of view.
        case view(before: ViewMoment, after: ViewMoment)

        var keptPasses: Int {
            guard case .view(let before, let after) = self else { return 0 }
            return before.keptPasses + after.keptPasses
        }
    }

    static let limit = 100
    static let passLimit = 16

    private(set) var done: [Step] = []
    private(set) var undone: [Step] = []

    /// Keeps `step` as the last done (what was undone cannot be redone after it). Returns
    /// how many of the oldest steps were dropped to stay within bounds.
    mutating func record(_ step: Step) -> Int {
        undone = []
        done.append(step)
        var dropped = 0
        while done.count > Self.limit || (done.count > 1 && done.reduce(0, { $0 + $1.keptPasses }) > Self.passLimit) {
            done.removeFirst()
            dropped += 1
        }
        return dropped
    }

    /// The last step done, moved to the undone ones; nil when there is none.
    mutating func takeUndo() -> Step? {
        guard let step = done.popLast() else { return nil }
        undone.append(step)
        return step
    }

    /// The last step undone, moved back to the done ones; nil when there is none.
    mutating func takeRedo() -> Step? {
        guard let step = undone.popLast() else { return nil }
        done.append(step)
        return step
    }

    /// Forgets every step (the journal was saved: its steps no longer apply to the file).
    mutating func clear() {
        done = []
        undone = []
    }
}
