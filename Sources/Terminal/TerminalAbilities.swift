/// What a terminal can draw, known before the screen is taken: for the band, whether the
/// eight block levels (`▁` … `█`) show as blocks.
package enum TerminalAbilities {
    /// True when block characters can be drawn: the user's locale is UTF-8 (else the
    /// terminal is told another character set, whatever csvfreeze falls back on) and the
    /// terminal type is not one that draws ASCII only (the VT family, `ansi`, `dumb`).
    /// ncurses has no capability that says a terminal shows Unicode, so this is what less
    /// and vim go by too: the locale, and the name.
    package static func drawsBlocks(term: String?, userCodeset: String) -> Bool {
        guard userCodeset.uppercased().filter({ $0 != "-" && $0 != "_" }) == "UTF8" else { return false }
        guard let term = term?.lowercased(), !term.isEmpty else { return true }
        let name = term.split(separator: "-").first.map(String.init) ?? term
        if ["dumb", "ansi", "vt52", "cons25", "pcansi"].contains(name) { return false }
        // vt100, vt102, vt220, vt320… (but not vte, a GNOME terminal's name).
        if name.hasPrefix("vt"), name.dropFirst(2).first?.isNumber == true { return false }
        return true
    }
}
