import CellStore

/// A sort's key for a row in hand, encoded as the sort encodes it: two keys made with the
/// same sort keys and kinds compare as the sort would order their rows. What merging
/// inputs sorted apart (several files written as one) compares.
package struct RowKey {
    private var builder: KeyBuilder

    package init(keys: [SortKey], kinds: [ColumnKind]) {
        builder = KeyBuilder(keys: keys, kinds: kinds)
    }

    /// The key of a row whose cell in column `c` is `fields(c)` (an empty slice for a
    /// column the row does not have).
    package mutating func key(of fields: (Int) -> ArraySlice<UInt8>) -> [UInt8] {
        builder.key(of: fields)
    }

    /// Below zero when `a` sorts before `b`, zero when they tie, above zero after.
    package static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { a in b.withUnsafeBytes { b in SortRun.compare(a, b) } }
    }
}
