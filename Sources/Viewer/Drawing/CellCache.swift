import FreezeLayout
import Table

/// A laid-out cell on screen: one column's cells on one line (text and separator).
/// Instances are recycled through a `ReusePool`, like UITableView's cells.
public final class CellView {
    var cells: [FrameCell] = []
}

/// Identifies what a `CellView` shows: a record, a column (-1 for the row number), how
/// it is highlighted, and the column geometry it was laid out for.
struct CellKey: Hashable {
    var record: Int
    var column: Int
    var highlight: CellHighlight
    var generation: Int
}

/// How a cell on screen is highlighted: part of its key, so a cell whose highlight
/// changes is laid out again.
struct CellHighlight: Hashable {
    /// Where the cell stands to the cursor.
    enum Cursor: Hashable {
        case none
        /// The header cell of the cursor's column.
        case columnHeader
        /// The row number of the cursor's row.
        case rowNumber
        /// The cursor's own cell.
        case cell
    }

    var cursor = Cursor.none
    /// The cell matches the search.
    var isMatch = false
    /// Side by side, the side whose value the cell shows (nil: the table's only one).
    var side: PairedSide?
    /// The row number of a record the user marked.
    var isMarked = false
}

/// The cells on screen, keyed by what they show, and the pool they come back to.
///
/// Each frame asks for exactly the cells it draws. Cells that stay on screen are kept as
/// they are; those that scrolled out go back to the pool first, and cells that scroll in
/// are taken from it and configured. So scrolling by one row configures one row of cells,
/// and the number of cells ever created is bounded by what fits on screen.
public struct CellCache {
    /// Counters shown by `--debug-stats`.
    public struct Statistics: Sendable, Equatable {
        /// Cell views ever made.
        public var created: Int
        /// Cell views on screen now.
        public var live: Int
        /// Cell views waiting in the pool.
        public var pooled: Int
        /// Cell views laid out in the last frame.
        public var configured: Int
        /// Times a cell view came from the pool.
        public var reused: Int
    }

    private var visible: [CellKey: CellView] = [:]
    private var pool = ReusePool<CellView>()
    private var configuredLastFrame = 0
    /// Cells kept in the pool beyond those on screen.
    static let slack = 64

    var statistics: Statistics {
        Statistics(created: pool.created, live: visible.count, pooled: pool.pooled,
                   configured: configuredLastFrame, reused: pool.reused)
    }

    /// Puts every cell on screen back in the pool: what they show changed (an edit).
    mutating func forgetAll() {
        for view in visible.values { pool.enqueue(view) }
        visible = [:]
    }

    /// Makes `keys` the cells on screen: returns their views, configuring only new ones.
    mutating func update(_ keys: [CellKey], configure: (Int, CellView) -> Void) -> [CellView] {
        let wanted = Set(keys)
        for (key, view) in visible where !wanted.contains(key) {
            visible[key] = nil
            pool.enqueue(view)
        }
        var configured = 0
        let views = keys.enumerated().map { index, key -> CellView in
            if let view = visible[key] { return view }
            let view = pool.dequeue { CellView() }
            configure(index, view)
            configured += 1
            visible[key] = view
            return view
        }
        configuredLastFrame = configured
        pool.trim(to: CellCache.slack)
        return views
    }
}
