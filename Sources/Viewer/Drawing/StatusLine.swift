import CellStore

/// The status line's parts, fitted to the screen by giving up whole parts in order of
/// importance, so a number is never cut in the middle (`col 25/2` for `col 25/250`).
///
/// Where the cursor is matters most, then the message (given at least half the line),
/// then the column, its name, the dialect and the file's name. Text that gives way is
/// shortened with `…`: names by characters, messages by whole words.
struct StatusLine: Equatable {
    var name: String?
    /// `row 12/1,000` (or `no rows`, `empty input`).
    var position: String?
    /// What is in force: `sorted by price ↓  2 filters`.
    var view: String?
    /// `col 3/12`, and the column's name.
    var column: String?
    var columnName: String?
    var dialect: String?
    var debug: String?
    /// A message or the loading progress, at the right end.
    var right: String?
    /// True when `right` is a one-shot message (not the loading progress or a notice).
    var isMessage = false
    /// The least of the name kept when it says which of several tables this is (`b.csv
    /// 2/3` of `data/b.csv 2/3`): it stays before the message takes more than half the
    /// line or the dialect stays, and goes before the column. Nil for a table alone.
    var keptName: String?
    var keepsName: Bool { keptName != nil }

    /// The text from the left edge (with a leading space).
    var left: String {
        let column = self.column.map { $0 + (columnName.map { " " + $0 } ?? "") }
        return " " + [name, position, view, column, dialect, debug].compactMap { $0 }.joined(separator: "  ")
    }

    /// Cells used: the left text, and the right text between spaces (alone on the line,
    /// the right text needs no blank before it besides the left edge's).
    var width: Int {
        let left = DisplayWidth.of(self.left)
        guard let right else { return left }
        return (left > 1 ? left : 0) + DisplayWidth.of(right) + 2
    }

    /// This line with every part as the screen draws it: a control character in a column's
    /// name or a message (a NUL of UTF-16 read as UTF-8) becomes its symbol, one cell wide,
    /// so the parts are measured as drawn and never run into each other.
    var shown: StatusLine {
        var line = self
        for part in [\StatusLine.name, \.position, \.view, \.column, \.columnName, \.dialect, \.debug, \.right] {
            line[keyPath: part] = line[keyPath: part].map(CellText.shown)
        }
        return line
    }

    /// This line with parts shortened or dropped until it fits in `width` cells.
    ///
    /// A message that ends with a file's path (`wrote 5 rows to …/out/sales.csv`) keeps the
    /// file's name whole: its directory gives way from its start, then the column and the
    /// position, for this one frame; only a line too narrow for the name cuts it.
    func fitted(to width: Int) -> StatusLine {
        let whole = shown
        var line = whole
        var excess: Int { line.width - width }
        func shorten(_ part: WritableKeyPath<StatusLine, String?>, minimum: Int, keepingEnd: Bool) {
            guard excess > 0, let current = line[keyPath: part] else { return }
            let target = DisplayWidth.of(current) - excess
            line[keyPath: part] = target >= minimum ? Viewer.fitting(current, width: target, keepingEnd: keepingEnd) : nil
        }
        /// The room the message has beside the left text now.
        func room(minimum: Int) -> Int {
            let left = DisplayWidth.of(line.left)
            return max(minimum, width - (left > 1 ? left : 0) - 2)
        }
        // The message is fitted again from its whole text each time, so it takes back the
        // room a part dropped after it was shortened.
        func shortenRight(minimum: Int) {
            guard excess > 0, let text = whole.right else { return }
            let words = Self.words(text, width: room(minimum: minimum))
            line.right = words.isEmpty ? nil : words
        }
        /// A message naming a file: fitted with the name whole, or left whole to make the
        /// next parts give way when it cannot be (false).
        func keepName(minimum: Int, droppingWords: Bool = false) -> Bool {
            guard excess > 0, let text = whole.right else { return true }
            guard let kept = Self.wordsKeepingName(text, width: room(minimum: minimum), droppingWords: droppingWords) else {
                line.right = text
                return false
            }
            line.right = kept
            return true
        }
        let namesFile = whole.isMessage && whole.right.flatMap { Self.fileName(in: $0) } != nil
        if let kept = keptName, excess > 0, let name = line.name {
            // Down to its file's own name and place (`…/b.csv 2/3`), not past it.
            let floor = min(DisplayWidth.of(name), DisplayWidth.of(kept) + 1)
            line.name = Viewer.fitting(name, width: max(floor, DisplayWidth.of(name) - excess), keepingEnd: true)
        }
        if !keepsName { shorten(\.name, minimum: 6, keepingEnd: true) }
        if excess > 0 { line.dialect = nil }
        shorten(\.columnName, minimum: 6, keepingEnd: false)
        if excess > 0 { line.debug = nil }
        shorten(\.view, minimum: 8, keepingEnd: false)
        if namesFile {
            if !keepName(minimum: width / 2) {
                line.column = nil
                line.columnName = nil
            }
            if !keepName(minimum: 1) {
                line.view = nil
                line.name = nil
                line.position = nil
            }
            if !keepName(minimum: 1, droppingWords: true) { shortenRight(minimum: 1) }
            if excess > 0 { line.right = nil }
            return line
        }
        shortenRight(minimum: width / 2)
        if excess > 0 && keepsName {
            // Kept against the message, the name gives way before the column.
            line.name = nil
            line.right = whole.right
            shortenRight(minimum: width / 2)
        }
        if excess > 0 {
            line.column = nil
            line.columnName = nil
            line.right = whole.right
            shortenRight(minimum: 1)
        }
        if excess > 0 { line.right = nil }
        if excess > 0 { line.position = nil }
        return line
    }


    /// The file name a message is about: the last part of its last word (its asides left
    /// out) when that word is a path (`wrote 5 rows to out/sales.csv`); a directory's name
    /// keeps its trailing `/`. Nil when the message does not end with a path.
    static func fileName(in text: String) -> String? {
        var text = text
        while let aside = lastAside(in: text) { text.removeSubrange(aside) }
        guard let path = text.split(separator: " ").last, path.contains("/") else { return nil }
        let trimmed = path.hasSuffix("/") ? path.dropLast() : path[...]
        let name = trimmed.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        return name.isEmpty ? nil : name + (path.hasSuffix("/") ? "/" : "")
    }

    /// `text` fitted to `width` cells keeping whole the file name it ends with (see
    /// `fileName(in:)`): asides go first, then the path's directory from its start, and with
    /// `droppingWords` the words between the count and the path, nearest the path first
    /// (`wrote 5 rows …/sales.csv`). The count and its noun (`wrote 5 rows`) say what
    /// happened and stay: when they leave too little room, the name gives way from its start
    /// instead. Nil when that is not enough.
    static func wordsKeepingName(_ text: String, width: Int, droppingWords: Bool = false) -> String? {
        guard DisplayWidth.of(text) > width else { return text }
        var text = text
        while DisplayWidth.of(text) > width, let aside = lastAside(in: text) {
            text.removeSubrange(aside)
        }
        guard DisplayWidth.of(text) > width else { return text }
        var parts = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard let name = fileName(in: text), let path = parts.last else { return nil }
        var index = parts.count - 1
        // Words up to the count's noun (`wrote 5 rows`) are kept; without a number, the first.
        let count = parts.dropLast().firstIndex { $0.contains { $0.isNumber } }
        let kept = min(index, count.map { $0 + 2 } ?? 1)
        let minimumPathRoom = 8
        while true {
            let others = parts.enumerated().filter { $0.offset != index }.map { DisplayWidth.of($0.element) }
            let room = width - others.reduce(0, +) - (parts.count - 1)
            // `…` and the name at least, so the name is never cut.
            if room >= DisplayWidth.of(name) + 1 {
                parts[index] = Viewer.fitting(path, width: room, keepingEnd: true)
                return parts.joined(separator: " ")
            }
            guard droppingWords else { return nil }
            guard index > kept else {
                guard room >= minimumPathRoom else { return nil }
                parts[index] = Viewer.fitting(path, width: room, keepingEnd: true)
                return parts.joined(separator: " ")
            }
            parts.remove(at: index - 1)
            index -= 1
        }
    }

    /// `text` fitted to `width` cells by giving up its least useful words first: asides in
    /// parentheses (`(Esc cancels)`), from the last; then the start of a path, which keeps
    /// its end (`wrote 31,380 rows to …/out/sales.csv`); then words from the end, with `…`.
    /// Empty when not even the first word fits. Text whose parts are set apart by two
    /// spaces (the loading progress) gives way by those parts.
    static func words(_ text: String, width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        var text = text
        while DisplayWidth.of(text) > width, let aside = lastAside(in: text) {
            text.removeSubrange(aside)
        }
        guard DisplayWidth.of(text) > width else { return text }
        // A path keeps its end (the file's name) and gives up its start.
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        if let path = parts.filter({ $0.contains("/") }).max(by: { $0.count < $1.count }) {
            let room = width - (DisplayWidth.of(text) - DisplayWidth.of(String(path)))
            if room >= 8 {
                let shortened = Viewer.fitting(String(path), width: room, keepingEnd: true)
                return parts.map { $0 == path ? shortened : String($0) }.joined(separator: " ")
            }
        }
        let separator = text.contains("  ") ? "  " : " "
        var kept = ""
        for word in text.split(separator: separator, omittingEmptySubsequences: false) {
            let candidate = kept.isEmpty ? String(word) : kept + separator + word
            if DisplayWidth.of(candidate) + 1 > width { break }
            kept = candidate
        }
        while kept.hasSuffix(" ") { kept.removeLast() }
        return kept.isEmpty ? "" : kept + "…"
    }

    /// The last aside of `text`, ` (…)` with the spaces before it, when text comes before it.
    static func lastAside(in text: String) -> Range<String.Index>? {
        guard let open = text.ranges(of: " (").last,
              let close = text[open.upperBound...].firstIndex(of: ")") else { return nil }
        var start = open.lowerBound
        while start > text.startIndex && text[text.index(before: start)] == " " { start = text.index(before: start) }
        guard start > text.startIndex else { return nil }
        return start..<text.index(after: close)
    }
}
