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

    /// The text from the left edge (with a leading space).
    var left: String {
        let column = self.column.map { $0 + (columnName.map { " " + $0 } ?? "") }
        return " " + [name, position, view, column, dialect, debug].compactMap { $0 }.joined(separator: "  ")
    }

    /// Cells used: the left text, and the right text between spaces.
    var width: Int { DisplayWidth.of(left) + (right.map { DisplayWidth.of($0) + 2 } ?? 0) }

    /// This line with parts shortened or dropped until it fits in `width` cells.
    func fitted(to width: Int) -> StatusLine {
        var line = self
        var excess: Int { line.width - width }
        func shorten(_ part: WritableKeyPath<StatusLine, String?>, minimum: Int, keepingEnd: Bool) {
            guard excess > 0, let current = line[keyPath: part] else { return }
            let target = DisplayWidth.of(current) - excess
            line[keyPath: part] = target >= minimum ? Viewer.fitting(current, width: target, keepingEnd: keepingEnd) : nil
        }
        // The message is fitted again from its whole text each time, so it takes back the
        // room a part dropped after it was shortened.
        func shortenRight(minimum: Int) {
            guard excess > 0, let whole = right else { return }
            let target = max(minimum, width - DisplayWidth.of(line.left) - 2)
            let words = Self.words(whole, width: target)
            line.right = words.isEmpty ? nil : words
        }
        shorten(\.name, minimum: 6, keepingEnd: true)
        if excess > 0 { line.dialect = nil }
        shorten(\.columnName, minimum: 6, keepingEnd: false)
        if excess > 0 { line.debug = nil }
        shorten(\.view, minimum: 8, keepingEnd: false)
        shortenRight(minimum: width / 2)
        if excess > 0 {
            line.column = nil
            line.columnName = nil
            line.right = right
            shortenRight(minimum: 1)
        }
        if excess > 0 { line.right = nil }
        if excess > 0 { line.position = nil }
        return line
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
        for word in text.components(separatedBy: separator) {
            let candidate = kept.isEmpty ? word : kept + separator + word
            if DisplayWidth.of(candidate) + 1 > width { break }
            kept = candidate
        }
        while kept.hasSuffix(" ") { kept.removeLast() }
        return kept.isEmpty ? "" : kept + "…"
    }

    /// The last aside of `text`, ` (…)` with the spaces before it, when text comes before it.
    static func lastAside(in text: String) -> Range<String.Index>? {
        guard let open = text.range(of: " (", options: .backwards),
              let close = text[open.upperBound...].firstIndex(of: ")") else { return nil }
        var start = open.lowerBound
        while start > text.startIndex && text[text.index(before: start)] == " " { start = text.index(before: start) }
        guard start > text.startIndex else { return nil }
        return start..<text.index(after: close)
    }
}
