/// Character classes, for `CandidatePattern`: where one ends, and whether it may match the quote.
extension Rewriter {
    /// A class `[…]` starting here: its text and whether it may match the quote; nil when
    /// not analysed.
    mutating func characterClass() -> (text: [Unicode.Scalar], mayBeQuote: Bool)? {
        let start = index
        index += 1
        let negated = current == "^"
        if negated { index += 1 }
        var containsQuote = false
        var isFirst = true
        while true {
            guard let c = current else { return nil }
            if c == "]" && !isFirst { break }
            isFirst = false
            var low: UInt32?
            if c == "[" {
                guard peek(1) == ":" else {
                    if peek(1) == "." || peek(1) == "=" { return nil }
                    index += 1
                    guard rangeFollows(from: c.value, into: &containsQuote) != nil else { return nil }
                    continue
                }
                index += 2
                let invert = current == "^"
                if invert { index += 1 }
                var name = ""
                while let n = current, ("a"..."z").contains(n) { name.unicodeScalars.append(n); index += 1 }
                guard current == ":", peek(1) == "]", let member = CandidatePattern.posixClass(name, contains: quote) else { return nil }
                index += 2
                if member != invert { containsQuote = true }
                continue
            }
            if c == "\\" {
                guard let letter = peek(1) else { return nil }
                index += 2
                if let member = CandidatePattern.classEscape(letter, contains: quote) {
                    if member { containsQuote = true }
                    continue
                }
                if letter == "p" || letter == "P" {
                    guard skipProperty() else { return nil }
                    containsQuote = true   // not analysed: assume it may
                    continue
                }
                // Inside a class `\b` is a backspace, not a word boundary.
                low = letter == "b" ? 0x08 : escapedValue(letter)
            } else {
                index += 1
                low = c.value
            }
            guard let low, rangeFollows(from: low, into: &containsQuote) != nil else { return nil }
        }
        index += 1
        return (Array(pattern[start..<index]), negated ? !containsQuote : containsQuote)
    }

    /// After a class member `low`: a range `-high` if one follows; notes whether the
    /// member or range holds the quote. Nil when the range's end is not analysed.
    mutating func rangeFollows(from low: UInt32, into containsQuote: inout Bool) -> Void? {
        guard current == "-", let next = peek(1), next != "]" else {
            if low == quote.value { containsQuote = true }
            return ()
        }
        index += 1
        var high: UInt32
        if next == "\\" {
            guard let letter = peek(1) else { return nil }
            index += 2
            guard let value = escapedValue(letter) else { return nil }
            high = value
        } else if next == "[" {
            return nil
        } else {
            index += 1
            high = next.value
        }
        if low <= quote.value && quote.value <= high { containsQuote = true }
        return ()
    }

    /// The code point a class's `\letter` stands for, a member's or a range's end (`\x` reads
    /// its digits here): nil when it is not analysed.
    mutating func escapedValue(_ letter: Unicode.Scalar) -> UInt32? {
        if letter == "x" { return hexValue() }
        if let control = CandidatePattern.controlEscapes[letter] { return control.value }
        if letter.isASCII && !CandidatePattern.isWord(letter) { return letter.value }
        return nil
    }
}
