import Table

/// Rows a source marks (a diff's changed, added and removed records), as a view shows them.
extension TableView {
    /// The view row of the next (or previous) marked record from view row `cursorRow`, in
    /// the view's order; nil when there is none.
    ///
    /// - Complexity: a binary search in the plain view; in a sorted or filtered one, the
    ///   view's records are read in batches from the cursor on until a marked one.
    func markedRow(from cursorRow: Int, forward: Bool) -> Int? {
        isMapped ? markedRowInView(from: cursorRow, forward: forward) : markedRowInSource(from: cursorRow, forward: forward)
    }

    /// The plain view: the source knows its marked records in order.
    private func markedRowInSource(from cursorRow: Int, forward: Bool) -> Int? {
        guard let changes else { return nil }
        let record = record(ofRow: cursorRow)
        var next = changes.markedRecord(from: record, forward: forward)
        // Marked header records are not rows.
        while let found = next, found < headerRows {
            next = forward ? changes.markedRecord(from: found, forward: true) : nil
        }
        return next.flatMap { row(ofRecord: $0) }
    }

    /// A sorted or filtered view: its rows from the cursor's on, a batch at a time.
    private func markedRowInView(from cursorRow: Int, forward: Bool) -> Int? {
        guard let rows, let changes else { return nil }
        let batch = 4096
        var start = forward ? cursorRow + 1 : cursorRow - 1
        while forward ? start < rows.count : start >= 0 {
            let range = forward ? start..<min(rows.count, start + batch) : max(0, start - batch + 1)..<(start + 1)
            let refs = rows.records(in: range)
            let indexes = forward ? Array(refs.indices) : Array(refs.indices.reversed())
            for index in indexes where changes.mark(record: refs[index].record, column: -1) != .none {
                return range.lowerBound + index
            }
            start = forward ? range.upperBound : range.lowerBound - 1
        }
        return nil
    }
}
