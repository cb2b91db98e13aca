#if canImport(Glibc)
import Glibc
#endif

/// Finds record boundaries without parsing cells, following libcsv's rules exactly as
/// this project sets libcsv up (nothing trimmed, every terminator reported, CRLF ending one
/// record, a blank line being a record), several times faster than parsing.
///
/// With nothing trimmed, a quote opens a quoted field exactly when it is the first byte of
/// a field; inside a quoted field only a quote matters, so the scanner skips to it with
/// `memchr`; outside, a byte table says which bytes matter. It also counts each record's
/// fields (for the widest row) and notes malformed quoting, which libcsv reads leniently.
/// Differential tests hold it to libcsv over hostile inputs.
package struct RecordScanner {
    /// libcsv's parser states, with FIELD_BEGUN split by whether the field is quoted.
    enum State: UInt8 {
        case rowNotBegun, fieldNotBegun, unquoted, quoted, quoteInQuoted
    }

    /// A quoting problem, read leniently as libcsv does.
    package struct Problem: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// A quote inside an unquoted field (kept as a literal quote).
            case quoteInUnquotedField
            /// Text right after a closing quote (kept; the field stays quoted).
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
    /// 1 for delimiter, quote, CR and LF: the bytes that matter outside quotes.
    private let special: [UInt8]

    /// A scanner at the start of an input, or (`insideQuotes`) one that assumes it starts
    /// inside a quoted field, for re-synchronizing in the middle of a file.
    package init(dialect: Dialect, insideQuotes: Bool = false) {
        if insideQuotes {
            state = .quoted
            fields = 1
        }
        delimiter = dialect.delimiter
        quote = dialect.quote
        var table = [UInt8](repeating: 0, count: 256)
        for byte in [dialect.delimiter, dialect.quote, 0x0A, 0x0D] { table[Int(byte)] = 1 }
        special = table
    }

    /// True between records: the next byte starts a new record (or is the LF of a CRLF).
    package var isBetweenRecords: Bool { state == .rowNotBegun }

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
    package mutating func scan(_ buffer: UnsafeRawBufferPointer, at position: Int64 = 0,
                               boundary: (Int, Bool, Int, Int) -> Void = { _, _, _, _ in }) {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let count = buffer.count
        var index = 0
        special.withUnsafeBufferPointer { table in
            while index < count {
                switch state {
                case .unquoted:
                    // Skip ordinary bytes in bulk.
                    while index < count && table[Int(base[index])] == 0 { index += 1 }
                    guard index < count else { return }
                    let byte = base[index]
                    index += 1
                    if byte == delimiter {
                        fields += 1
                        state = .fieldNotBegun
                    } else if byte == 0x0A || byte == 0x0D {
                        endRecord(byte)
                        boundary(index, byte == 0x0D, recordCount, endedFields)
                    } else {
                        note(.quoteInUnquotedField, at: position + Int64(index - 1))
                    }
                case .quoted:
                    guard let found = memchr(base + index, Int32(quote), count - index) else {
                        index = count
                        return
                    }
                    index = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                    state = .quoteInQuoted
                case .quoteInQuoted:
                    let byte = base[index]
                    index += 1
                    if byte == delimiter {
                        fields += 1
                        state = .fieldNotBegun
                    } else if byte == 0x0A || byte == 0x0D {
                        endRecord(byte)
                        boundary(index, byte == 0x0D, recordCount, endedFields)
                    } else if byte == quote {
                        state = .quoted   // a doubled quote
                    } else {
                        // libcsv keeps the text, and the field stays quoted.
                        note(.textAfterClosingQuote, at: position + Int64(index - 1))
                        state = .quoted
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
                        } else {
                            fields = 1   // a blank line: one empty field
                            endRecord(byte)
                        }
                        boundary(index, byte == 0x0D, recordCount, endedFields)
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
