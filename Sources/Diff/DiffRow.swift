import CellStore
import Table

/// One aligned row of a diff: an old record, a new record, or both, and what changed.
package struct DiffRow: Sendable {
    /// What happened to the record.
    package enum Kind: Sendable, Equatable {
        /// Both tables have it, with the same values in every column they share.
        case same
        /// Both have it (matched by key, or aligned by position), with some values changed.
        case changed
        /// Only the new table has it.
        case added
        /// Only the old table has it.
        case removed
        /// By key: both tables have it with the same values, but the new table elsewhere
        /// among the records both keep (daff's `:`).
        case moved
    }

    package var kind: Kind
    /// The old record (nil when added) and the new one (nil when removed); record numbers
    /// count the header records, as everywhere. An offset is set where it is known.
    package var old: RecordRef?
    package var new: RecordRef?
    /// The records' cells, read for every row that is not the same and for same rows
    /// within the context asked for (`TableDiff.Options.context`); nil otherwise.
    package var oldRow: Row?
    package var newRow: Row?
    /// The shown columns (places in `DiffColumns.columns`) whose cells differ.
    package var changedColumns: [Int] = []
    /// True when the new record has a value in a column only the new table has (daff shows
    /// such a row with `+`, so that a patch can fill the column in).
    package var hasNewColumnValues = false

    package init(kind: Kind, old: RecordRef?, new: RecordRef?) {
        self.kind = kind
        self.old = old
        self.new = new
    }

    /// True when the row shows a difference (changed, added, removed, moved, or new columns' values).
    package var isDifference: Bool { kind != .same || hasNewColumnValues }
}

/// Counts over a whole diff, for `--summary`, the exit status and the screen.
package struct DiffStatistics: Sendable, Equatable {
    package var same = 0
    package var changed = 0
    package var added = 0
    package var removed = 0
    /// Records by key with the same values at another place (see `DiffRow.Kind.moved`).
    package var moved = 0
    /// For each shown column, the rows whose cell in it changed.
    package var changedCells: [Int] = []
    /// Per table (old, new): records whose key an earlier record has, and the first such.
    package var duplicateKeys = [0, 0]
    package var firstDuplicate: [DuplicateKey?] = [nil, nil]
    /// Per table: records whose key has an empty cell, and the first such record.
    package var emptyKeys = [0, 0]
    package var firstEmptyKey: [Int?] = [nil, nil]
    /// Where (old, new record numbers) the first hunk starts that the positional alignment
    /// could not make minimal (edits too dense or too far apart); nil when it is minimal.
    package var approximateFrom: (old: Int, new: Int)? {
        get { approximate.map { ($0[0], $0[1]) } }
        set { approximate = newValue.map { [$0.old, $0.new] } }
    }
    var approximate: [Int]?

    /// True when any record differs.
    package var hasDifferences: Bool { changed + added + removed + moved > 0 }
}

/// A key that more than one record of a table has: its text and two of its records.
package struct DuplicateKey: Sendable, Equatable {
    package var key: [String]
    package var first: Int
    package var second: Int
}
