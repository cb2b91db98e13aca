/// Finds record boundaries without parsing cells, following the parser's rules exactly,
/// several times faster than parsing: the field kernel with a visitor that wants no value,
/// so well-formed stretches go through the bulk boundary scan.
///
/// It also counts each record's fields (for the widest row) and notes malformed quoting,
/// which the parser reads leniently. Differential tests hold it to libcsv over hostile
/// inputs.
package struct RecordScanner {
    /// A quoting problem, read leniently as the parser does.
    package struct Problem: Sendable, Equatable {
        package typealias Kind = FieldKernel.Problem
        package var kind: Kind
        /// The record it is in (0 is the first record).
        package var record: Int
        /// The byte offset in the input where it was seen (where the quote opened, for an
        /// unclosed quote).
        package var offset: Int64
    }

    /// What the scanner has counted so far.
    struct Counts {
        var records = 0
        var widest = 0
        var lastFields = 0
        var firstProblem: Problem?
        var problems = 0
        var strayQuotes = 0
        var textAfterQuotes = 0
        var firstBlank: Int?
        /// Where the record being read starts in the input (`.min`: at the first byte
        /// scanned; nil: unknown, for a scanner that starts inside quotes).
        var recordStart: Int64? = .min
    }

    private var kernel: FieldKernel
    private var counts = Counts()
    /// Records completed so far.
    package var recordCount: Int { counts.records }
    /// The most fields any completed record had.
    package var widestRecord: Int { counts.widest }
    /// The fields of the last completed record (0 before the first).
    package var lastRecordFields: Int { counts.lastFields }
    /// The first quoting problem met, if any.
    package var firstProblem: Problem? { counts.firstProblem }
    /// How many quoting problems were met.
    package var problemCount: Int { counts.problems }
    /// The first blank line (a record of one empty cell written as nothing), if any:
    /// readers such as Python's csv skip those, so output writes them `""`.
    package var firstBlankRecord: Int? { counts.firstBlank }
    /// How many of them were quotes inside an unquoted field: data, for every reader
    /// (`{"x": 1}` in a cell), so they say nothing against the delimiter.
    package var strayQuoteCount: Int { counts.strayQuotes }
    /// How many of them were text after a closing quote (`"x" y`): the parser joins it to
    /// the field, as every lenient reader does, so it says little against the delimiter.
    package var textAfterQuoteCount: Int { counts.textAfterQuotes }

    /// A scanner at the start of an input, or (`insideQuotes`) one that assumes it starts
    /// inside a quoted field, for re-synchronizing in the middle of a file. `bulk` chooses
    /// the bulk scan (tests and the benchmark compare them).
    package init(dialect: Dialect, insideQuotes: Bool = false, bulk: FieldKernel.Bulk = .best) {
        kernel = FieldKernel(dialect: dialect, insideQuotes: insideQuotes, bulk: bulk)
        if insideQuotes { counts.recordStart = nil }
    }

    /// Goes on from a record boundary of an input scanned before (a file that grew since):
    /// `records` completed before it, the widest of them, and the first blank line among
    /// them, if any.
    package mutating func resume(records: Int, widest: Int, firstBlank: Int?) {
        counts.records = records
        counts.widest = widest
        counts.firstBlank = firstBlank
    }

    /// The kernel's visitor: counts, and passes each boundary on.
    private struct Visitor: FieldVisitor {
        var counts: Counts
        let position: Int64
        let boundary: (Int, Bool, Int, Int) -> Void
        let strayText: ((Int) -> Void)?

        var lastWantedColumn: Int { -1 }
        func wants(_ column: Int) -> Bool { false }
        mutating func cell(_ column: Int, _ bytes: UnsafeRawBufferPointer) {}

        mutating func recordEnded(at end: Int, terminator: UInt8, fields: Int) -> Bool {
            let after = position + Int64(end)
            // A blank line: one empty field whose record is its line end alone.
            if fields == 1, terminator != 0, counts.firstBlank == nil, counts.recordStart == after - 1 {
                counts.firstBlank = counts.records
            }
            counts.recordStart = after
            counts.records += 1
            counts.lastFields = fields
            if fields > counts.widest { counts.widest = fields }
            if terminator != 0 { boundary(end, terminator == 0x0D, counts.records, fields) }
            return true
        }

        mutating func lineFeedAfterCR(at end: Int) {
            counts.recordStart = position + Int64(end)
            boundary(end, false, counts.records, 0)
        }

        mutating func problem(_ kind: FieldKernel.Problem, at offset: Int64, index: Int) -> Bool {
            // A problem belongs to the record being read when it was met.
            counts.problems += 1
            if kind == .quoteInUnquotedField { counts.strayQuotes += 1 }
            if kind == .textAfterClosingQuote { counts.textAfterQuotes += 1 }
            if counts.firstProblem == nil { counts.firstProblem = Problem(kind: kind, record: counts.records, offset: offset) }
            if kind == .textAfterClosingQuote, let strayText { strayText(index) }
            return true
        }
    }

    /// Scans `buffer`, which starts at byte `position` of the input. After each record end
    /// and after the LF of a CRLF, calls `boundary(offset, afterCR, records, fields)` with
    /// the offset in the buffer just past it, whether a CR ended a record there (a LF may
    /// still follow and belong to it), the records completed so far, and the fields of the
    /// record that just ended (0 after the LF of a CRLF).
    /// `strayText`, when given, is called with the offset in the buffer of each byte of
    /// text that follows a closing quote (where libcsv reads differently from this rule).
    /// - Complexity: O(n), well-formed stretches 64 bytes a step.
    package mutating func scan(_ buffer: UnsafeRawBufferPointer, at position: Int64 = 0,
                               boundary: (Int, Bool, Int, Int) -> Void = { _, _, _, _ in },
                               strayText: ((Int) -> Void)? = nil) {
        withoutActuallyEscaping(boundary) { boundary in
            if counts.recordStart == .min { counts.recordStart = position }
            var visitor = Visitor(counts: counts, position: position, boundary: boundary, strayText: strayText)
            kernel.scan(buffer, at: position, into: &visitor)
            counts = visitor.counts
        }
    }

    /// Scans a whole input held in memory, fed in chunks of `chunk` bytes, and finishes it
    /// (for differential tests against libcsv).
    package static func scanning(_ bytes: [UInt8], dialect: Dialect, chunk: Int = 1 << 20,
                                 bulk: FieldKernel.Bulk = .best) -> RecordScanner {
        var scanner = RecordScanner(dialect: dialect, bulk: bulk)
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
        var visitor = Visitor(counts: counts, position: 0, boundary: { _, _, _, _ in }, strayText: nil)
        kernel.finish(into: &visitor)
        counts = visitor.counts
    }
}
