#if canImport(Glibc)
import Glibc
#endif

/// The colours the screen is drawn in.
///
/// `dark` and `light` use only the eight basic colours (so 8- and 16-colour terminals
/// draw them); `mono` uses none: the cursor, headers and matches stay visible through
/// reverse, bold, dim and underline. `auto` picks `light` or `dark` from the terminal's
/// background: `COLORFGBG` when set, else the terminal is asked (OSC 11), else `dark`.
package enum Theme: String, Sendable, CaseIterable {
    case auto, dark, light, mono

    /// `light` or `dark`: from `COLORFGBG`, else from what the terminal said of its background.
    static func forBackground(reported isLight: Bool?) -> Theme {
        if let value = getenv("COLORFGBG").map({ String(cString: $0) }), let isLight = Theme.isLight(colorFGBG: value) {
            return isLight ? .light : .dark
        }
        if let isLight { return isLight ? .light : .dark }
        return .dark
    }

    /// `COLORFGBG` is `fg;bg` (rxvt, Konsole): background 7 or 15 is light, 0–6 and 8 dark.
    static func isLight(colorFGBG: String) -> Bool? {
        guard let last = colorFGBG.split(separator: ";").last, let background = Int(last) else { return nil }
        switch background {
        case 7, 15: return true
        case 0...6, 8: return false
        default: return nil
        }
    }
}

/// Asks the terminal, in one round trip, for its background colour (OSC 11) and whether it
/// measures grapheme clusters as one glyph (DECRQM for mode 2027), followed by a request
/// every terminal answers (DA1), so the wait ends as soon as the terminal has said all it
/// will; at most 200 ms for one that answers nothing.
enum BackgroundQuery {
    struct Answers {
        /// Light background (nil: not said).
        var isLight: Bool?
        /// Mode 2027's state: 1 set, 2 reset, 3 always set, 4 always reset, 0 or nil unknown.
        var graphemeClustering: Int?
    }

    static func ask(_ descriptor: Int32) -> Answers {
        let reply = replies(descriptor)
        return Answers(isLight: isLight(reply: reply), graphemeClustering: graphemeMode(reply: reply))
    }

    /// The state of mode 2027 in a DECRPM reply, `ESC [ ? 2027 ; Ps $ y`.
    static func graphemeMode(reply: [UInt8]) -> Int? {
        let text = String(decoding: reply, as: UTF8.self)
        guard let range = text.firstRange(of: "\u{1B}[?2027;") else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        guard text[range.upperBound...].dropFirst(digits.count).hasPrefix("$y") else { return nil }
        return Int(digits)
    }

    static func replies(_ descriptor: Int32) -> [UInt8] {
        guard isatty(descriptor) != 0 else { return [] }
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else { return [] }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw.c_cc.6 = 0   // VMIN
        raw.c_cc.5 = 0   // VTIME
        tcsetattr(descriptor, TCSANOW, &raw)
        defer { tcsetattr(descriptor, TCSANOW, &saved) }
        let query = Array("\u{1B}]11;?\u{1B}\\\u{1B}[?2027$p\u{1B}[c".utf8)
        guard query.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == query.count else { return [] }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        let deadline = now() + 0.2
        while reply.count < 1024 && !hasDeviceAttributes(reply) {
            let left = Int32(max(0, (deadline - now()) * 1000))
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&poller, 1, left) > 0 else { break }
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            reply += buffer[..<count]
        }
        return reply
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// True once the reply holds the DA1 answer, `ESC [ ? … c`.
    static func hasDeviceAttributes(_ reply: [UInt8]) -> Bool {
        guard let start = reply.indices.first(where: { reply[$0] == 0x1B && $0 + 2 < reply.count
                                                      && reply[$0 + 1] == 0x5B && reply[$0 + 2] == 0x3F }) else { return false }
        return reply[(start + 3)...].contains(UInt8(ascii: "c"))
    }

    /// Reads `rgb:RRRR/GGGG/BBBB` (1 to 4 hex digits each) from an OSC 11 reply.
    static func isLight(reply: [UInt8]) -> Bool? {
        let text = String(decoding: reply, as: UTF8.self)
        guard let range = text.firstRange(of: "rgb:") else { return nil }
        let parts = text[range.upperBound...].prefix { $0.isHexDigit || $0 == "/" }.split(separator: "/")
        guard parts.count == 3 else { return nil }
        let values = parts.compactMap { part -> Double? in
            guard (1...4).contains(part.count), let value = Int(part, radix: 16) else { return nil }
            return Double(value) / Double((1 << (4 * part.count)) - 1)
        }
        guard values.count == 3 else { return nil }
        return 0.2126 * values[0] + 0.7152 * values[1] + 0.0722 * values[2] > 0.5
    }
}
