import Testing
@testable import Terminal

@Suite("What a terminal can draw", .timeLimit(.minutes(30)))
struct TerminalAbilitiesTests {
    @Test("blocks where the locale is UTF-8 and the terminal is not an ASCII one")
    func blocks() {
        for term in ["xterm-256color", "tmux-256color", "screen", "vte-256color", "linux", "alacritty", nil] {
            #expect(TerminalAbilities.drawsBlocks(term: term, userCodeset: "UTF-8"), "\(term ?? "no TERM")")
        }
        for term in ["vt100", "vt220", "VT102", "vt52", "ansi", "dumb", "vt100-am"] {
            #expect(!TerminalAbilities.drawsBlocks(term: term, userCodeset: "UTF-8"), "\(term)")
        }
        for codeset in ["ANSI_X3.4-1968", "ISO-8859-1", ""] {
            #expect(!TerminalAbilities.drawsBlocks(term: "xterm", userCodeset: codeset), "\(codeset)")
        }
        #expect(TerminalAbilities.drawsBlocks(term: "xterm", userCodeset: "utf8"))
    }
}
