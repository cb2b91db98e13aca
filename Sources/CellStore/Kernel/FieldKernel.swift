import CFieldScan

/// The field rules, written once: libcsv as this project sets it up (nothing trimmed, CR,
/// LF and CRLF ending a record, a blank line a record of one empty field) and the
/// project's reading of malformed quotes (a quote opens a quoted field only as a field's
/// first byte, text after a closing quote joins the field, an unclosed quote runs to the
/// end). The record scanner, the sort-key reader, the insight field reader, the diff's
/// record hasher and SQL's raw rows are its visitors (`FieldVisitor`); differential tests
/// hold them to libcsv and to a plain byte-at-a-time reference.
///
/// Outside quotes it finds the next delimiter, quote or line end, inside quotes the next
/// quote, 16 bytes a step (`CFieldScan`). Where a visitor wants no more values of a record
/// (every record, for the scanner) it hands the bytes to the bulk boundary scan, 64 bytes
/// a step with AVX2 where the CPU has it, which reads only well-formed stretches and gives
/// back any block where a quote is out of place; those are read here by the rules.
///
/// With `--quote none` the quote is a line feed: a line end is tested before the quote
/// everywhere, so such a quote never opens a field.
public struct FieldKernel: Sendable {
    /// A quoting problem, read leniently as the parser does.
    public enum Problem: Sendable, Equatable {
        /// A quote inside an unquoted field (kept as a literal quote).
        case quoteInUnquotedField
        /// Text right after a closing quote (appended to the field, which then ends at
        /// the next delimiter or line end, as Python's csv and rust-csv read it).
        case textAfterClosingQuote
        /// A quoted field still open at the end of the input (it runs to the end).
        case unclosedQuote
    }

    /// Which bulk boundary scan the kernel uses (`best`: the best the CPU runs); tests and
    /// the benchmark compare them, and `off` is the byte-by-byte rules alone.
    package enum Bulk: Sendable, CaseIterable {
        case off, portable, sse2, avx2

        package static let best = Bulk.avx2

        /// The level `cf_scan_records_at` (and the well-quoted scans) take, or -1.
        package var level: Int32 {
            switch self {
            case .off: -1
            case .portable: Int32(CF_SCAN_PORTABLE)
            case .sse2: Int32(CF_SCAN_SSE2)
            case .avx2: Int32(CF_SCAN_AVX2)
            }
        }

        /// The bulk implementations this CPU runs, from the portable one up.
        package static var available: [Bulk] {
            let best = cf_scan_best_level()
            return allCases.filter { $0 != .off && $0.level <= best }
        }
    }

    /// Where in a field a kernel that starts inside one is.
    package enum FieldPosition: UInt8, Sendable {
        /// In an unquoted field, or in the text after a closing quote.
        case unquoted
        /// Inside quotes.
        case quoted
        /// Right after a quote inside quotes: the next byte decides (doubled, or closing).
        case quoteSeen
    }

    /// libcsv's parser states, with FIELD_BEGUN split by whether the field is quoted.
    @usableFromInline enum State: UInt8, Sendable {
        case rowNotBegun, fieldNotBegun, unquoted, quoted, quoteInQuoted
    }

    @usableFromInline let delimiter: UInt8
    @usableFromInline let quote: UInt8
    @usableFromInline let bulkLevel: Int32
    @usableFromInline var state: State
    @usableFromInline var lastTerminator: UInt8 = 0
    /// Fields begun in the record being read (0 between records).
    @usableFromInline var fields: Int
    /// Where the quoted field being read opened, in the input.
    @usableFromInline var quoteOpenedAt: Int64 = 0

    /// A kernel at the start of an input, or (`insideQuotes`) one that assumes it starts
    /// inside a quoted field, for re-synchronizing in the middle of a file.
    package init(dialect: Dialect, insideQuotes: Bool = false, bulk: Bulk = .best) {
        delimiter = dialect.delimiter
        quote = dialect.quote
        bulkLevel = bulk.level
        state = insideQuotes ? .quoted : .rowNotBegun
        fields = insideQuotes ? 1 : 0
    }

    /// A kernel that starts inside a record's first field, at `position`: for reading one
    /// value from a place inside it (a long cell read from the input by offset).
    package init(dialect: Dialect, insideFieldAt position: FieldPosition, bulk: Bulk = .best) {
        self.init(dialect: dialect, bulk: bulk)
        switch position {
        case .unquoted: state = .unquoted
        case .quoted: state = .quoted
        case .quoteSeen: state = .quoteInQuoted
        }
        fields = 1
    }

    /// True between records (where a fresh parser could start).
    package var isBetweenRecords: Bool { state == .rowNotBegun }

    /// Where in its field the kernel is (`unquoted` between fields and records).
    package var fieldPosition: FieldPosition {
        switch state {
        case .quoted: .quoted
        case .quoteInQuoted: .quoteSeen
        case .rowNotBegun, .fieldNotBegun, .unquoted: .unquoted
        }
    }

    /// Reads `buffer`, which starts at byte `position` of the input, telling `visitor`;
    /// returns where it stopped: the buffer's end, or where the visitor said stop.
    /// - Complexity: O(n); well-formed stretches where nothing is wanted go 64 bytes a step.
    @inlinable @discardableResult
    public mutating func scan<Visitor: FieldVisitor>(_ buffer: UnsafeRawBufferPointer, at position: Int64 = 0,
                                                      into visitor: inout Visitor) -> Int {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count > 0 else { return 0 }
        let count = buffer.count
        let delimiter = self.delimiter, quote = self.quote, bulkLevel = self.bulkLevel
        // The state lives in locals while reading (registers, not memory).
        var state = self.state
        var fields = self.fields
        var lastTerminator = self.lastTerminator
        var quoteOpenedAt = self.quoteOpenedAt
        var index = 0
        // After the bulk scan turns a block down, the rules read on to `bulkFrom`; each
        // refusal in a row doubles the distance, so input full of stray quotes costs little.
        var bulkFrom = bulkLevel >= 0 ? 0 : Int.max
        var bulkPause = 64
        defer {
            self.state = state
            self.fields = fields
            self.lastTerminator = lastTerminator
            self.quoteOpenedAt = quoteOpenedAt
        }

        return withUnsafeTemporaryAllocation(of: cf_record_end.self, capacity: 512) { ends -> Int in
            while index < count {
                if index >= bulkFrom && state != .quoteInQuoted && count - index > 64 {
                    let lastWanted = visitor.lastWantedColumn
                    if lastWanted < 0 || fields - 1 > lastWanted {
                        // Nothing more of this record is wanted (of any record, with -1).
                        var bulk = cf_scan_state(
                            inside: state == .quoted ? 1 : 0,
                            opens_field: state == .rowNotBegun || state == .fieldNotBegun ? 1 : 0,
                            after_cr: state == .rowNotBegun && lastTerminator == 0x0D ? 1 : 0,
                            delimiters: max(0, fields - 1), opened_at: 0, count: 0)
                        let consumed = cf_scan_records_at(bulkLevel, base + index, count - index, delimiter, quote,
                                                          lastWanted < 0 ? 0 : 1, &bulk, ends.baseAddress, ends.count)
                        if consumed > 0 {
                            bulkPause = 64
                            let start = index
                            for end in ends[..<bulk.count] {
                                let at = start + end.end
                                if end.terminator == 0 {
                                    lastTerminator = 0x0A
                                    visitor.lineFeedAfterCR(at: at)
                                    continue
                                }
                                index = at
                                fields = end.fields
                                if !Self.endRecord(end.terminator, at: index, &fields, &lastTerminator, &state, &visitor) { return index }
                            }
                            index = start + consumed
                            let last = base[index - 1]
                            let delimiters = bulk.delimiters
                            if bulk.inside != 0 {
                                state = .quoted
                                if bulk.opened_at >= 0 {   // (size_t)-1: none opened here
                                    quoteOpenedAt = position + Int64(start + bulk.opened_at)
                                }
                            } else if last == 0x0A || last == 0x0D {
                                state = .rowNotBegun
                            } else if last == delimiter {
                                state = .fieldNotBegun
                            } else if last == quote {
                                state = .quoteInQuoted
                            } else {
                                state = .unquoted
                            }
                            fields = state == .rowNotBegun ? 0 : delimiters + 1
                            continue
                        }
                        bulkFrom = index + bulkPause
                        bulkPause = min(bulkPause * 2, 1 << 16)
                    }
                }
                switch state {
                case .rowNotBegun, .fieldNotBegun:
                    let byte = base[index]
                    if byte == 0x0A || byte == 0x0D {
                        index += 1
                        if state == .fieldNotBegun {
                            // After a trailing delimiter.
                            if !Self.endRecord(byte, at: index, &fields, &lastTerminator, &state, &visitor) { return index }
                        } else if byte == 0x0A && lastTerminator == 0x0D {
                            lastTerminator = byte   // the LF of a CRLF ends nothing
                            visitor.lineFeedAfterCR(at: index)
                        } else {
                            fields = 1   // a blank line: one empty field
                            if !Self.endRecord(byte, at: index, &fields, &lastTerminator, &state, &visitor) { return index }
                        }
                        continue
                    }
                    if state == .rowNotBegun { fields = 1 }
                    if byte == delimiter {
                        index += 1
                        fields += 1
                        state = .fieldNotBegun
                        if fields - 2 <= visitor.lastWantedColumn && !visitor.fieldEnded(fields - 2, at: index - 1) { return index }
                    } else if byte == quote {
                        quoteOpenedAt = position + Int64(index)
                        index += 1
                        state = .quoted
                    } else {
                        state = .unquoted   // read from this byte on
                    }
                case .unquoted:
                    let column = fields - 1
                    if column > visitor.lastWantedColumn {
                        // Past the wanted values: whole unquoted fields at once.
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
                            if !Self.endRecord(byte, at: index, &fields, &lastTerminator, &state, &visitor) { return index }
                        } else if afterDelimiter != 0 {
                            // A quote that starts a field opens a quoted field.
                            quoteOpenedAt = position + Int64(index - 1)
                            state = .quoted
                        } else if !visitor.problem(.quoteInUnquotedField, at: position + Int64(index - 1), index: index - 1) {
                            return index
                        }
                        continue
                    }
                    let start = index
                    index += cf_find_special(base + index, count - index, delimiter, quote)
                    let wanted = visitor.wants(column)
                    if wanted && index > start {
                        visitor.cell(column, UnsafeRawBufferPointer(start: base + start, count: index - start))
                    }
                    guard index < count else { break }
                    let byte = base[index]
                    index += 1
                    if byte == delimiter {
                        fields += 1
                        state = .fieldNotBegun
                        if !visitor.fieldEnded(column, at: index - 1) { return index }
                    } else if byte == 0x0A || byte == 0x0D {
                        if !Self.endRecord(byte, at: index, &fields, &lastTerminator, &state, &visitor) { return index }
                    } else {
                        // A quote inside an unquoted field is data.
                        if !visitor.problem(.quoteInUnquotedField, at: position + Int64(index - 1), index: index - 1) {
                            return index
                        }
                        if wanted { visitor.cell(column, UnsafeRawBufferPointer(start: base + index - 1, count: 1)) }
                    }
                case .quoted:
                    let start = index
                    index += cf_find_byte(base + index, count - index, quote)
                    let column = fields - 1
                    if index > start && column <= visitor.lastWantedColumn && visitor.wants(column) {
                        visitor.cell(column, UnsafeRawBufferPointer(start: base + start, count: index - start))
                    }
                    guard index < count else { break }
                    index += 1
                    state = .quoteInQuoted
                case .quoteInQuoted:
                    let byte = base[index]
                    if byte == delimiter {
                        index += 1
                        fields += 1
                        state = .fieldNotBegun
                        if fields - 2 <= visitor.lastWantedColumn && !visitor.fieldEnded(fields - 2, at: index - 1) { return index }
                    } else if byte == 0x0A || byte == 0x0D {
                        index += 1
                        if !Self.endRecord(byte, at: index, &fields, &lastTerminator, &state, &visitor) { return index }
                    } else if byte == quote {
                        index += 1   // a doubled quote: one quote of the value
                        state = .quoted
                        let column = fields - 1
                        if column <= visitor.lastWantedColumn && visitor.wants(column) {
                            visitor.cell(column, UnsafeRawBufferPointer(start: base + index - 1, count: 1))
                        }
                    } else {
                        // The text is kept and the field is unquoted from here: the next
                        // delimiter or line end ends it, and a quote in it is data.
                        state = .unquoted
                        if !visitor.problem(.textAfterClosingQuote, at: position + Int64(index), index: index) {
                            return index
                        }
                    }
                }
            }
            return index
        }
    }

    /// Ends the record being read at `index`, just past its terminator; false when the
    /// visitor says stop. Static, with the state passed in: a local function capturing the
    /// scan's variables made each of them an exclusivity check at every call of `scan`,
    /// which costs a reader that scans one record at a time (SQL around a literal's hits).
    @inlinable @inline(__always)
    static func endRecord<Visitor: FieldVisitor>(_ terminator: UInt8, at index: Int, _ fields: inout Int,
                                                 _ lastTerminator: inout UInt8, _ state: inout State,
                                                 _ visitor: inout Visitor) -> Bool {
        let ended = fields
        fields = 0
        lastTerminator = terminator
        state = .rowNotBegun
        return visitor.recordEnded(at: index, terminator: terminator, fields: ended)
    }

    /// Ends the input: a record still open is complete (libcsv's `csv_fini`), and a quoted
    /// field still open is a problem.
    @inlinable
    public mutating func finish<Visitor: FieldVisitor>(into visitor: inout Visitor) {
        switch state {
        case .rowNotBegun:
            return
        case .quoted:
            guard visitor.problem(.unclosedQuote, at: quoteOpenedAt, index: -1) else { return }
        case .fieldNotBegun, .unquoted, .quoteInQuoted:
            break
        }
        let ended = fields
        fields = 0
        lastTerminator = 0
        state = .rowNotBegun
        _ = visitor.recordEnded(at: 0, terminator: 0, fields: ended)
    }
}
