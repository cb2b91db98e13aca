import CLibCSV

/// Display widths in terminal cells, by grapheme cluster.
///
/// Widths come from the C library's `wcwidth`, which answers for the current locale:
/// the program sets a UTF-8 locale at start-up. A cluster is kept whole (never split at an
/// edge), and is as wide as the terminal will draw it: its first scalar that has a width
/// (so combining marks fold into it), 2 with an emoji presentation selector or for a flag.
/// A ZWJ emoji sequence is drawn by most terminals (tmux, xterm, VTE) as its separate
/// emoji, so its width is the sum of theirs; a narrower guess would shift the rest of the
/// line on those terminals.
public enum DisplayWidth {
    /// The width of one grapheme cluster.
    public static func of(_ character: Character) -> Int {
        if character.isASCII {
            let value = character.asciiValue ?? 0
            return value >= 0x20 && value < 0x7F ? 1 : 0
        }
        var first = 0
        var sum = 0
        var sawEmojiSelector = false
        var sawJoiner = false
        for scalar in character.unicodeScalars {
            if scalar.value == 0xFE0F { sawEmojiSelector = true }
            if scalar.value == 0x200D { sawJoiner = true }
            let scalarWidth = Int(cf_wcwidth(scalar.value))
            if scalarWidth > 0 {
                if first == 0 { first = scalarWidth }
                sum += scalarWidth
            }
        }
        if sawJoiner && sum > 0 { return sum }
        var width = first
        if sawEmojiSelector { width = 2 }
        if character.unicodeScalars.count >= 2,
           character.unicodeScalars.allSatisfy({ (0x1F1E6...0x1F1FF).contains($0.value) }) {
            width = 2   // a flag: two regional indicators
        }
        return min(width, 2)
    }

    /// The width of a string, cluster by cluster.
    public static func of(_ string: String) -> Int {
        var total = 0
        for character in string { total += of(character) }
        return total
    }
}
