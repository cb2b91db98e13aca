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
        KeyBinding([.control("d"), .character("d")], "Ctrl-D, d", .halfPageDown, "half a screen down"),
        KeyBinding([.control("u"), .character("u")], "Ctrl-U, u", .halfPageUp, "half a screen up"),
        KeyBinding([.home, .character("0"), .character("^")], "Home, 0", .firstColumn, "first column"),
        KeyBinding([.end, .character("$")], "End, $", .lastColumn, "last column"),
        KeyBinding([.character("g")], "g", .firstRow, "first row"),
        KeyBinding([.character("G")], "G", .lastRow, "last row (while loading: the last row known so far)"),
        KeyBinding([], "''", .jumpBack, "the record before the last jump (G, :, /, sort)",
                   sequences: [[.character("'"), .character("'")]]),
        KeyBinding([.character("F")], "F", .toggleFreeze,
                   "freeze panes at the cursor (F again: unfreeze)"),
        KeyBinding([.character("/")], "/", .search, "search shown columns (PCRE2 as grep -P; smart case)"),
        KeyBinding([.character("\\")], "\\", .searchColumn, "search in the cursor's column only"),
        KeyBinding([.character("n")], "n", .nextMatch, "next match (wraps around at the end)"),
        KeyBinding([.character("N")], "N", .previousMatch, "previous match (wraps around)"),
        KeyBinding([.character(")")], ")", .nextChange, "next changed, added, removed row (--diff; edits)"),
        KeyBinding([.character("(")], "(", .previousChange, "previous changed, added, removed row"),
        KeyBinding([.character("D")], "D", .toggleSideBySide, "--diff: old and new side by side (D again: back)"),
        KeyBinding([.character(":")], ":", .goTo, "go to a row by its margin number, a column or #N"),
        KeyBinding([.character("<")], "<", .narrowColumn, "narrow the cursor's column"),
        KeyBinding([.character(">")], ">", .widenColumn, "widen the cursor's column"),
        KeyBinding([.character("=")], "=", .fitColumn, "fit the cursor's column to its content"),
        KeyBinding([.character("_")], "_", .toggleFullWidth, "the column's full width, or back"),
        KeyBinding([.character("-")], "-", .hideColumn, "hide the cursor's column"),
        KeyBinding([.character("+")], "+", .showAllColumns, "show every column again, in the file's order"),
        KeyBinding([.character("*")], "*", .chooseColumns, "show only the columns whose names match a pattern"),
        KeyBinding([.character("H")], "H", .moveColumnLeft, "move the cursor's column left"),
        KeyBinding([.character("L")], "L", .moveColumnRight, "move the cursor's column right"),
        KeyBinding([.character("&")], "&", .filterPrompt, "keep rows where a shown cell matches (&!: none does)"),
        KeyBinding([.character("|")], "|", .filterColumnPrompt, "keep rows where the cursor's column matches"),
        KeyBinding([.character("@")], "@", .filterToValue, "keep rows whose cell here equals the cursor's cell"),
        KeyBinding([.character("[")], "[", .sort(descending: false, adding: false), "sort by the cursor's column, ascending"),
        KeyBinding([.character("]")], "]", .sort(descending: true, adding: false), "sort by the cursor's column, descending"),
        KeyBinding([], "z[", .sort(descending: false, adding: true), "add the cursor's column as a sort key, ascending",
                   sequences: [[.character("z"), .character("[")]]),
        KeyBinding([], "z]", .sort(descending: true, adding: true), "add the cursor's column as a sort key, descending",
                   sequences: [[.character("z"), .character("]")]]),
        KeyBinding([.character("o")], "o", .fileOrder, "back to the file's order (filters stay)"),
        KeyBinding([.character("m")], "m", .toggleMark, "mark or unmark the cursor's record"),
        KeyBinding([.character("M")], "M", .markPrompt, "mark rows where a shown cell matches (empty: clear)"),
        KeyBinding([.character("`")], "`", .nextMark, "the next marked row (a count: the nth; wraps)"),
        KeyBinding([.character("~")], "~", .previousMark, "the previous marked row (wraps)"),
        KeyBinding([.character("\"")], "\"", .toggleMarkedOnly, "keep only the marked rows (\" again: all)"),
        KeyBinding([], "Esc Esc", .startClean, "a clean view: file order, all columns, no marks",
                   sequences: [[.escape, .escape]]),
        KeyBinding([.character("#")], "#", .frequency, "the column's values and how often each occurs"),
        KeyBinding([.character("I")], "I", .summary, "a summary of every column, with quantiles and shape"),
        KeyBinding([.character("B")], "B", .toggleBand, "the band: each column's distribution as a picture"),
        KeyBinding([.character("%")], "%", .toggleBins, "a column's sheet: bins of ranges or exact values"),
        KeyBinding([.character("Q")], "Q", .sqlPrompt, "ask SQL of the file (table t); the answer is a sheet"),
        KeyBinding([.character("e")], "e", .editCell, "edit the cell's value (in it, Ctrl-O: a line break)"),
        KeyBinding([.character("a")], "a", .addRecord(after: true), "add an empty record after the cursor's"),
        KeyBinding([.character("A")], "A", .addRecord(after: false), "add an empty record before the cursor's"),
        KeyBinding([.character("x")], "x", .deleteRecord, "delete the record (struck until saved)"),
        KeyBinding([.character("U")], "U", .undo, "undo the last edit or view change (sort, filter…)"),
        KeyBinding([.control("r")], "Ctrl-R", .redo, "redo what U undid"),
        KeyBinding([.control("s")], "Ctrl-S", .saveView, "save the edits; with none, write the view (--output)"),
        KeyBinding([.enter], "Enter", .inspect, "open the whole cell (--echo: print it and quit)"),
        KeyBinding([.character("v")], "v", .recordView, "the cursor's record as a list"),
        KeyBinding([.character("y")], "y", .copyCell, "copy the cell to the clipboard (OSC 52)"),
        KeyBinding([.character("Y")], "Y", .copyRow, "copy the row as CSV (its shown columns)"),
        KeyBinding([.character("?"), .function(1)], "?, F1", .help, "this list of keys"),
        KeyBinding([.character("R")], "R", .reload, "reload the file from disk"),
        KeyBinding([.character("}")], "}", .nextTable, "next table (several files open)"),
        KeyBinding([.character("{")], "{", .previousTable, "previous table"),
        KeyBinding([.character("T")], "T", .listTables, "list the open tables (Enter shows one)"),
        KeyBinding([.character("S")], "S", .toggleStack, "every table in one scroll (S again: back)"),
        KeyBinding([.character("q"), .control("c")], "q, Ctrl-C", .quit, "quit, at once during a search (Ctrl-C anywhere)"),
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

    /// A count typed before `G` or `g` (`250G`) goes to that row: said here for the help lists.
    static let countLine = ("250G, 5g, 5j, 3n", "go to margin row 250; counts repeat moves, n, N, )")

    /// Keys the terminal session handles itself, in every mode (listed with the grid's).
    static let terminalLines = [("Ctrl-Z", "suspend to the shell (fg comes back)"),
                                ("Ctrl-L", "redraw the whole screen")]

    /// Keys in the cell inspector, the record view and the help screen.
    public static let pagerBindings: [ModeBinding] = [
        ModeBinding([.down, .character("j")], "Down, j", .lineDown, "scroll down a line"),
        ModeBinding([.up, .character("k")], "Up, k", .lineUp, "scroll up a line"),
        ModeBinding([.pageDown, .character(" ")], "PageDown, Space", .pageDown, "scroll down a page"),
        ModeBinding([.pageUp, .character("b")], "PageUp, b", .pageUp, "scroll up a page"),
        ModeBinding([.character("g"), .home], "g, Home", .top, "the start"),
        ModeBinding([.character("G"), .end], "G, End", .bottom, "the end"),
        ModeBinding([.right, .character("n"), .character("l")], "Right, n", .next, "record view: the next record (wraps)"),
        ModeBinding([.left, .character("p"), .character("h")], "Left, p", .previous, "record view: the previous record (wraps)"),
        ModeBinding([.character("q"), .escape, .enter, .character("v"), .character("?"), .function(1)], "q, Esc",
                    .close, "close, back to the grid"),
    ]

    /// The widest key label, where descriptions line up.
    static var labelWidth: Int { (bindings.map(\.label.count) + pagerBindings.map(\.label.count)).max() ?? 0 }

    /// The key list as aligned plain text lines, for `--help` and the help screen.
    public static var helpLines: [String] {
        let grid = bindings.map { ($0.label, $0.summary) } + [countLine] + terminalLines
        let pager = pagerBindings.map { ($0.label, $0.summary) }
        let width = (grid + pager).map(\.0.count).max() ?? 0
        func line(_ entry: (String, String)) -> String {
            entry.0 + String(repeating: " ", count: width - entry.0.count + 2) + entry.1
        }
        return grid.map(line)
    }

    /// The inspector's, record view's and help screen's keys, as aligned lines.
    public static var pagerHelpLines: [String] {
        let width = (bindings.map(\.label.count) + pagerBindings.map(\.label.count)).max() ?? 0
        return pagerBindings.map { $0.label + String(repeating: " ", count: width - $0.label.count + 2) + $0.summary }
    }

    /// What a key does in a pane over the grid.
    static func pagerCommand(for key: Key) -> PagerCommand? {
        pagerBindings.first { $0.keys.contains(key) }?.command
    }
}

/// What a key does in the inspector, the record view or the help screen.
public enum PagerCommand: Sendable, Equatable, Hashable {
    case lineDown, lineUp, pageDown, pageUp, top, bottom, next, previous, close
}

/// A key of a pane over the grid, as listed in help.
public struct ModeBinding: Sendable {
    public var keys: [Key]
    public var label: String
    public var command: PagerCommand
    public var summary: String

    init(_ keys: [Key], _ label: String, _ command: PagerCommand, _ summary: String) {
        self.keys = keys
        self.label = label
        self.command = command
        self.summary = summary
    }
}
