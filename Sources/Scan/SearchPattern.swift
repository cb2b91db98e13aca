/// What a search looks for: a PCRE2 regular expression (the syntax of `grep -P`), with
/// smart case, in every column or in one.
///
/// Case does not matter unless the pattern has a capital letter outside an escape
/// (`\D`, `\p{Lu}` and the like do not count); folding is Unicode's, so `zürich` finds
/// `ZÜRICH`. `^` and `$` anchor a cell's start and end, and a match never spans cells.
package struct SearchPattern: Sendable, Equatable {
    package var text: String
    /// Only this column, or every column when nil.
    package var column: Int?

    package init(text: String, column: Int? = nil) {
        self.text = text
        self.column = column
    }

    /// True when the pattern has no capital letter of its own, so case does not matter.
    package var ignoresCase: Bool {
        let characters = Array(text.unicodeScalars)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\" && index + 1 < characters.count {
                let escaped = characters[index + 1]
                index += 2
                // A property or a code point in braces (\p{Lu}, \x{41}) is no letter to match.
                if "pPxNo".unicodeScalars.contains(escaped), index < characters.count, characters[index] == "{" {
                    while index < characters.count && characters[index] != "}" { index += 1 }
                } else if "pP".unicodeScalars.contains(escaped) {
                    index += 1
                }
                continue
            }
            if character.properties.isUppercase { return false }
            index += 1
        }
        return true
    }

    /// Compiles the pattern for matching cells.
    package func compile() throws(PatternError) -> CompiledPattern {
        try CompiledPattern(text, ignoresCase: ignoresCase)
    }
}

/// A pattern that PCRE2 refuses, with where and why, in one line.
package struct PatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// PCRE2's own message.
    package var reason: String
    /// The character (from 1) where the pattern is wrong.
    package var position: Int

    package var description: String { "invalid pattern at character \(position): \(reason)" }
}
