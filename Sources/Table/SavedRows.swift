import CellStore

/// A source whose file (Ctrl-S) is text of its own rather than its rows as shown: a diff
/// writes daff's highlighter text (`old->new` in a changed cell, the `!` schema row above
/// the header), what `daff patch` reads, where the screen shows `old→new`.
public protocol SavedRows: RowSource {
    /// The records as written, fixed now: as `snapshot()`, record for record and column
    /// for column, only the text of the cells differs.
    func savedSnapshot() -> RowSnapshot?
    /// Rows written above the header records, in the source's columns (a diff's `!` row
    /// when the tables' columns differ).
    var savedRowsAbove: [Row] { get }
}
