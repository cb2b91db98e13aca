import Query
import Table

/// The filters and sort in force on screen, and the passes that make their rows.
struct ViewQuery {
    var filters: [RecordFilter] = []
    var sortKeys: [SortKey] = []
    /// The pass that sorts, and the one that filters (over the sort, keeping its order).
    var sorted: SortedRecords?
    var filtered: FilteredRecords?

    /// The rows shown: filtered, sorted, or nil for every row in the file's order.
    var rows: (any RecordSequence)? { filtered ?? sorted }

    /// What made the rows on screen. New passes' rows replace them once they have some, so
    /// a sort that is still reading keys leaves the view as it was instead of empty.
    struct Made {
        var filters: [RecordFilter] = []
        var sortKeys: [SortKey] = []
        var sorted: SortedRecords?
        var filtered: FilteredRecords?
    }
    var shown = Made()
    /// The view given on the command line opens at its first row, not on the record the
    /// cursor was on while it was made.
    var opensAtTop = false
    /// The record the cursor was on when rows of a filter still running came on screen, if
    /// it was not among them yet: the cursor goes back to it when the pass is done, unless
    /// the user has moved it since.
    var awaitedRecord: Int?
    /// A new sort's rows show from their top, the cursor on the first (a user sorts to see
    /// the largest or smallest values; `''` goes back to the record it was on).
    var showsTop = false
    /// The source's generation the passes read: when its rows are replaced (a sheet's
    /// newer counts), the passes run again.
    var sourceGeneration = 0
    /// The passes run again over replaced rows: their rows show with the cursor on the
    /// same line, not on the record it was on (a record of replaced rows is another row).
    var keepsCursorRow = false

    /// True while new passes run whose rows are not on screen yet.
    var isPending: Bool { (filtered ?? sorted) !== (shown.filtered ?? shown.sorted) }

    /// True while a pass is still making rows.
    var isRunning: Bool { (sorted.map { !$0.isComplete } ?? false) || (filtered.map { !$0.isComplete } ?? false) }

    var isEmpty: Bool { filters.isEmpty && sortKeys.isEmpty }
}
