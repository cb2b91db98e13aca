import CellStore

/// One side of a source whose rows pair a record of an old table with one of a new table.
public enum PairedSide: Sendable, Equatable {
    case old
    case new
}

/// A source whose rows pair an old record with a new one (a diff): what each side holds,
/// for the side-by-side layout, which shows the two sides next to each other.
public protocol PairedRows: RowSource {
    /// Record `record` as `side` has it, in the source's columns: the marker, then each
    /// column's value on that side (empty where that side lacks the column); nil where
    /// that side has no record (the old side of an added record, the new of a removed one)
    /// or the record is not known. The header record is the same on both sides.
    func row(_ record: Int, side: PairedSide) -> Row?
}
