/// The text being typed at a prompt, edited like a shell line: the cursor moves with
/// Left/Right, Home/End and Ctrl-A/E; Backspace and Delete erase a character; Ctrl-U erases
/// to the start, Ctrl-K to the end, Ctrl-W the word before the cursor.
public struct PromptLine: Sendable, Equatable {
    public private(set) var characters: [Character] = []
    /// Where typing goes, 0…`characters.count`.
    public private(set) var cursor = 0

    public init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    public var text: String { String(characters) }
    public var isEmpty: Bool { characters.isEmpty }

    /// Inserts pasted text at the cursor: line breaks at its end are dropped (a copied line
    /// often brings one), other control characters are left out; returns how many were.
    mutating func insert(pasted text: String, keepsLineBreaks: Bool = false) -> Int {
        var text = Substring(text)
        while let last = text.last, last == "\n" || last == "\r" || last == "\r\n" { text.removeLast() }
        var leftOut = 0
        for character in text {
            let isLineBreak = character == "\n" || character == "\r\n" || character == "\r"
            if !(keepsLineBreaks && isLineBreak), character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                leftOut += 1
                continue
            }
            characters.insert(character, at: cursor)
            cursor += 1
        }
        return leftOut
    }

    /// Inserts a line break at the cursor (a cell's value may hold several lines).
    mutating func insertLineBreak() {
        characters.insert("\n", at: cursor)
        cursor += 1
    }

    /// Applies an editing key; false when the key does not edit a line.
    mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .left, .control("b"): cursor = max(0, cursor - 1)
        case .right, .control("f"): cursor = min(characters.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = characters.count
        case .backspace, .control("h"):
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .delete, .control("d"):
            if cursor < characters.count { characters.remove(at: cursor) }
        case .control("u"):
            characters.removeFirst(cursor)
            cursor = 0
        case .control("k"):
            characters.removeLast(characters.count - cursor)
        case .control("w"):
            var start = cursor
            while start > 0 && characters[start - 1] == " " { start -= 1 }
            while start > 0 && characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .character(let character) where !(character.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false):
            characters.insert(character, at: cursor)
            cursor += 1
        default:
            return false
        }
        return true
    }
}

/// Earlier entries at the prompts, newest last, one list for searches, one for go-to and
/// one for SQL queries, walked with Up and Down. The event loop loads and saves them (see
/// `PromptHistoryFile` in the executable); the viewer only keeps them.
public struct PromptHistory: Sendable, Equatable {
    /// How many entries a list keeps.
    public static let limit = 200
    public private(set) var searches: [String] = []
    public private(set) var goTos: [String] = []
    /// SQL queries (`Q`).
    public private(set) var queries: [String] = []

    public init(searches: [String] = [], goTos: [String] = [], queries: [String] = []) {
        self.searches = Array(searches.suffix(Self.limit))
        self.goTos = Array(goTos.suffix(Self.limit))
        self.queries = Array(queries.suffix(Self.limit))
    }

    /// Paths the view was written to (this session only).
    public private(set) var paths: [String] = []

    func entries(for kind: PromptKind) -> [String] {
        switch kind {
        case .goTo: return goTos
        case .save, .saveEdits: return paths
        case .overwrite, .overwriteEdits, .edit, .refused: return []
        case .search, .columns, .filter, .mark: return searches
        case .sql: return queries
        }
    }

    /// Adds an entry (moving an equal earlier one to the end).
    mutating func add(_ text: String, for kind: PromptKind) {
        guard !text.isEmpty else { return }
        func added(_ list: [String]) -> [String] { Array((list.filter { $0 != text } + [text]).suffix(Self.limit)) }
        switch kind {
        case .goTo: goTos = added(goTos)
        case .save, .saveEdits: paths = added(paths)
        case .overwrite, .overwriteEdits, .edit, .refused: break
        case .search, .columns, .filter, .mark: searches = added(searches)
        case .sql: queries = added(queries)
        }
    }
}
