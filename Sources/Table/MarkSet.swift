/// The records a user marked (`m`, `M`), by their number in the source, header records
/// included: marks follow records, not screen rows, so they survive sorts, filters and
/// column changes.
///
/// A sorted array: `contains` is a binary search (the margin asks once a row on screen),
/// the marks in the file's order cost nothing to list (`"`, `--echo rows`, the session),
/// and one mark costs 8 bytes.
public struct MarkSet: Sendable, Equatable {
    /// The marked records, ascending, without repeats.
    package private(set) var records: [Int] = []

    package init() {}

    /// Marks exactly `records` (in any order; repeats count once).
    package init<Records: Sequence<Int>>(_ records: Records) {
        self.records = Array(Set(records)).sorted()
    }

    package var count: Int { records.count }
    package var isEmpty: Bool { records.isEmpty }

    /// The place of the first mark at or after `record`.
    /// - Complexity: O(log n).
    private func lowerBound(_ record: Int) -> Int {
        var low = 0, high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle] < record { low = middle + 1 } else { high = middle }
        }
        return low
    }

    package func contains(_ record: Int) -> Bool {
        let index = lowerBound(record)
        return index < records.count && records[index] == record
    }

    /// Marks `record` if it is not, unmarks it if it is; returns whether it is marked now.
    @discardableResult
    package mutating func toggle(_ record: Int) -> Bool {
        let index = lowerBound(record)
        if index < records.count && records[index] == record {
            records.remove(at: index)
            return false
        }
        records.insert(record, at: index)
        return true
    }

    /// Marks every record of `more` (ascending or not); returns how many were not marked before.
    @discardableResult
    package mutating func insert<Records: Sequence<Int>>(contentsOf more: Records) -> Int {
        let before = records.count
        let added = more.sorted()
        var merged: [Int] = []
        merged.reserveCapacity(records.count + added.count)
        var i = 0, j = 0
        while i < records.count || j < added.count {
            let next: Int
            if j >= added.count || (i < records.count && records[i] <= added[j]) {
                next = records[i]
                i += 1
            } else {
                next = added[j]
                j += 1
            }
            if merged.last != next { merged.append(next) }
        }
        records = merged
        return records.count - before
    }

    package mutating func removeAll() { records = [] }

    /// The first mark after `record` (forward) or before it, in the file's order.
    package func mark(after record: Int, forward: Bool) -> Int? {
        if forward {
            let index = lowerBound(record + 1)
            return index < records.count ? records[index] : nil
        }
        let index = lowerBound(record)
        return index > 0 ? records[index - 1] : nil
    }

    /// The marks in `range` of records.
    package func marks(in range: Range<Int>) -> ArraySlice<Int> {
        records[lowerBound(range.lowerBound)..<lowerBound(range.upperBound)]
    }
}
