import FreezeLayout

/// Everything that can change the viewer's state. Keys become commands through the
/// `KeyMap`; `Viewer.handle(_:)` is the only place state changes.
public enum Command: Sendable, Equatable, Hashable {
    case moveUp
    case moveDown
    case moveLeft
    case moveRight
    case pageUp
    case pageDown
    case firstColumn
    case lastColumn
    case firstRow
    case lastRow
    /// The terminal has a new size.
    case resize(Size)
    /// The input has news (more rows, progress, the end).
    case refresh
    case quit
}

/// A key as the terminal decoded it.
public enum Key: Sendable, Equatable, Hashable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, tab
    case function(Int)

    /// A control key: `control("c")` is Ctrl-C.
    public static func control(_ letter: Character) -> Key {
        let value = letter.asciiValue.map { $0 & 0x1F } ?? 0
        return .character(Character(Unicode.Scalar(value)))
    }
}
