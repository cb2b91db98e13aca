import CellStore

/// Rows held in memory: a sheet's (a frequency table, a summary), made by a pass and
/// published on the UI thread while it runs, added to or replaced, complete once the
/// pass ends.
///
/// Rows are not kept as `Row`s: each published part says how many rows it has and how to
/// make row `i` from what it holds (a frequency table's entries, say), so publishing
/// millions of entries costs nothing more than the entries, and a row is made when it is
/// shown or read by a pass. Parts are immutable once published, so a snapshot for a pass
/// shares them.
///
/// Record 0 is the header (the column names); data rows follow.
package final class MemoryRows: RowSource {
    /// Rows `0..<count` of a part, made by `make`.
    private struct Part: Sendable {
        let count: Int
        let make: @Sendable (Int) -> Row
    }

    package let name: String
    package let wake: @Sendable () -> Void
    private var header: Row
    private var parts: [Part] = []
    /// The first data row of each part, and the data rows in all.
    private var starts: [Int] = []
    private var dataRows = 0
    private var widest: Int
    package private(set) var isComplete = false
    package private(set) var generation = 0
    /// Rows made lately: a frame asks for each cell, and a row may cost something to make.
    private var made: [Int: Row] = [:]
    /// Rows kept made at most.
    static let madeLimit = 1024

    /// Rows named `name` under the header row `header`; `wake` is the event loop's
    /// (passes started over the rows wake it).
    package init(name: String, header: Row, wake: @escaping @Sendable () -> Void = {}) {
        self.name = name
        self.wake = wake
        self.header = header
        widest = header.count
    }

    /// Rows named `name` under a header of `columns`.
    package convenience init(name: String, columns: [String], wake: @escaping @Sendable () -> Void = {}) {
        self.init(name: name, header: Row(cells: columns), wake: wake)
    }

    // MARK: Publishing (the UI thread)

    /// Adds `count` rows after those there, row `i` of them made by `make` (with at most
    /// `columns` cells).
    package func append(count: Int, columns: Int, make: @escaping @Sendable (Int) -> Row) {
        guard count > 0 else { return }
        parts.append(Part(count: count, make: make))
        starts.append(dataRows)
        dataRows += count
        widest = max(widest, columns)
    }

    /// Adds rows in hand after those there.
    package func append(_ rows: [Row]) {
        append(count: rows.count, columns: rows.map(\.count).max() ?? 0) { rows[$0] }
    }

    /// Replaces every data row with `count` rows made by `make`: a pass's newer results.
    /// Whatever was made from the old rows is made again (`generation` changes).
    package func replace(count: Int, columns: Int, make: @escaping @Sendable (Int) -> Row) {
        parts = []
        starts = []
        dataRows = 0
        made = [:]
        generation += 1
        widest = header.count
        append(count: count, columns: columns, make: make)
    }

    /// Replaces every data row with rows in hand.
    package func replace(_ rows: [Row]) {
        replace(count: rows.count, columns: rows.map(\.count).max() ?? 0) { rows[$0] }
    }

    /// No more rows will come.
    package func finish() { isComplete = true }

    // MARK: RowSource

    /// The header and the data rows.
    package var rowCount: Int { 1 + dataRows }
    package var columnCount: Int { widest }
    /// The header row.
    package var headerRows: Int? { 1 }

    package func row(_ index: Int) -> Row? {
        if index == 0 { return header }
        guard index > 0, index <= dataRows else { return nil }
        if let row = made[index] { return row }
        let row = Self.make(index - 1, parts: parts, starts: starts)
        if made.count >= Self.madeLimit { made.removeAll(keepingCapacity: true) }
        made[index] = row
        return row
    }

    /// The records now: the parts are shared, not copied.
    package func snapshot() -> RowSnapshot? {
        let header = self.header, parts = self.parts, starts = self.starts
        return RowSnapshot(count: rowCount, columnCount: widest) { range in
            range.map { $0 == 0 ? header : Self.make($0 - 1, parts: parts, starts: starts) }
        }
    }

    /// Data row `index` (from 0) of `parts`.
    private static func make(_ index: Int, parts: [Part], starts: [Int]) -> Row {
        let part = Self.part(holding: index, starts: starts)
        return parts[part].make(index - starts[part])
    }
}

extension RowSource {
    /// The last of parts starting at `starts` (ascending, the first 0) that starts at or
    /// before row `index`: the part that holds it, for sources that keep their rows in
    /// parts as they come. Parts are few: a binary search.
    package static func part(holding index: Int, starts: [Int]) -> Int {
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
