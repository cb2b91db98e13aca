import CLibCSV

/// Display widths in terminal cells, by grapheme cluster, counted per code point.
///
/// Widths come from the C library's `wcwidth`, which answers for the current locale:
/// the program sets a UTF-8 locale at start-up. A cluster is kept whole (never split at an
/// edge), and is as wide as the sum of its code points' widths: that is how tmux, xterm
/// and VTE draw it (a skin tone after an emoji takes its own two cells, an emoji selector
/// none, a ZWJ sequence its separate emoji), and how ncurses advances when it writes it,
/// so the screen and ncurses never disagree about where the next column starts.
package enum DisplayWidth {
    /// The width of one grapheme cluster.
    package static func of(_ character: Character) -> Int {
        if character.isASCII {
            let value = character.asciiValue ?? 0
            return value >= 0x20 && value < 0x7F ? 1 : 0
        }
        var sum = 0
        for scalar in character.unicodeScalars {
            sum += max(0, Int(cf_wcwidth(scalar.value)))
        }
        return sum
    }

    /// The width of one code point: -1 when the C library knows no width for it (not
    /// assigned, or newer than its tables), which a terminal may draw as it pleases.
    package static func of(_ scalar: Unicode.Scalar) -> Int {
        if scalar.value >= 0x20 && scalar.value < 0x7F { return 1 }
        return Int(cf_wcwidth(scalar.value))
    }

    /// The width of a string, cluster by cluster.
    package static func of(_ string: String) -> Int {
        var total = 0
        for character in string { total += of(character) }
        return total
    }
}
