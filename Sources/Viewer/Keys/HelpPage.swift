import CellStore

/// The help screen's lines fitted to the screen: a line too wide is wrapped at spaces, its
/// continuation indented to where the key's description starts, so no line is cut off.
enum HelpPage {
    /// `text` wrapped to `width` cells.
    static func lines(_ text: [String], width: Int) -> [String] {
        guard width >= 8 else { return text }
        var result: [String] = []
        for line in text {
            guard DisplayWidth.of(line) > width else { result.append(line); continue }
            var text = line
            var column = descriptionColumn(of: line)
            if column > width / 2 && column < line.count {
                // Too narrow for the two columns: the key on its line, its description under it.
                let characters = Array(line)
                result.append(String(characters[..<column]).trimmingTrailingSpaces)
                let description = String(characters[column...])
                column = 6
                text = String(repeating: " ", count: column) + description
                guard DisplayWidth.of(text) > width else { result.append(text); continue }
            }
            let indent = String(repeating: " ", count: column)
            // The line's own indent is kept: split at spaces, it would be empty words, lost.
            let leading = text.prefix { $0 == " " }
            var current = String(leading)
            for word in text.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
                let candidate = current.allSatisfy({ $0 == " " }) ? current + word : current + " " + word
                if DisplayWidth.of(candidate) <= width || current.allSatisfy({ $0 == " " }) {
                    current = candidate
                } else {
                    result.append(current)
                    current = indent + word
                }
            }
            if !current.isEmpty { result.append(current) }
        }
        return result.map { line in DisplayWidth.of(line) > width ? Viewer.fitting(line, width: width, keepingEnd: false) : line }
    }

    /// Where a key line's description starts (after the label and its gap of spaces), or 4.
    static func descriptionColumn(of line: String) -> Int {
        let characters = Array(line)
        var index = 0
        while index < characters.count && characters[index] == " " { index += 1 }
        while index + 1 < characters.count && !(characters[index] == " " && characters[index + 1] == " ") { index += 1 }
        // No gap of two spaces: not a key line (a heading or a sentence).
        guard index + 1 < characters.count else { return 4 }
        while index < characters.count && characters[index] == " " { index += 1 }
        return index < characters.count ? index : 4
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
