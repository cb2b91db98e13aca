import CellStore

/// Where a view's rows come from: many records in one call, read in the order they lie in
/// the input, so a sorted or filtered screen never reads the same stretch twice.
public protocol RowSource: AnyObject {
    /// The records `refs` that are known, by record number.
    func rows(_ refs: [RecordRef]) -> [Int: Row]
}

extension CellStore: RowSource {
    /// - Complexity: one record's parse for each ref with an offset that is not cached,
    ///   else one block parse for each block not cached; refs are read in input order.
    public func rows(_ refs: [RecordRef]) -> [Int: Row] {
        let sorted = refs.sorted()
        var result = rows(startingAt: sorted.compactMap { ref in ref.offset.map { (ref.record, $0) } })
        for ref in sorted where ref.offset == nil && result[ref.record] == nil {
            if let row = row(ref.record) { result[ref.record] = row }
        }
        return result
    }
}
