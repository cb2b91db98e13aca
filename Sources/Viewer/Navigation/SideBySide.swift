import FreezeLayout
import Table

/// The side-by-side layout of a diff (`D`): the grid split into two halves, the old
/// table's values on the left and the new table's on the right, with a divider between.
///
/// It is geometry only. Both halves are drawn from the one navigation state (cursor,
/// freeze, offsets), laid out for the width of a half: the halves cannot drift apart
/// because there is one scroll, and the pinned columns (marker and key) are pinned on
/// each side because the freeze is. The composer draws the grid's regions twice, the
/// second time moved right by `rightX(grid:)` and reading the other side's values.
struct SideBySide: Equatable {
    /// True while the two halves show.
    var isOn = false

    /// The divider's width between the halves.
    static let divider = 1
    /// The least width of the scrolling part of a half: narrower, the two sides show too
    /// little of the values to be read next to each other.
    static let leastMainWidth = 12

    /// The width of a half of a grid `width` wide.
    static func halfWidth(_ width: Int) -> Int { max(0, (width - divider) / 2) }

    /// Where the right half starts on a grid `width` wide.
    static func rightX(grid width: Int) -> Int { halfWidth(width) + divider }

    /// The grid width both halves need when the pinned columns (row numbers, marker and
    /// key, with their separators) take `leftWidth`: each half keeps the whole freeze
    /// (the layout drops a freeze wider than three quarters of the grid) and at least
    /// `leastMainWidth` of the other columns.
    static func neededWidth(leftWidth: Int) -> Int {
        let half = max(leftWidth + leastMainWidth, (leftWidth * 4 + 2) / 3)
        return 2 * half + divider
    }

    /// `D`: on or off; what the status line says, if anything. It stays off over a source
    /// without two sides, and where a grid `gridWidth` wide (of a screen `screenWidth`
    /// wide) is narrower than the `needed` width: said in one short line, since it is said
    /// where the screen is narrow.
    mutating func toggle(isPaired: Bool, needed: Int, gridWidth: Int, screenWidth: Int) -> String? {
        if isOn {
            isOn = false
            return nil
        }
        guard isPaired else { return "D shows a diff's old and new tables side by side (--diff)" }
        guard needed <= gridWidth else { return "D needs \(needed + screenWidth - gridWidth) columns" }
        isOn = true
        return nil
    }

    /// Back to one table when the halves no longer fit (`needed` > `gridWidth`): what the
    /// status line says then, else nil.
    mutating func keepFitting(needed: Int, gridWidth: Int) -> String? {
        guard isOn, needed > gridWidth else { return nil }
        isOn = false
        return "too narrow: one table"
    }

    /// A mouse event on the right half, at the same place of the left half (both halves
    /// show the same cells); on the divider it is on neither and goes nowhere.
    static func folded(_ event: MouseEvent, grid width: Int) -> MouseEvent? {
        let right = rightX(grid: width)
        let x = event.position.x
        if x < right - divider { return event }
        if x < right { return nil }
        var folded = event
        folded.position = Point(x: x - right, y: event.position.y)
        return folded
    }
}
