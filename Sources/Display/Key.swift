import FreezeLayout

/// A mouse event at a screen position.
public struct MouseEvent: Sendable, Equatable, Hashable {
    public enum Kind: Sendable, Equatable, Hashable {
        case wheelUp, wheelDown
        /// The first button went down.
        case press
    }

    public var kind: Kind
    public var position: Point
    /// Shift was held (Shift+wheel scrolls columns).
    public var isShifted: Bool

    public init(_ kind: Kind, x: Int, y: Int, isShifted: Bool = false) {
        self.kind = kind
        self.position = Point(x: x, y: y)
        self.isShifted = isShifted
    }
}

/// A key as the terminal decoded it.
public enum Key: Sendable, Equatable, Hashable {
    case character(Character)
    case up, down, left, right
    case shiftLeft, shiftRight
    case pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab
    case function(Int)
    /// Text the terminal pasted (bracketed paste): it is typed at a prompt and does nothing
    /// elsewhere, so a paste never runs as commands. `wasCut`: the paste was longer than
    /// what is kept of one.
    case paste(String, wasCut: Bool)

    /// A control key: `control("c")` is Ctrl-C.
    public static func control(_ letter: Character) -> Key {
        let value = letter.asciiValue.map { $0 & 0x1F } ?? 0
        return .character(Character(Unicode.Scalar(value)))
    }
}
