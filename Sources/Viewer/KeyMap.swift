/// The one table that says which keys do what: dispatch reads it, and so do `--help`,
/// the man page's key list and the help screen, so they cannot drift apart.
public struct KeyBinding: Sendable {
    /// Each entry is a key sequence (most are one key; `zh` is two).
    public var sequences: [[Key]]
    /// How the keys are written for people, e.g. "Down, j".
    public var label: String
    public var command: Command
    public var summary: String

    init(_ keys: [Key], _ label: String, _ command: Command, _ summary: String, sequences: [[Key]] = []) {
        self.sequences = keys.map { [$0] } + sequences
        self.label = label
        self.command = command
        self.summary = summary
    }
}

public enum KeyMap {
    /// Every binding, in the order help lists them.
    public static let bindings: [KeyBinding] = [
        KeyBinding([.down, .character("j")], "Down, j", .moveDown, "next row"),
        KeyBinding([.up, .character("k")], "Up, k", .moveUp, "previous row"),
        KeyBinding([.right, .character("l")], "Right, l", .moveRight, "next column"),
        KeyBinding([.left, .character("h")], "Left, h", .moveLeft, "previous column"),
        KeyBinding([.shiftRight], "zl, Shift-Right", .scrollRight, "scroll right by a few characters",
                   sequences: [[.character("z"), .character("l")]]),
        KeyBinding([.shiftLeft], "zh, Shift-Left", .scrollLeft, "scroll left by a few characters",
                   sequences: [[.character("z"), .character("h")]]),
        KeyBinding([.pageDown, .character(" "), .control("f")], "PageDown, Space, Ctrl-F", .pageDown, "one screen down"),
        KeyBinding([.pageUp, .character("b"), .control("b")], "PageUp, b, Ctrl-B", .pageUp, "one screen up"),
        KeyBinding([.home, .character("0"), .character("^")], "Home, 0", .firstColumn, "first column"),
        KeyBinding([.end, .character("$")], "End, $", .lastColumn, "last column"),
        KeyBinding([.character("g")], "g", .firstRow, "first row"),
        KeyBinding([.character("G")], "G", .lastRow, "last row (while loading: the last row known so far)"),
        KeyBinding([.character("F")], "F", .toggleFreeze,
                   "freeze panes at the cursor (F again: unfreeze)"),
        KeyBinding([.character("U")], "U", .unfreeze, "unfreeze (header rows stay)"),
        KeyBinding([.character("R")], "R", .reload, "reload the file from disk"),
        KeyBinding([.character("q"), .character("Q"), .control("c")], "q, Ctrl-C", .quit, "quit"),
    ]

    private static let table: [[Key]: Command] = {
        var table: [[Key]: Command] = [:]
        for binding in bindings {
            for sequence in binding.sequences { table[sequence] = binding.command }
        }
        return table
    }()

    private static let prefixes: Set<[Key]> = {
        var prefixes = Set<[Key]>()
        for binding in bindings {
            for sequence in binding.sequences where sequence.count > 1 {
                for length in 1..<sequence.count { prefixes.insert(Array(sequence[..<length])) }
            }
        }
        return prefixes
    }()

    /// What a key sequence means: a command, the start of a longer sequence, or nothing.
    public enum Match: Equatable {
        case command(Command)
        case prefix
        case none
    }

    /// Looks up a key sequence.
    public static func match(_ keys: [Key]) -> Match {
        if let command = table[keys] { return .command(command) }
        if prefixes.contains(keys) { return .prefix }
        return .none
    }

    /// The command bound to a single `key`, if any.
    public static func command(for key: Key) -> Command? { table[[key]] }

    /// The key list as aligned plain text lines, for `--help`.
    public static var helpLines: [String] {
        let width = bindings.map(\.label.count).max() ?? 0
        return bindings.map { binding in
            binding.label + String(repeating: " ", count: width - binding.label.count + 2) + binding.summary
        }
    }
}
