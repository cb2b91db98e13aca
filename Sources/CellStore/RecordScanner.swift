#if canImport(Glibc)
import Glibc
#endif
import CLibCSV

/// Finds record boundaries without parsing cells, following the parser's rules exactly
/// (libcsv as this project sets it up: nothing trimmed, every terminator reported, CRLF
/// ending one record, a blank line being a record; and the project's own rule for text
/// after a closing quote), several times faster than parsing.
///
/// With nothing trimmed, a quote opens a quoted field exactly when it is the first byte of
/// a field; inside a quoted field only a quote matters, and outside only the delimiter,
/// a quote and line ends: the scanner finds them 16 bytes at a time (SSE2 helpers in the
/// C shim, with a byte loop elsewhere). It also counts each record's
/// fields (for the widest row) and notes malformed quoting, which the parser reads leniently.
/// Differential tests hold it to libcsv over hostile inputs.
package struct RecordScanner {
    /// libcsv's parser states, with FIELD_BEGUN split by whether the field is quoted.
    enum State: UInt8 {
        case rowNotBegun, fieldNotBegun, unquoted, quoted, quoteInQuoted
    }

    /// A quoting problem, read leniently as the parser does.
    package struct Problem: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// A quote inside an unquoted field (kept as a literal quote).
            case quoteInUnquotedField
            /// Text right after a closing quote (appended to the field, which then ends at
            /// the next delimiter or line end, as Python's csv and rust-csv read it).
            case textAfterClosingQuote
            /// A quoted field still open at the end of the input (it runs to the end).
            case unclosedQuote
        }
        package var kind: Kind
        /// The record it is in (0 is the first record).
        package var record: Int
        /// The byte offset in the input where it was seen (where the quote opened, for an
        /// unclosed quote).
        package var offset: Int64
    }

    let delimiter: UInt8
    let quote: UInt8
    private var state = State.rowNotBegun
    private var lastTerminator: UInt8 = 0
    private var fields = 0
    private var quoteOpenedAt: Int64 = 0
    /// Records completed so far.
    package private(set) var recordCount = 0
    /// The most fields any completed record had.
    package private(set) var widestRecord = 0
    /// The first quoting problem met, if any.
    package private(set) var firstProblem: Problem?
    /// How many quoting problems were met.
    package private(set) var problemCount = 0
    /// The first blank line (a record of one empty cell written as nothing), if any:
    /// readers such as Python's csv skip those, so output writes them `""`.
    package private(set) var firstBlankRecord: Int?
    /// How many of them were quotes inside an unquoted field: data, for every reader
    /// (`{"x": 1}` in a cell), so they say nothing against the delimiter.
    package private(set) var strayQuoteCount = 0

    /// A scanner at the start of an input, or (`insideQuotes`) one that assumes it starts
    /// inside a quoted field, for re-synchronizing in the middle of a file.
    package init(dialect: Dialect, insideQuotes: Bool = false) {
        if insideQuotes {
            state = .quoted
            fields = 1
        }
        delimiter = dialect.delimiter
        quote = dialect.quote
    }

    /// Fields of the record that ended last.
    private var endedFields = 0

    private mutating func endRecord(_ terminator: UInt8) {
        endedFields = fields
        lastTerminator = terminator
        recordCount += 1
        if fields > widestRecord { widestRecord = fields }
        fields = 0
        state = .rowNotBegun
    }

    private mutating func note(_ kind: Problem.Kind, at offset: Int64) {
        problemCount += 1
        if firstProblem == nil { firstProblem = Problem(kind: kind, record: recordCount, offset: offset) }
    }

    /// Scans `buffer`, which starts at byte `position` of the input. After each record end
    /// and after the LF of a CRLF, calls `boundary(offset, afterCR, records, fields)` with
    /// the offset in the buffer just past it, whether a CR ended a record there (a LF may
    /// still follow and belong to it), the records completed so far, and the fields of the
    /// record that just ended (0 after the LF of a CRLF).
    /// - Complexity: O(n), with quoted stretches skipped by `memchr`.
    /// `strayText`, when given, is called with the offset in the buffer of each byte of
    /// text that follows a closing quote (where libcsv reads differently from this rule).
    package mutating func scan(_ buffer: UnsafeRawBufferPointer, at position: Int64 = 0,
                               boundary: (Int, Bool, Int, Int) -> Void = { _, _, _, _ in },
                               strayText: ((Int) -> Void)? = nil) {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let count = buffer.count
        // The state lives in locals while scanning (registers, not memory) and is written
        // back once at the end.
        var state = self.state
        var fields = self.fields
        var lastTerminator = self.lastTerminator
        var recordCount = self.recordCount
        var widestRecord = self.widestRecord
        var endedFields = self.endedFields
        var quoteOpenedAt = self.quoteOpenedAt
        var firstBlankRecord = self.firstBlankRecord
        var problems: [(Problem.Kind, Int64, Int)] = []
        let delimiter = self.delimiter, quote = self.quote
        var index = 0

        do {
            @inline(__always) func endRecord(_ terminator: UInt8) {
                endedFields = fields
                lastTerminator = terminator
                recordCount += 1
                if fields > widestRecord { widestRecord = fields }
                fields = 0
                state = .rowNotBegun
                boundary(index, terminator == 0x0D, recordCount, endedFields)
            }
            while index < count {
                switch state {
                case .unquoted:
                    // Unquoted fields, through their delimiters, in bulk.
                    var added = 0
                    var afterDelimiter: Int32 = 0
                    index += cf_scan_unquoted(base + index, count - index, delimiter, quote, &added, &afterDelimiter)
                    fields += added
                    guard index < count else {
                        if afterDelimiter != 0 { state = .fieldNotBegun }
                        break
                    }
                    let byte = base[index]
                    index += 1
                    if byte == 0x0A || byte == 0x0D {
                        endRecord(byte)
                    } else if afterDelimiter != 0 {
                        // A quote that starts a field opens a quoted field.
                        quoteOpenedAt = position + Int64(index - 1)
                        state = .quoted
                    } else {
                        problems.append((.quoteInUnquotedField, position + Int64(index - 1), recordCount))
                    }
                case .quoted:
                    index += cf_find_byte(base + index, count - index, quote)
                    guard index < count else { break }
                    index += 1
                    state = .quoteInQuoted
                case .quoteInQuoted:
                    let byte = base[index]
                    index += 1
                    if byte == delimiter {
                        fields += 1
                        state = .fieldNotBegun
                    } else if byte == 0x0A || byte == 0x0D {
                        endRecord(byte)
                    } else if byte == quote {
                        state = .quoted   // a doubled quote
                    } else {
                        // The text is kept and the field is unquoted from here: the next
                        // delimiter or line end ends it, and a quote in it is literal.
                        problems.append((.textAfterClosingQuote, position + Int64(index - 1), recordCount))
                        state = .unquoted
                        strayText?(index - 1)
                    }
                case .rowNotBegun, .fieldNotBegun:
                    let byte = base[index]
                    index += 1
                    let starting = state == .rowNotBegun
                    if byte == 0x0A || byte == 0x0D {
                        if !starting {
                            endRecord(byte)   // after a trailing delimiter
                        } else if byte == 0x0A && lastTerminator == 0x0D {
                            lastTerminator = byte   // the LF of a CRLF ends nothing
                            endedFields = 0
                            boundary(index, false, recordCount, 0)
                        } else {
                            fields = 1   // a blank line: one empty field
                            if firstBlankRecord == nil { firstBlankRecord = recordCount }
                            endRecord(byte)
                        }
                        continue
                    }
                    if starting { fields = 1 }
                    if byte == delimiter {
                        fields += 1
                        state = .fieldNotBegun
                    } else if byte == quote {
                        state = .quoted
                        quoteOpenedAt = position + Int64(index - 1)
                    } else {
                        state = .unquoted
                    }
                }
            }
        }
        // A problem belongs to the record being read when it was met.
        for (kind, offset, record) in problems {
            problemCount += 1
            if kind == .quoteInUnquotedField { strayQuoteCount += 1 }
            if firstProblem == nil { firstProblem = Problem(kind: kind, record: record, offset: offset) }
        }
        self.state = state
        self.fields = fields
        self.lastTerminator = lastTerminator
        self.recordCount = recordCount
        self.widestRecord = widestRecord
        self.endedFields = endedFields
        self.quoteOpenedAt = quoteOpenedAt
        self.firstBlankRecord = firstBlankRecord
    }

    /// Scans a whole input held in memory, fed in chunks of `chunk` bytes, and finishes it
    /// (for differential tests against libcsv).
    package static func scanning(_ bytes: [UInt8], dialect: Dialect, chunk: Int = 1 << 20) -> RecordScanner {
        var scanner = RecordScanner(dialect: dialect)
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + max(1, chunk))
            bytes[index..<end].withUnsafeBytes { scanner.scan($0, at: Int64(index)) }
            index = end
        }
        scanner.finish()
        return scanner
    }

    /// Ends the input: a record still open is complete (libcsv's `csv_fini`).
    package mutating func finish() {
        switch state {
        case .rowNotBegun: break
        case .quoted:
            note(.unclosedQuote, at: quoteOpenedAt)
            endRecord(0)
        case .fieldNotBegun, .unquoted, .quoteInQuoted:
            endRecord(0)
        }
    }
}
