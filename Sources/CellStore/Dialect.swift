/// How an input is delimited: the field delimiter, the quote byte, and the line ending
/// that output writers reproduce.
public struct Dialect: Sendable, Equatable {
    public var delimiter: UInt8
    public var quote: UInt8
    /// The record terminator seen first in the input (`\n`, `\r\n` or `\r`), used when
    /// writing CSV back out so a file round-trips byte for byte.
    public var lineEnding: [UInt8]
    /// True when the start of the input holds NUL bytes, which text does not: probably not
    /// a delimited text file at all.
    public var looksBinary = false

    public init(delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8 = UInt8(ascii: "\""), lineEnding: [UInt8] = [0x0A]) {
        self.delimiter = delimiter
        self.quote = quote
        self.lineEnding = lineEnding
    }

    /// The delimiter's name, and the quote's when it is not the usual double quote.
    public var summary: String {
        quote == UInt8(ascii: "\"") ? delimiterName : delimiterName + ", quote " + Dialect.name(of: quote)
    }

    static func name(of byte: UInt8) -> String {
        byte >= 0x21 && byte <= 0x7E ? "'" + String(Character(Unicode.Scalar(byte))) + "'" : "0x" + String(byte, radix: 16, uppercase: true)
    }

    /// A short human name for the delimiter, for the status line.
    public var delimiterName: String {
        switch delimiter {
        case UInt8(ascii: ","): return "comma"
        case 0x09: return "tab"
        case UInt8(ascii: ";"): return "semicolon"
        case UInt8(ascii: "|"): return "pipe"
        case UInt8(ascii: " "): return "space"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(delimiter)))'"
        default: return "0x" + String(delimiter, radix: 16, uppercase: true)
        }
    }

    /// The delimiters tried when none is given, in order of preference on a tie.
    static let candidates: [UInt8] = [UInt8(ascii: ","), 0x09, UInt8(ascii: ";"), UInt8(ascii: "|")]

    /// Picks the delimiter from a file name's extension, else from the data.
    ///
    /// For each candidate, the first lines of `sample` are split outside quotes; the
    /// winner is the one whose most common field count (above one) covers the most lines.
    public static func detect(sample: ArraySlice<UInt8>, fileName: String?, quote: UInt8 = UInt8(ascii: "\"")) -> Dialect {
        var dialect = Dialect(quote: quote)
        dialect.lineEnding = detectLineEnding(sample, quote: quote)
        if let name = fileName?.lowercased(), name.hasSuffix(".tsv") || name.hasSuffix(".tab") {
            dialect.delimiter = 0x09
            return dialect
        }
        var best: (delimiter: UInt8, score: Int) = (UInt8(ascii: ","), 0)
        for candidate in candidates {
            let score = consistency(of: candidate, in: sample, quote: quote)
            if score > best.score { best = (candidate, score) }
        }
        dialect.delimiter = best.delimiter
        return dialect
    }

    /// How well `delimiter` splits the first records (up to 100) of `sample`: the records
    /// whose field count is the most common one (above one), less one for each quoting
    /// problem, read exactly as the parser reads quotes (doubled quotes included).
    static func consistency(of delimiter: UInt8, in sample: ArraySlice<UInt8>, quote: UInt8 = UInt8(ascii: "\"")) -> Int {
        var counts: [Int: Int] = [:]
        var records = 0
        var scanner = RecordScanner(dialect: Dialect(delimiter: delimiter, quote: quote))
        sample.withUnsafeBytes { bytes in
            scanner.scan(bytes) { _, _, _, fields in
                guard fields > 0, records < 100 else { return }   // 0: the LF of a CRLF
                counts[fields, default: 0] += 1
                records += 1
            }
        }
        if records == 0 {
            // One line with no end: judge it by itself.
            scanner.finish()
            if scanner.widestRecord > 0 { counts[scanner.widestRecord, default: 0] += 1 }
        }
        guard let mode = counts.filter({ $0.key > 1 }).max(by: { ($0.value, $0.key) < ($1.value, $1.key) }) else { return 0 }
        let score = mode.value - min(scanner.problemCount, mode.value)
        return score > 0 ? score * 1000 + min(mode.key, 999) : 0
    }

    /// The first terminator outside quotes in `sample`; LF when there is none.
    static func detectLineEnding(_ sample: ArraySlice<UInt8>, quote: UInt8 = UInt8(ascii: "\"")) -> [UInt8] {
        var inQuotes = false
        var index = sample.startIndex
        while index < sample.endIndex {
            let byte = sample[index]
            if byte == quote { inQuotes.toggle() }
            if !inQuotes {
                if byte == 0x0A { return [0x0A] }
                if byte == 0x0D {
                    if index + 1 < sample.endIndex && sample[index + 1] == 0x0A { return [0x0D, 0x0A] }
                    if index + 1 < sample.endIndex { return [0x0D] }
                }
            }
            index += 1
        }
        return [0x0A]
    }
}

