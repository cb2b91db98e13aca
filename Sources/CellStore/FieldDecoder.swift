#if canImport(Glibc)
import Glibc
#endif
import CFieldScan

/// Decodes a field's value from its raw bytes with the parser's rules, from a point inside
/// it: quoted (doubled quotes made single, a closing quote followed by text that joins the
/// value up to the next delimiter or line end), or unquoted (up to the next delimiter or
/// line end; quotes are literal).
struct FieldDecoder {
    enum Mode: UInt8, Sendable {
        /// Outside quotes, or in the text after a closing quote.
        case unquoted
        /// Inside quotes.
        case quoted
        /// A quote inside quotes was the last byte: the next decides (doubled, or closing).
        case quoteSeen
    }

    var mode: Mode
    let delimiter: UInt8
    let quote: UInt8

    init(mode: Mode, delimiter: UInt8, quote: UInt8) {
        self.mode = mode
        self.delimiter = delimiter
        self.quote = quote
    }

    /// Decodes from the start of `bytes`, appending value bytes to `output`; returns how
    /// many raw bytes it used and whether the field ended (the byte that ends it, a
    /// delimiter or a line end, is not used). `atEnd`: the input ends here (an open quote
    /// ends too).
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, atEnd: Bool, into output: inout [UInt8]) -> (used: Int, ended: Bool) {
        var kept: [UInt8]? = output
        output = []
        defer { output = kept ?? [] }
        return decode(bytes, atEnd: atEnd, into: &kept)
    }

    /// As above; with `output` nil the value is only skipped.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, atEnd: Bool, into output: inout [UInt8]?) -> (used: Int, ended: Bool) {
        @inline(__always) func emit(_ piece: UnsafeBufferPointer<UInt8>) {
            if output != nil { output!.append(contentsOf: piece) }
        }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return (0, atEnd) }
        let count = bytes.count
        var index = 0
        while index < count {
            switch mode {
            case .unquoted:
                // 16 bytes a step; a quote found is literal here, so the search goes on past it.
                var end = index
                while end < count {
                    end += cf_find_special(base + end, count - end, delimiter, quote)
                    guard end < count, base[end] == quote, quote != delimiter else { break }
                    end += 1
                }
                if end > index { emit(UnsafeBufferPointer(rebasing: bytes[index..<end])) }
                if end < count { return (end, true) }
                index = end
            case .quoted:
                let found = index + cf_find_byte(base + index, count - index, quote)
                if found > index { emit(UnsafeBufferPointer(rebasing: bytes[index..<min(found, count)])) }
                if found >= count { index = count; break }
                index = found + 1
                mode = .quoteSeen
            case .quoteSeen:
                if base[index] == quote {
                    emit(UnsafeBufferPointer(rebasing: bytes[index..<(index + 1)]))
                    index += 1
                    mode = .quoted
                } else {
                    // A closing quote: what follows up to a delimiter or line end joins the value.
                    mode = .unquoted
                }
            }
        }
        return (count, false)
    }
}
