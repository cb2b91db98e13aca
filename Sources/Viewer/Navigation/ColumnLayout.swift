import CellStore
import FreezeLayout
import Table

/// The columns' geometry: widths sampled from the input, the user's overrides, and what
/// of the freeze fits, as metrics for the left and main regions.
///
/// Widths the user sets are kept by input column, so hiding or moving columns keeps them.
/// Everything else is derived from `Key` and recomputed only when it changes.
struct ColumnLayout {
    /// What the geometry is computed from: when it is the same, nothing is recomputed.
    struct Key: Equatable {
        var columns: ColumnMap
        var viewColumns: Int
        var grid: Size
        var rowNumberWidth: Int
        var sampledRecords: Int
        var sampleGeneration: Int
        var requestedFrozenColumns: Int
        var overrides: [Int: Int]
    }

    private var sizer = ColumnSizer()
    /// Widths set by `<`, `>`, `=` and `_`, by input column.
    private(set) var overrides: [Int: Int] = [:]
    /// Input columns shown at their full width (`_`).
    private(set) var fullWidth: Set<Int> = []
    private var key: Key?
    /// Column widths in use, by view column (text only, without separators).
    private(set) var widths: [Int] = []
    /// Frozen columns that fit on this screen (the rest of the freeze is dropped).
    private(set) var frozenColumns = 0
    private(set) var left = ColumnMetrics(widths: [])
    private(set) var main = ColumnMetrics(widths: [])
    /// The widths of names made for columns (see `madeNameWidths(_:)`), and what they were
    /// found for: they change only with the header and the number of columns, not with every
    /// rows read (a header of a million columns made them a million names each time).
    private var madeNameWidths: [Int: Int] = [:]
    private var madeNamesKey: [Int]?
    /// Bumped when the geometry changes, so every cached cell is configured again.
    private(set) var generation = 0

    /// Brings the geometry up to date with the view, the screen and the sample; a column
    /// with a label for its empty cells (`labels`, by input column) is at least as wide as it.
    mutating func update(table: TableView, grid: Size, rowNumberWidth: Int, requestedFrozenColumns: Int,
                         labels: [Int: String] = [:]) {
        sizer.update(from: table.source, headerRows: table.headerRows)
        let count = table.columnCount
        let newKey = Key(columns: table.columns, viewColumns: count, grid: grid, rowNumberWidth: rowNumberWidth,
                         sampledRecords: sizer.sampledRecords, sampleGeneration: sizer.generation,
                         requestedFrozenColumns: requestedFrozenColumns,
                         overrides: overrides)
        guard newKey != key else { return }
        key = newKey
        generation += 1
        let namesKey = [table.fileColumnCount, table.headerRows, min(table.headerRows, table.source.rowCount), table.source.generation]
        if namesKey != madeNamesKey {
            madeNamesKey = namesKey
            madeNameWidths = Self.madeNameWidths(table)
            for (column, label) in labels { madeNameWidths[column] = max(madeNameWidths[column] ?? 0, DisplayWidth.of(label)) }
        }
        let sampled = sizer.widths(count: table.fileColumnCount, screenWidth: grid.width, atLeast: madeNameWidths)
        widths = (0..<count).map { view in
            let column = table.fileColumn(view)
            return overrides[column] ?? (column >= 0 && column < sampled.count ? sampled[column] : ColumnSizer.unsampledWidth)
        }
        func leftWidths(_ frozen: Int) -> [Int] {
            (rowNumberWidth > 0 ? [rowNumberWidth] : []) + Array(widths[0..<max(0, frozen)])
        }
        // Drop frozen columns that would leave main too narrow.
        var frozen = min(requestedFrozenColumns, count - 1)
        while frozen > 0 && ColumnMetrics(widths: leftWidths(frozen)).totalWidth > grid.width * 3 / 4 {
            frozen -= 1
        }
        frozenColumns = max(0, frozen)
        left = ColumnMetrics(widths: leftWidths(frozenColumns))
        main = ColumnMetrics(widths: Array(widths[frozenColumns...]))
    }

    /// The width input column `column` would have at its content's width, capped.
    func naturalWidth(_ column: Int, maximum: Int) -> Int {
        min(max(1, sizer.naturalWidth(column), madeNameWidths[column] ?? 0), maximum)
    }

    /// The widths of the names made for columns whose header cell is empty or repeated
    /// (the header row shows them), by input column: a column is at least that wide, so
    /// `column 4` is not cut to `c…` over one-character data.
    static func madeNameWidths(_ table: TableView) -> [Int: Int] {
        guard table.headerRows > 0 && table.source.rowCount > 0 else { return [:] }
        let names = table.columnNames
        var widths: [Int: Int] = [:]
        for column in 0..<table.fileColumnCount where names.isMade(column) {
            let name = names[column]
            // Most made names are `column N`: plain ASCII is as wide as its bytes.
            widths[column] = name.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? name.utf8.count : DisplayWidth.of(name)
        }
        return widths
    }

    mutating func setWidth(_ width: Int, of column: Int) { overrides[column] = width }

    /// `<` `>`: view column `column` (input column `fileColumn`) narrower or wider by
    /// `delta` cells, from 1 to `maximum`.
    mutating func changeWidth(ofViewColumn column: Int, fileColumn: Int, by delta: Int, maximum: Int) {
        let current = widths.indices.contains(column) ? widths[column] : 8
        setWidth(max(1, min(current + delta, maximum)), of: fileColumn)
    }

    /// The widest a column may be on a grid `gridWidth` wide: what main can show.
    func maximumWidth(gridWidth: Int) -> Int { max(1, gridWidth - left.totalWidth - 1) }

    /// Switches input column `column` between its full width and its sampled width.
    mutating func toggleFullWidth(_ column: Int, maximum: Int) {
        if fullWidth.remove(column) != nil {
            overrides[column] = nil
        } else {
            fullWidth.insert(column)
            overrides[column] = naturalWidth(column, maximum: maximum)
        }
    }

    /// Takes over the user's widths from another layout (a reload of the same file).
    /// Takes widths set in an earlier session (by input column), each kept within 1…1,000.
    mutating func restore(overrides: [Int: Int], fullWidth: Set<Int>) {
        self.overrides = overrides.filter { $0.key >= 0 }.mapValues { min(max($0, 1), 1000) }
        self.fullWidth = fullWidth.filter { $0 >= 0 }
        key = nil
    }

    mutating func adopt(_ other: ColumnLayout) {
        overrides = other.overrides
        fullWidth = other.fullWidth
        key = nil
    }
}
