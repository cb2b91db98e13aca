/// The one table that says which keys do what: dispatch reads it, and so do `--help`,
/// the man page's key list and the help screen, so they cannot drift apart.
public struct KeyBinding: Sendable {
    public var keys: [Key]
    /// How the keys are written for people, e.g. "Down, j".
    public var label: String
    public var command: Command
    public var summary: String
}

public enum KeyMap {
    /// Every binding, in the order help lists them.
    public static let bindings: [KeyBinding] = [
        KeyBinding(keys: [.down, .character("j")], label: "Down, j", command: .moveDown, summary: "next row"),
        KeyBinding(keys: [.up, .character("k")], label: "Up, k", command: .moveUp, summary: "previous row"),
        KeyBinding(keys: [.right, .character("l")], label: "Right, l", command: .moveRight, summary: "next column"),
        KeyBinding(keys: [.left, .character("h")], label: "Left, h", command: .moveLeft, summary: "previous column"),
        KeyBinding(keys: [.pageDown, .character(" "), .control("f")], label: "PageDown, Space, Ctrl-F",
                   command: .pageDown, summary: "one screen down"),
        KeyBinding(keys: [.pageUp, .character("b"), .control("b")], label: "PageUp, b, Ctrl-B",
                   command: .pageUp, summary: "one screen up"),
        KeyBinding(keys: [.home, .character("0"), .character("^")], label: "Home, 0", command: .firstColumn, summary: "first column"),
        KeyBinding(keys: [.end, .character("$")], label: "End, $", command: .lastColumn, summary: "last column"),
        KeyBinding(keys: [.character("g")], label: "g", command: .firstRow, summary: "first row"),
        KeyBinding(keys: [.character("G")], label: "G", command: .lastRow,
                   summary: "last row (while loading: the last row known so far)"),
        KeyBinding(keys: [.character("q"), .character("Q"), .control("c")], label: "q, Ctrl-C", command: .quit, summary: "quit"),
    ]

    private static let table: [Key: Command] = {
        var table: [Key: Command] = [:]
        for binding in bindings {
            for key in binding.keys { table[key] = binding.command }
        }
        return table
    }()

    /// The command bound to `key`, if any.
    public static func command(for key: Key) -> Command? { table[key] }

    /// The key list as aligned plain text lines, for `--help`.
    public static var helpLines: [String] {
        let width = bindings.map(\.label.count).max() ?? 0
        return bindings.map { binding in
            binding.label + String(repeating: " ", count: width - binding.label.count + 2) + binding.summary
        }
    }
}
