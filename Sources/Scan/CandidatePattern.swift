/// Rewrites a search pattern into one that runs on a well-quoted input's raw bytes and
/// matches wherever a cell's value would.
///
/// A cell's value is its raw bytes less the quotes around it, with each doubled quote
/// made one. So a match in a value is found in the raw bytes by the same pattern, except
/// where the value's edges or a quote take part. The rewrite:
/// - turns a cell's edges (`^`, `\A`; `$`, `\z`, `\Z`) into what surrounds a value in
///   raw bytes (after a delimiter, a line end, a quote or the start; before one of those
///   or the end), and drops the other conditions on surroundings (`\b`, `\B`, `\G`, whole
///   lookarounds): a weaker condition, or none, matches at least where the original did;
/// - lets every atom that can match the quote character also match a doubled quote
///   (`.` becomes `(?:""|.)`), since a value's quote is two quotes in the raw bytes.
/// The result matches a superset of the records; each candidate is then confirmed on its
/// parsed cells. Anything it does not analyse exactly (backreferences, atomic groups,
/// possessive quantifiers, option settings, `\Q…\E`, verbs…) returns nil: the caller then
/// parses every record instead, which is always right, only slower.
enum CandidatePattern {
    /// The rewritten pattern, or nil when `text` uses something not analysed here or the
    /// quote byte is not ASCII punctuation.
    /// With `delimiter` nil, edge conditions are dropped too: a looser pattern whose
    /// literal PCRE2 searches fastest (what surrounds a value is checked on its record).
    static func rewrite(_ text: String, quote: UInt8, delimiter: UInt8? = nil) -> String? {
        guard quote < 0x80, let q = Unicode.Scalar(UInt32(quote)),
              !isWord(q), !isSpace(q), q.value > 0x20, q.value != 0x7F else { return nil }
        // The bytes around a value in raw bytes. A delimiter byte that is not ASCII is no
        // character a lookbehind can see in UTF-8: then edge conditions are dropped.
        let edges = delimiter.flatMap { delimiter in
            delimiter < 0x80 ? "[" + [delimiter, 0x0A, 0x0D, quote].map { "\\x{" + String($0, radix: 16) + "}" }.joined() + "]" : nil
        }
        var rewriter = Rewriter(pattern: Array(text.unicodeScalars), quote: q, edges: edges)
        return rewriter.run()
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
    static func isWord(_ c: Unicode.Scalar) -> Bool {
        isDigit(c) || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_"
    }
    static func isSpace(_ c: Unicode.Scalar) -> Bool { [" ", "\t", "\n", "\u{0B}", "\u{0C}", "\r"].contains(c) }

    /// Whether the class escape `\letter` matches the ASCII scalar `c`; nil: not a class escape.
    static func classEscape(_ letter: Unicode.Scalar, contains c: Unicode.Scalar) -> Bool? {
        switch letter {
        case "d": return isDigit(c)
        case "w": return isWord(c)
        case "s": return isSpace(c)
        case "h": return c == " " || c == "\t"
        case "v": return ["\n", "\u{0B}", "\u{0C}", "\r"].contains(c)
        case "D", "W", "S", "H", "V":
            return !(classEscape(Unicode.Scalar(letter.value + 0x20)!, contains: c) ?? true)
        default: return nil
        }
    }

    /// Whether the POSIX class `name` contains the ASCII punctuation `c`; nil: unknown name.
    static func posixClass(_ name: String, contains c: Unicode.Scalar) -> Bool? {
        switch name {
        case "alpha", "digit", "alnum", "upper", "lower", "space", "blank", "cntrl", "xdigit": return false
        case "word": return c == "_"
        case "punct", "graph", "print", "ascii": return true
        default: return nil
        }
    }

    /// The escapes that stand for one control character.
    static let controlEscapes: [Unicode.Scalar: Unicode.Scalar] = ["t": "\t", "n": "\n", "r": "\r", "f": "\u{0C}", "e": "\u{1B}", "a": "\u{07}"]
}

/// One pass over a pattern's scalars; see `CandidatePattern`.
struct Rewriter {
    let pattern: [Unicode.Scalar]
    let quote: Unicode.Scalar
    /// A class of the bytes that surround a value, or nil to drop edge conditions.
    let edges: String?
    var index = 0
    var output: [Unicode.Scalar] = []
    /// Output length where each open group started, and whether it is dropped.
    var groups: [(start: Int, dropped: Bool)] = []
    /// What a quantifier here would apply to.
    enum Previous { case nothing, atom, dropped }
    var previous = Previous.nothing

    init(pattern: [Unicode.Scalar], quote: Unicode.Scalar, edges: String?) {
        self.pattern = pattern
        self.quote = quote
        self.edges = edges
    }

    /// A cell's start (`before`) or end, as raw bytes show it.
    mutating func edge(before: Bool) {
        if let edges {
            // PCRE2 may take the place next to invalid UTF-8 for a cell's edge too: an
            // invalid sequence is a barrier, seen as no character at all.
            let text = before ? "(?:(?<=\(edges))|(?<![\\s\\S]))" : "(?=\(edges)|(?![\\s\\S]))"
            output += Array(text.unicodeScalars)
        }
        previous = .dropped
    }

    var current: Unicode.Scalar? { index < pattern.count ? pattern[index] : nil }
    func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < pattern.count ? pattern[index + offset] : nil }

    mutating func run() -> String? {
        while let c = current {
            switch c {
            case "\\":
                guard escape() else { return nil }
            case "[":
                guard let source = characterClass() else { return nil }
                emit(atom: source.text, mayBeQuote: source.mayBeQuote)
            case "(":
                guard openGroup() else { return nil }
            case ")":
                guard let group = groups.popLast() else { return nil }
                index += 1
                if group.dropped {
                    output.removeSubrange(group.start...)
                    previous = .dropped
                } else {
                    output.append(")")
                    previous = .atom
                }
            case "|":
                output.append("|")
                index += 1
                previous = .nothing
            case "^", "$":
                index += 1
                edge(before: c == "^")
                guard !isQuantifierNext else { return nil }
            case ".":
                index += 1
                emit(atom: ["."], mayBeQuote: true)
            case "?", "*", "+", "{":
                guard quantifier() else { return nil }
            case "]", "}":
                return nil
            default:
                index += 1
                emit(atom: escapedLiteral(c), mayBeQuote: c == quote)
            }
        }
        guard groups.isEmpty else { return nil }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: output)
        return String(text)
    }

    var isQuantifierNext: Bool { current.map { "?*+{".unicodeScalars.contains($0) } ?? false }

    /// A literal character in pattern syntax.
    func escapedLiteral(_ c: Unicode.Scalar) -> [Unicode.Scalar] {
        c.isASCII && !CandidatePattern.isWord(c) && c.value > 0x20 ? ["\\", c] : [c]
    }

    mutating func emit(atom: [Unicode.Scalar], mayBeQuote: Bool) {
        if mayBeQuote {
            output += Array("(?:".unicodeScalars) + escapedLiteral(quote) + escapedLiteral(quote) + ["|"] + atom + [")"]
        } else {
            output += atom
        }
        previous = .atom
    }

    /// `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`, maybe lazy; possessive ones are not analysed.
    mutating func quantifier() -> Bool {
        let start = index
        if current == "{" {
            index += 1
            var digits = 0
            while let c = current, CandidatePattern.isDigit(c) { index += 1; digits += 1 }
            guard digits > 0 else { return false }
            if current == "," {
                index += 1
                while let c = current, CandidatePattern.isDigit(c) { index += 1 }
            }
            guard current == "}" else { return false }
        }
        index += 1
        if current == "+" { return false }
        if current == "?" { index += 1 }
        switch previous {
        case .nothing: return false
        case .dropped: break
        case .atom: output += pattern[start..<index]
        }
        // A quantifier cannot follow a quantifier (PCRE2 has refused that already).
        previous = .nothing
        return true
    }

    mutating func openGroup() -> Bool {
        index += 1
        var dropped = groups.last?.dropped ?? false
        let start = output.count
        if current == "*" { return false }
        if current == "?" {
            switch (peek(1), peek(2)) {
            case (":", _):
                index += 2
            case ("=", _), ("!", _):
                index += 2
                dropped = true
            case ("<", "="), ("<", "!"):
                index += 3
                dropped = true
            case ("<", _), ("P", "<"), ("'", _):
                // A named group: copy its name.
                let nameStart = index
                index += peek(1) == "P" ? 3 : 2
                let closing: Unicode.Scalar = pattern[index - 1] == "'" ? "'" : ">"
                while let c = current, CandidatePattern.isWord(c) { index += 1 }
                guard current == closing else { return false }
                index += 1
                output.append("(")
                output += pattern[nameStart..<index]
                groups.append((start, dropped))
                previous = .nothing
                return true
            case ("i", _), ("-", _):
                // Case options only (they change no character's quote-ness), as a setting
                // or a group: copied as they are.
                let optionStart = index
                index += 1
                while let c = current, c == "i" || c == "-" { index += 1 }
                guard current == ")" || current == ":" else { return false }
                let isGroup = current == ":"
                index += 1
                output.append("(")
                output += pattern[optionStart..<index]
                if isGroup { groups.append((start, dropped)) } else { output.removeLast(); output.append(")") }
                previous = .nothing
                return true
            default:
                return false
            }
            output += Array("(?:".unicodeScalars)
        } else {
            output.append("(")
        }
        groups.append((start, dropped))
        previous = .nothing
        return true
    }

    /// An escape outside a class; false when not analysed.
    mutating func escape() -> Bool {
        guard let letter = peek(1) else { return false }
        let start = index
        index += 2
        if letter.isASCII && !CandidatePattern.isWord(letter) {
            emit(atom: escapedLiteral(letter), mayBeQuote: letter == quote)
            return true
        }
        if let contains = CandidatePattern.classEscape(letter, contains: quote) {
            emit(atom: ["\\", letter], mayBeQuote: contains)
            return true
        }
        if CandidatePattern.controlEscapes[letter] != nil {
            emit(atom: ["\\", letter], mayBeQuote: false)
            return true
        }
        switch letter {
        case "A", "z", "Z":
            edge(before: letter == "A")
            return !isQuantifierNext
        case "b", "B", "G":
            previous = .dropped
            return !isQuantifierNext
        case "N":
            guard current != "{" else { return false }
            emit(atom: ["\\", "N"], mayBeQuote: true)
            return true
        case "p", "P":
            guard skipProperty() else { return false }
            emit(atom: Array(pattern[start..<index]), mayBeQuote: true)
            return true
        case "x":
            guard let value = hexValue() else { return false }
            emit(atom: Array(pattern[start..<index]), mayBeQuote: value == quote.value)
            return true
        default:
            return false
        }
    }

    /// After `\p` or `\P`: `{…}` or one letter.
    mutating func skipProperty() -> Bool {
        if current == "{" {
            while let c = current, c != "}" { index += 1 }
            guard current == "}" else { return false }
            index += 1
            return true
        }
        guard let c = current, c.properties.isAlphabetic else { return false }
        index += 1
        return true
    }

    /// After `\x`: `{hex}` or up to two hex digits; the code point.
    mutating func hexValue() -> UInt32? {
        func digit(_ c: Unicode.Scalar?) -> UInt32? { c.flatMap { UInt32(String($0), radix: 16) } }
        var value: UInt32 = 0
        if current == "{" {
            index += 1
            var count = 0
            while let d = digit(current) {
                value = value &* 16 &+ d
                index += 1
                count += 1
                guard count <= 8 else { return nil }
            }
            guard current == "}", count > 0 else { return nil }
            index += 1
            return value
        }
        for _ in 0..<2 {
            guard let d = digit(current) else { break }
            value = value * 16 + d
            index += 1
        }
        return value
    }
}
