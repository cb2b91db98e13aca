/// Where columns stand along x: each column's width plus one separator cell.
package struct ColumnMetrics: Sendable, Equatable {
    /// Display width of each column's text, without the separator.
    package private(set) var widths: [Int]
    /// `positions[i]` is where column `i` starts; the last entry is the total width.
    package private(set) var positions: [Int]
    /// Cells between two columns.
    package let separator: Int

    package init(widths: [Int], separator: Int = 1) {
        self.widths = widths.map { max(0, $0) }
        self.separator = separator
        var positions = [0]
        positions.reserveCapacity(widths.count + 1)
        for width in self.widths { positions.append(positions[positions.count - 1] + width + separator) }
        self.positions = positions
    }

    package var count: Int { widths.count }
    /// The width of all columns with their separators.
    package var totalWidth: Int { positions[positions.count - 1] }

    /// The column under content position `x`, or nil outside the columns.
    /// - Complexity: O(log n).
    package func column(at x: Int) -> Int? {
        guard x >= 0, x < totalWidth else { return nil }
        var low = 0, high = widths.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if positions[middle] <= x { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The extent of column `index` along x, separator included.
    package func span(of index: Int) -> Range<Int> {
        positions[index]..<positions[index + 1]
    }

    /// The columns that show in a window `width` cells wide scrolled to `offset`, each with
    /// where it lands on screen (relative to the window) and how much of it is cut off.
    /// - Complexity: O(log n + visible columns).
    package func visible(offset: Int, width: Int) -> [ColumnSlice] {
        guard width > 0, count > 0 else { return [] }
        var slices: [ColumnSlice] = []
        let start = max(0, offset)
        guard var index = column(at: start) else { return [] }
        while index < count {
            let extent = span(of: index)
            let screenStart = extent.lowerBound - offset
            if screenStart >= width { break }
            let clipLeft = max(0, -screenStart)
            let visibleStart = max(0, screenStart)
            let visibleEnd = min(width, extent.upperBound - offset)
            if visibleEnd > visibleStart {
                slices.append(ColumnSlice(column: index, screenX: visibleStart, width: visibleEnd - visibleStart,
                                          clipLeft: clipLeft, fullWidth: extent.count))
            }
            index += 1
        }
        return slices
    }
}

/// The visible part of one column in a window.
package struct ColumnSlice: Sendable, Equatable {
    /// The column's index.
    package var column: Int
    /// Where the visible part starts, relative to the window's left edge.
    package var screenX: Int
    /// How many cells of the column show.
    package var width: Int
    /// How many cells of the column are cut off on the left.
    package var clipLeft: Int
    /// The column's whole extent (text width plus separator).
    package var fullWidth: Int
}
