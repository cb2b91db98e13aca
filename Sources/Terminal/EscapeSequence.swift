import CNCurses
import Display

/// Escape sequences a terminal sends that its terminfo entry may not list.
///
/// Terminals and multiplexers send their own sequences whatever `TERM` says (tmux sends
/// `ESC[1~` for Home under `TERM=xterm-256color`, whose entry says `ESC OH`), so the
/// common ones are taught to ncurses for every terminal, as less and vim do. What ncurses
/// still does not know arrives as ESC and the bytes after it: an SGR (1006) mouse report
/// is decoded here, and anything else is swallowed whole, so no part of it runs as keys.
enum EscapeSequence {
    /// Key sequences known whatever terminfo says, with the ncurses key code each means.
    static let commonKeys: [(String, Int32)] = [
        ("[1~", KEY_HOME), ("[7~", KEY_HOME), ("[H", KEY_HOME), ("OH", KEY_HOME), ("[1;1H", KEY_HOME),
        ("[4~", KEY_END), ("[8~", KEY_END), ("[F", KEY_END), ("OF", KEY_END), ("[1;1F", KEY_END),
        ("[5~", KEY_PPAGE), ("[6~", KEY_NPAGE),
        ("[A", KEY_UP), ("[B", KEY_DOWN), ("[C", KEY_RIGHT), ("[D", KEY_LEFT),
        ("OA", KEY_UP), ("OB", KEY_DOWN), ("OC", KEY_RIGHT), ("OD", KEY_LEFT),
        ("[1;2C", KEY_SRIGHT), ("[1;2D", KEY_SLEFT), ("[c", KEY_SRIGHT), ("[d", KEY_SLEFT),
        ("O2C", KEY_SRIGHT), ("O2D", KEY_SLEFT), ("[2C", KEY_SRIGHT), ("[2D", KEY_SLEFT),
        ("OP", cf_key_f0() + 1), ("[11~", cf_key_f0() + 1), ("[[A", cf_key_f0() + 1), ("[1P", cf_key_f0() + 1),
        ("[3~", KEY_DC),
    ]

    /// What a bracketed paste starts with, after ESC.
    static let pasteStart: [UInt32] = Array("[200~".unicodeScalars.map(\.value))
    /// What it ends with, after ESC.
    static let pasteEnd: [UInt32] = Array("[201~".unicodeScalars.map(\.value))

    /// The ncurses key code of a whole key sequence after ESC: a common one, or one the
    /// terminal's entry lists (for a sequence read without ncurses, after a late Esc).
    static func keyCode(for body: [UInt32]) -> Int32? {
        let text = String(String.UnicodeScalarView(body.compactMap(Unicode.Scalar.init)))
        if let (_, code) = commonKeys.first(where: { $0.0 == text }) { return code }
        let capabilities: [(String, Int32)] = [("kcuu1", KEY_UP), ("kcud1", KEY_DOWN), ("kcub1", KEY_LEFT), ("kcuf1", KEY_RIGHT),
                                               ("khome", KEY_HOME), ("kend", KEY_END), ("kpp", KEY_PPAGE), ("knp", KEY_NPAGE),
                                               ("kdch1", KEY_DC), ("kLFT", KEY_SLEFT), ("kRIT", KEY_SRIGHT), ("kf1", cf_key_f0() + 1)]
        for (name, code) in capabilities {
            guard let value = tigetstr(name), Int(bitPattern: value) != -1 else { continue }
            if "\u{1B}" + text == String(cString: value) { return code }
        }
        return nil
    }

    /// Teaches ncurses the common sequences (call after `keypad`).
    static func defineCommonKeys() {
        for (sequence, code) in commonKeys {
            _ = define_key("\u{1B}" + sequence, code)
        }
    }

    /// Whether `byte` ends a sequence that started `ESC introducer`: a CSI sequence ends
    /// with a byte from `@` to `~`; `ESC [ [` (the Linux console's F1–F5) takes one more.
    static func isFinal(_ byte: UInt32, after body: [UInt32]) -> Bool {
        guard (0x40...0x7E).contains(byte) else { return false }
        if body == [0x5B] && byte == 0x5B { return false }   // ESC [ [
        if body == [0x5B] && byte == 0x3C { return false }   // ESC [ < (an SGR mouse report)
        return true
    }

    /// What a whole sequence after ESC means: an SGR mouse report, or nothing (swallowed).
    /// `body` starts with the introducer (`[` or `O`) and ends with the final byte.
    static func decode(_ body: [UInt32]) -> InputEvent? {
        guard body.count >= 3, body[0] == 0x5B, body[1] == 0x3C,
              let final = body.last, final == 0x4D || final == 0x6D else { return nil }
        let text = String(String.UnicodeScalarView(body[2..<(body.count - 1)].compactMap(Unicode.Scalar.init)))
        let numbers = text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 3, let button = numbers[0], let x = numbers[1], let y = numbers[2] else { return nil }
        // Releases (final `m`) and motion (+32) say nothing this viewer uses.
        guard final == 0x4D, button & 32 == 0 else { return nil }
        let kind: MouseEvent.Kind
        switch button & ~(4 | 8 | 16) {
        case 0: kind = .press
        case 64: kind = .wheelUp
        case 65: kind = .wheelDown
        default: return nil
        }
        return .mouse(MouseEvent(kind, x: x - 1, y: y - 1, isShifted: button & 4 != 0))
    }
}

/// Pasted text as it comes, to its end marker, kept up to a limit.
struct PasteReader {
    /// The most characters kept of one paste (a prompt's line needs far fewer).
    static let limit = 1 << 16
    private(set) var text = ""
    private(set) var wasCut = false
    private var count = 0
    /// Characters after an ESC, while they may be the end marker.
    private var pending: [UInt32]?

    /// Takes one character; true once the end marker has come.
    mutating func take(_ value: UInt32) -> Bool {
        if var after = pending {
            after.append(value)
            if after == EscapeSequence.pasteEnd { return true }
            if EscapeSequence.pasteEnd.starts(with: after) {
                pending = after
                return false
            }
            // Not the end: an ESC and what followed are pasted text (shown as symbols).
            pending = nil
            append(27)
            for character in after { _ = take(character) }
            return false
        }
        if value == 27 {
            pending = []
            return false
        }
        append(value)
        return false
    }

    private mutating func append(_ value: UInt32) {
        guard count < Self.limit else {
            wasCut = true
            return
        }
        count += 1
        text.unicodeScalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
    }
}
