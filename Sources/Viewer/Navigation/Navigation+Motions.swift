import FreezeLayout

extension Navigation {
    /// Cells one sideways step scrolls.
    static let sidewaysCells = 8

    /// Applies `command` when it is a motion of the navigation's alone: the arrows (a
    /// count moves rows and columns in one step, so a count of millions costs no more
    /// than one move), the first and last column, pages, sideways scrolls and an animation
    /// frame. False for any other command.
    mutating func perform(_ command: Command, times count: Int = 1) -> Bool {
        let rows = count > 1 ? min(count, extent.rows) : 1, columns = count > 1 ? min(count, extent.columns) : 1
        // Each page or scroll stops at an end, so no more steps than there are screens are useful.
        let steps = count > 1 ? min(count, 1 + extent.rows / max(1, window.main.height / 2) + extent.columns) : 1
        switch command {
        case .pageDown: for _ in 0..<steps { page(by: 1) }
        case .pageUp: for _ in 0..<steps { page(by: -1) }
        case .halfPageDown: for _ in 0..<steps { page(by: 1, fraction: 2) }
        case .halfPageUp: for _ in 0..<steps { page(by: -1, fraction: 2) }
        case .moveDown: move(toRow: cursorRow + rows, edge: Point(x: 0, y: 1))
        case .moveUp: move(toRow: cursorRow - rows, edge: Point(x: 0, y: -1))
        case .moveRight: move(toColumn: cursorColumn + columns, edge: 1)
        case .moveLeft: move(toColumn: cursorColumn - columns, edge: -1)
        case .firstColumn: move(toColumn: 0, edge: 0)
        case .lastColumn: move(toColumn: extent.columns - 1, edge: 0)
        case .scrollLeft: for _ in 0..<steps { scrollSideways(by: -Self.sidewaysCells) }
        case .scrollRight: for _ in 0..<steps { scrollSideways(by: Self.sidewaysCells) }
        case .tick: tick()
        default: return false
        }
        return true
    }
}
