import Table

/// The columns of two tables matched by name: which are in both, which only in the old or
/// the new one, and which moved; and the order a diff shows them in.
///
/// Names are `ColumnNames`' (the header's cells made unique, `column N` for a column with
/// no name), so a column is found by the name every other part of the program shows.
/// The shown order is the new table's, with each removed column put right after the
/// column it followed in the old table (first when it was first). A
/// common column is moved when it is not among the longest run of common columns that
/// keep their relative order in both tables.
package struct DiffColumns: Sendable, Equatable {
    /// How a shown column relates the two tables.
    package enum Status: Sendable, Equatable {
        case common, added, removed, moved
    }

    /// One shown column.
    package struct Column: Sendable, Equatable {
        package var name: String
        package var status: Status
        /// The column in the old table (nil when added) and in the new one (nil when removed).
        package var old: Int?
        package var new: Int?
    }

    /// The columns in the order shown.
    package let columns: [Column]
    /// For each column of the old table, its place in `columns`.
    package let shownOfOld: [Int]
    /// For each column of the new table, its place in `columns`.
    package let shownOfNew: [Int]
    /// The columns in both tables, as places in `columns`, in the old table's order: the
    /// order a record's hash combines its cells in, so a moved column changes no hash.
    package let common: [Int]

    /// True when the tables have the same columns in the same order.
    package var isSameSchema: Bool { columns.allSatisfy { $0.status == .common } }

    /// Matches the columns of an old table named `old` with those of a new one named `new`.
    package init(old: [String], new: [String]) {
        var newIndex: [String: Int] = [:]
        for (index, name) in new.enumerated() where newIndex[name] == nil { newIndex[name] = index }
        let oldIndex = Dictionary(old.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // Common columns in the old order, with their new places; the longest increasing run
        // of new places keeps its order, the rest moved.
        let pairs = old.indices.compactMap { index in newIndex[old[index]].map { (old: index, new: $0) } }
        let kept = Set(DiffColumns.longestIncreasing(pairs.map(\.new)).map { pairs[$0].new })

        var columns: [Column] = []
        var shownOfNew = [Int](repeating: 0, count: new.count)
        for (index, name) in new.enumerated() {
            shownOfNew[index] = columns.count
            if let was = oldIndex[name] {
                columns.append(Column(name: name, status: kept.contains(index) ? .common : .moved, old: was, new: index))
            } else {
                columns.append(Column(name: name, status: .added, old: nil, new: index))
            }
        }
        // Removed columns go after the shown column their old predecessor became.
        var shownOfOld = [Int](repeating: 0, count: old.count)
        for (index, name) in old.enumerated() where newIndex[name] == nil {
            var place = 0
            if index > 0, let before = columns.firstIndex(where: { $0.old == index - 1 }) { place = before + 1 }
            columns.insert(Column(name: name, status: .removed, old: index, new: nil), at: place)
        }
        for (place, column) in columns.enumerated() {
            if let old = column.old { shownOfOld[old] = place }
            if let new = column.new { shownOfNew[new] = place }
        }
        self.columns = columns
        self.shownOfOld = shownOfOld
        self.shownOfNew = shownOfNew
        common = pairs.map { shownOfOld[$0.old] }
    }

    /// The indexes (into `values`) of one longest strictly increasing subsequence.
    /// - Complexity: O(n log n).
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        var tails: [Int] = []        // indexes into values
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            result.append(index)
            index = previous[index]
        }
        return result.reversed()
    }

    /// The place in `columns` of the column named `name` in both tables, if any.
    package func commonColumn(named name: String) -> Int? {
        columns.firstIndex { $0.name == name && $0.old != nil && $0.new != nil }
    }
}
