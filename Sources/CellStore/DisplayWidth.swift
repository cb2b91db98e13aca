import CLibCSV

/// Display widths in terminal cells, by grapheme cluster.
///
/// Widths come from the C library's `wcwidth`, which answers for the current locale:
/// the program sets a UTF-8 locale at start-up. A cluster is as wide as its first scalar
/// that has a width (so combining marks and joined emoji fold into it), capped at 2;
/// an emoji presentation selector makes it 2.
public enum DisplayWidth {
    /// The width of one grapheme cluster (0, 1 or 2).
    public static func of(_ character: Character) -> Int {
        if character.isASCII {
            let value = character.asciiValue ?? 0
            return value >= 0x20 && value < 0x7F ? 1 : 0
        }
        var width = 0
        var sawEmojiSelector = false
        for scalar in character.unicodeScalars {
            if scalar.value == 0xFE0F { sawEmojiSelector = true }
            if width == 0 {
                let scalarWidth = cf_wcwidth(scalar.value)
                if scalarWidth > 0 { width = Int(scalarWidth) }
            }
        }
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
