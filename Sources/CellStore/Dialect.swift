/// How an input is delimited: the field delimiter, the quote byte, and the line ending
/// that output writers reproduce.
package struct Dialect: Sendable, Equatable {
    package var delimiter: UInt8
    package var quote: UInt8
    /// The record terminator seen first in the input (`\n`, `\r\n` or `\r`), used when
    /// writing CSV back out so a file round-trips byte for byte.
    package var lineEnding: [UInt8]
    /// True when the start of the input holds NUL bytes, which text does not: probably not
    /// a delimited text file at all.
    package var looksBinary = false
    /// `UTF-16LE` or `UTF-16BE` when the NUL bytes are every other byte of the start, as
    /// in UTF-16 text with no byte-order mark (read as UTF-8, it shows as NULs): the
    /// `--encoding` to give.
    package var likelyUTF16: String?
    /// The character encoding the input was converted from to UTF-8 (`--encoding`, or a
    /// UTF-16 byte-order mark), nil when it was read as UTF-8.
    package var encoding: String?
    /// The encoding `--encoding` named when the input's byte-order mark said another,
    /// which won (`encoding` is the mark's): said on the status line and on stderr.
    package var overruledEncoding: String?
    /// True when the first line was Excel's `sep=X`, which set the delimiter.
    package var hasSeparatorLine = false

    /// The quote byte meaning "no quoting" (`--quote none`): a quote is data everywhere. A
    /// line feed, because every reader of the field rules (the scanner, the sort-key and
    /// field readers) tests for a line end before it tests for the quote, so a quote byte
    /// that is a line end can never open a quoted field. libcsv tests the quote first
    /// inside a field: `RecordParser` gives it a byte absent from the bytes it parses.
    package static let noQuote: UInt8 = 0x0A

    /// False with `--quote none`.
    package var isQuoting: Bool { quote != Dialect.noQuote }

    /// The quote a search's candidate pattern is written for. Unquoted data is matched
    /// by a pattern written for `"`: it finds a superset of the records, as it must.
    package var candidateQuote: UInt8 { isQuoting ? quote : UInt8(ascii: "\"") }

    /// The dialect of the CSV records made from JSON (`JSONStage`): commas, double
    /// quotes, LF.
    static let madeFromJSON = Dialect()

    package init(delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8 = UInt8(ascii: "\""), lineEnding: [UInt8] = [0x0A]) {
        self.delimiter = delimiter
        self.quote = quote
        self.lineEnding = lineEnding
    }

    /// The delimiter's name, the quote's when it is not the usual double quote, and the
    /// encoding the input was converted from.
    package var summary: String {
        var parts = [delimiterName]
        if !isQuoting {
            parts.append("no quotes")
        } else if quote != UInt8(ascii: "\"") {
            parts.append("quote " + Dialect.name(of: quote))
        }
        if let encoding { parts.append(encoding) }
        return parts.joined(separator: ", ")
    }

    /// Excel's first line `sep=X` (any case, X one byte), which names the delimiter and is
    /// not a record: the delimiter, and the line's length with its terminator.
    package static func separatorLine(in bytes: ArraySlice<UInt8>) -> (delimiter: UInt8, length: Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 5, bytes[start..<(start + 4)].map({ $0 | 0x20 }) == Array("sep=".utf8) else { return nil }
        let delimiter = bytes[start + 4]
        guard delimiter != 0x0A, delimiter != 0x0D, delimiter != UInt8(ascii: "\"") else { return nil }
        let end = start + 5
        if end == bytes.endIndex { return (delimiter, 5) }
        guard bytes[end] == 0x0A || bytes[end] == 0x0D else { return nil }
        return (delimiter, PreambleRule.lineEnd(bytes, from: end) - start)
    }

    /// `UTF-16LE` when NUL is (nearly) every odd byte of `sample` and (nearly) no even one,
    /// `UTF-16BE` the other way round: text in UTF-16 without a byte-order mark (mostly
    /// characters below U+0100, as a delimited file's are). Nil for anything else.
    public static func likelyUTF16(_ sample: ArraySlice<UInt8>) -> String? {
        let bytes = sample.prefix(4096)
        guard bytes.count >= 8 else { return nil }
        var nulls = (even: 0, odd: 0)
        for (index, byte) in bytes.enumerated() where byte == 0 {
            if index & 1 == 0 { nulls.even += 1 } else { nulls.odd += 1 }
        }
        let pairs = bytes.count / 2
        // Nine in ten: a few characters past U+00FF (a `€`, a name in another script) are fine.
        func most(_ count: Int) -> Bool { count * 10 >= pairs * 9 }
        func few(_ count: Int) -> Bool { count * 10 <= pairs }
        if most(nulls.odd) && few(nulls.even) { return "UTF-16LE" }
        if most(nulls.even) && few(nulls.odd) { return "UTF-16BE" }
        // Text mostly in another script (名前,都市): its delimiters and line ends alone give
        // NULs, all on one side, and a line feed is a whole code unit there.
        func lineFeed(at parity: Int) -> Bool {
            bytes.indices.contains { index in
                (index - bytes.startIndex) & 1 == 0 && index + 1 < bytes.endIndex
                    && bytes[index + parity] == 0x0A && bytes[index + 1 - parity] == 0
            }
        }
        if nulls.even == 0 && nulls.odd * 8 >= pairs && lineFeed(at: 0) { return "UTF-16LE" }
        if nulls.odd == 0 && nulls.even * 8 >= pairs && lineFeed(at: 1) { return "UTF-16BE" }
        return nil
    }

    static func name(of byte: UInt8) -> String {
        byte >= 0x21 && byte <= 0x7E ? "'" + String(Character(Unicode.Scalar(byte))) + "'" : "0x" + String(byte, radix: 16, uppercase: true)
    }

    /// A short human name for the delimiter, for the status line.
    package var delimiterName: String {
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
    /// Each candidate reads the sample's records exactly as the parser does, and is scored
    /// by the physical lines (of the first `sampleLines`) that records of its most common
    /// field count (above one) cover (a quote left open covers nothing): lines inside a quoted
    /// cell belong to their record, so a comma file whose cell holds lines starting with a
    /// tab is not read as tab-separated. Quoting oddities every lenient reader reads as
    /// data do not count against a delimiter: a quote inside a cell that does not start it
    /// (`a|{"x": "y"}|0.5`), text after a closing quote (`"x" y|z`). Between two that split
    /// equally well, the one with fewer such oddities wins, then the one with more fields.
    package static func detect(sample: ArraySlice<UInt8>, fileName: String?, quote: UInt8 = UInt8(ascii: "\"")) -> Dialect {
        var dialect = Dialect(quote: quote)
        dialect.lineEnding = detectLineEnding(sample, quote: quote)
        if let name = fileName?.lowercased(), name.hasSuffix(".tsv") || name.hasSuffix(".tab") {
            dialect.delimiter = 0x09
            return dialect
        }
        let lineEnds = physicalLineEnds(of: sample, limit: sampleLines)
        var best: (delimiter: UInt8, fit: Fit)?
        for candidate in candidates {
            let fit = consistency(of: candidate, in: sample, lineEnds: lineEnds, quote: quote)
            guard fit.lines > 0 else { continue }
            if best.map({ fit.isBetter(than: $0.fit) }) ?? true { best = (candidate, fit) }
        }
        dialect.delimiter = best?.delimiter ?? UInt8(ascii: ",")
        return dialect
    }

    /// How many physical lines of the sample the sniffer judges.
    static let sampleLines = 100

    /// How well a delimiter splits a sample.
    struct Fit: Equatable {
        /// Physical lines covered by records with the most common field count (above one).
        var lines = 0
        /// Quotes inside unquoted fields and text after closing quotes.
        var strayQuotes = 0
        /// The most common field count.
        var fields = 0

        func isBetter(than other: Fit) -> Bool {
            if lines != other.lines { return lines > other.lines }
            if strayQuotes != other.strayQuotes { return strayQuotes < other.strayQuotes }
            return fields > other.fields
        }
    }

    /// Offsets (from `sample`'s start) just past each of the first `limit` line ends, quotes
    /// or not: LF, CR, and CRLF as one, ending after its CR as the scanner's record does.
    static func physicalLineEnds(of sample: ArraySlice<UInt8>, limit: Int) -> [Int] {
        var ends: [Int] = []
        var index = sample.startIndex
        while index < sample.endIndex && ends.count < limit {
            let byte = sample[index]
            if byte == 0x0D || (byte == 0x0A && !(index > sample.startIndex && sample[index - 1] == 0x0D)) {
                ends.append(index + 1 - sample.startIndex)
            }
            index += 1
        }
        return ends
    }

    /// How well `delimiter` splits the records that start in the sample's first lines
    /// (`lineEnds`, from `physicalLineEnds`), read exactly as the parser reads quotes
    /// (doubled quotes included): each record counts the physical lines it covers.
    static func consistency(of delimiter: UInt8, in sample: ArraySlice<UInt8>, lineEnds: [Int],
                            quote: UInt8 = UInt8(ascii: "\"")) -> Fit {
        var counts: [Int: Int] = [:]
        var counted = 0   // lines of `lineEnds` already given to a record
        var scanner = RecordScanner(dialect: Dialect(delimiter: delimiter, quote: quote))
        sample.withUnsafeBytes { bytes in
            scanner.scan(bytes) { end, _, _, fields in
                guard fields > 0 else { return }   // 0: the LF of a CRLF
                guard counted < lineEnds.count else { return }
                var covered = counted
                while covered < lineEnds.count && lineEnds[covered] <= end { covered += 1 }
                counts[fields, default: 0] += covered - counted
                counted = covered
            }
        }
        // A record the sample ends in, with no line end, counts when its quotes closed; a
        // sample cut inside a quoted cell (as a 64 KiB start often is) says nothing either way.
        let before = (records: scanner.recordCount, problems: scanner.problemCount)
        scanner.finish()
        if scanner.recordCount > before.records, scanner.problemCount == before.problems {
            let lastLine = lineEnds.count < sampleLines ? 1 : 0   // the line without an end
            counts[scanner.lastRecordFields, default: 0] += lineEnds.count - counted + lastLine
        }
        guard let mode = counts.filter({ $0.key > 1 }).max(by: { ($0.value, $0.key) < ($1.value, $1.key) }) else { return Fit() }
        return Fit(lines: mode.value, strayQuotes: scanner.strayQuoteCount + scanner.textAfterQuoteCount, fields: mode.key)
    }

    /// The first terminator outside quotes in `sample`; LF when there is none.
    static func detectLineEnding(_ sample: ArraySlice<UInt8>, quote: UInt8 = UInt8(ascii: "\"")) -> [UInt8] {
        var inQuotes = false
        var index = sample.startIndex
        while index < sample.endIndex {
            let byte = sample[index]
            if byte == quote && quote != Dialect.noQuote { inQuotes.toggle() }
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

