import CellStore
import Table

/// One aligned row of a diff: an old record, a new record, or both, and what changed.
public struct DiffRow: Sendable {
    /// What happened to the record.
    public enum Kind: Sendable, Equatable {
        /// Both tables have it, with the same values in every column they share.
        case same
        /// Both have it (matched by key, or aligned by position), with some values changed.
        case changed
        /// Only the new table has it.
        case added
        /// Only the old table has it.
        case removed
    }

    public var kind: Kind
    /// The old record (nil when added) and the new one (nil when removed); record numbers
    /// count the header records, as everywhere. An offset is set where it is known.
    public var old: RecordRef?
    public var new: RecordRef?
    /// The records' cells, read for every row that is not the same and for same rows
    /// within the context asked for (`TableDiff.Options.context`); nil otherwise.
    public var oldRow: Row?
    public var newRow: Row?
    /// The shown columns (places in `DiffColumns.columns`) whose cells differ.
    public var changedColumns: [Int] = []
    /// True when the new record has a value in a column only the new table has (daff shows
    /// such a row with `+`, so that a patch can fill the column in).
    public var hasNewColumnValues = false

    public init(kind: Kind, old: RecordRef?, new: RecordRef?) {
        self.kind = kind
        self.old = old
        self.new = new
    }

    /// True when the row shows a difference (changed, added, removed, or new columns' values).
    public var isDifference: Bool { kind != .same || hasNewColumnValues }
}

/// Counts over a whole diff, for `--summary`, the exit status and the screen.
public struct DiffStatistics: Sendable, Equatable {
    public var same = 0
    public var changed = 0
    public var added = 0
    public var removed = 0
    /// For each shown column, the rows whose cell in it changed.
    public var changedCells: [Int] = []
    /// Per table (old, new): records whose key an earlier record has, and the first such.
    public var duplicateKeys = [0, 0]
    public var firstDuplicate: [DuplicateKey?] = [nil, nil]
    /// Per table: records whose key has an empty cell, and the first such record.
    public var emptyKeys = [0, 0]
    public var firstEmptyKey: [Int?] = [nil, nil]
    /// Where (old, new record numbers) the first hunk starts that the positional alignment
    /// could not make minimal (edits too dense or too far apart); nil when it is minimal.
    public var approximateFrom: (old: Int, new: Int)? {
        get { approximate.map { ($0[0], $0[1]) } }
        set { approximate = newValue.map { [$0.old, $0.new] } }
    }
    var approximate: [Int]?

    /// True when any record differs.
    public var hasDifferences: Bool { changed + added + removed > 0 }
}

/// A key that more than one record of a table has: its text and two of its records.
public struct DuplicateKey: Sendable, Equatable {
    public var key: [String]
    public var first: Int
    public var second: Int
}
