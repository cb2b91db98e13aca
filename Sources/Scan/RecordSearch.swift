import CellStore
import CFieldScan

/// Finds the records with a matching cell in pieces of an input, on one thread.
///
/// A raw piece is read whole and searched with the candidate pattern (see
/// `CandidatePattern`); a piece with no candidate is never parsed. Around a candidate,
/// the record-boundary scanner finds its record (from the piece's start, a checkpoint, or
/// the last record confirmed) and the parser splits that one record into cells, each
/// matched with the pattern itself. Other pieces are parsed record by record.
final class RecordSearch {
    let input: ScanInput
    let cells: PatternMatcher
    let candidates: PatternMatcher?
    let recordCandidates: PatternMatcher?
    let column: Int?
    private let buffer: UnsafeMutableRawBufferPointer
    /// Room for the record ends the bulk boundary scan finds.
    private let ends: UnsafeMutableBufferPointer<cf_record_end>
    /// Splits a candidate's record into cells where the index vouches for its quoting.
    private var splitter: WellQuotedSplitter
    /// Counters for tests: records parsed to confirm a candidate, and pieces parsed whole.
    private(set) var confirmations = 0
    /// Where the piece being searched starts in the input (the buffer holds it from there).
    private var pieceStart: Int64 = 0
    private(set) var parsedPieces = 0

    init(input: ScanInput, pattern: CompiledPattern, candidate: CompiledPattern?, recordCandidate: CompiledPattern? = nil,
         column: Int?, bufferSize: Int) {
        self.input = input
        cells = PatternMatcher(pattern)
        candidates = candidate.map(PatternMatcher.init)
        recordCandidates = recordCandidate.map(PatternMatcher.init)
        self.column = column
        buffer = .allocate(byteCount: max(1, bufferSize), alignment: 16)
        ends = .allocate(capacity: 512)
        splitter = WellQuotedSplitter(dialect: input.reader.dialect)
    }

    deinit {
        buffer.deallocate()
        ends.deallocate()
    }

    /// Candidates confirmed one by one in a piece before the rest of it may be parsed whole.
    static let candidatesBeforeParsing = 16
    /// Past `candidatesBeforeParsing`, the rest of a piece is parsed whole only when at least
    /// one record in this many held a candidate: a match in 3 % of the records (a city in a
    /// column) is confirmed record by record, a pattern found in most records is parsed.
    static let denseCandidates = 4
    /// True when `confirmed` candidates among the first `records` records of a piece make
    /// it dense (see `candidatesBeforeParsing` and `denseCandidates`).
    static func isDense(confirmed: Int, of records: Int) -> Bool {
        confirmed >= candidatesBeforeParsing && confirmed * denseCandidates >= records
    }

    /// The longest cell the parser keeps whole.
    static let longestWholeCell = RecordParser.Limits().cell

    /// The columns of `row` whose cell matches, in order.
    func matchingColumns(_ row: Row) -> [Int] {
        if let column {
            return matches(row, column) ? [column] : []
        }
        if !row.clipped.isEmpty { return (0..<row.count).filter { matches(row, $0) } }
        // Each cell's bytes in place: a slice per cell cost a retain and a release.
        return row.bytes.withUnsafeBytes { bytes in
            var columns: [Int] = []
            var start = 0
            for (index, end) in row.ends.enumerated() {
                if cells.matches(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { columns.append(index) }
                start = end
            }
            return columns
        }
    }

    /// Whether cell `column` of `row` matches: the whole cell, read from the input when the
    /// parser kept only its start (a cell over 1 MiB is matched whole, as it shows).
    private func matches(_ row: Row, _ column: Int) -> Bool {
        guard row.isClipped(column), let whole = InputCell(row: row, column: column, reader: input.reader) else {
            return cells.matches(row.field(column))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(whole.length)
        guard whole.read({ bytes.append(contentsOf: $0); return true }) else { return cells.matches(row.field(column)) }
        return cells.matches(bytes[...])
    }

    /// Calls `visit` with each record in `range` of `piece` that has a matching cell, in
    /// order, until it returns false; then returns false. `advance` hears of bytes done.
    func search(_ piece: ScanInput.Piece, range: Range<Int>, isCancelled: () -> Bool,
                visit: (Int, [Int]) -> Bool) -> Bool {
        pieceStart = piece.start
        if piece.isRaw, let candidates, Int64(buffer.count) >= piece.byteCount {
            return searchRaw(piece, candidates: candidates, range: range, isCancelled: isCancelled, visit: visit)
        }
        return parse(piece, range: range, isCancelled: isCancelled, visit: visit)
    }

    /// Parses a piece in chunks and matches every record of `range` in it.
    private func parse(_ piece: ScanInput.Piece, range: Range<Int>, isCancelled: () -> Bool,
                       visit: (Int, [Int]) -> Bool) -> Bool {
        parsedPieces += 1
        guard let parser = try? RecordParser(dialect: input.reader.dialect) else { return true }
        var record = piece.firstRecord
        var offset = piece.start
        func deliver() -> Bool {
            for var row in parser.takeRecords() {
                defer { record += 1 }
                if record >= range.upperBound { return false }
                if record >= range.lowerBound {
                    if !row.clipped.isEmpty { row.origin = RecordOrigin(offset: piece.start, recordsBefore: record - piece.firstRecord) }
                    let columns = matchingColumns(row)
                    if !columns.isEmpty && !visit(record, columns) { return false }
                }
            }
            return true
        }
        let chunk = min(buffer.count, 1 << 20)
        while offset < piece.end {
            if isCancelled() { return false }
            let wanted = Int(min(Int64(chunk), piece.end - offset))
            let count = input.reader.source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count <= 0 { break }
            parser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
            if !deliver() { return false }
            if record >= range.upperBound { return true }
        }
        if piece.endsInput {
            parser.finish()
            return deliver()
        }
        return true
    }

    /// Parses the records in `bytes` (which start at a record boundary) and matches those
    /// of `range`; returns whether `visit` wants more, and how many records there were.
    private func parseInMemory(_ bytes: UnsafeRawBufferPointer, firstRecord: Int, range: Range<Int>,
                               visit: (Int, [Int]) -> Bool) -> (goesOn: Bool, records: Int) {
        confirmations += 1
        guard let parser = try? RecordParser(dialect: input.reader.dialect) else { return (true, 0) }
        parser.parse(bytes)
        parser.finish()
        var rows = parser.takeRecords()
        // `bytes` lie in the buffer, which holds the piece: where its records start in the input.
        if let start = bytes.baseAddress, let base = buffer.baseAddress {
            rows.noteOrigins(from: pieceStart + Int64(start - UnsafeRawPointer(base)))
        }
        for (offset, row) in rows.enumerated() where range.contains(firstRecord + offset) {
            let columns = matchingColumns(row)
            if !columns.isEmpty && !visit(firstRecord + offset, columns) { return (false, rows.count) }
        }
        return (true, rows.count)
    }

    private func searchRaw(_ piece: ScanInput.Piece, candidates: PatternMatcher, range: Range<Int>,
                           isCancelled: () -> Bool, visit: (Int, [Int]) -> Bool) -> Bool {
        // Read the piece whole: a candidate can then never be cut at a buffer's edge.
        let filled = input.read(piece, into: buffer)
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<filled])
        let dialect = input.reader.dialect
        if WellQuotedBoundaries.applies(delimiter: dialect.delimiter, quote: dialect.quote) {
            return searchWellQuoted(bytes, piece: piece, candidates: candidates, range: range, isCancelled: isCancelled, visit: visit)
        }
        // The record where the next candidate is looked for, and a scanner that started there.
        var recordStart = 0
        var record = piece.firstRecord
        var scanner = RecordScanner(dialect: dialect)
        var scannerBase = record
        var scannedTo = 0
        var startFollowsCR = false
        var confirmed = 0
        while recordStart < filled {
            if isCancelled() { return false }
            if record >= range.upperBound { return true }
            // When candidates are many, one parse of the rest beats a parse per record.
            let isDense = Self.isDense(confirmed: confirmed, of: record - piece.firstRecord)
            let found = isDense ? .gaveUp : candidates.firstMatch(in: bytes, from: recordStart)
            guard case .match(let match) = found else {
                if found == .none { return true }
                // Too many candidates, or too costly for the candidate pattern: parse the rest.
                let start = startFollowsCR && bytes[recordStart] == 0x0A ? recordStart + 1 : recordStart
                return parseInMemory(UnsafeRawBufferPointer(rebasing: bytes[start...]), firstRecord: record,
                                     range: range, visit: visit).goesOn
            }
            // Follow record ends up to the candidate's first byte (the record it is in
            // may end right after it).
            let candidate = match.lowerBound
            var recordEnd: Int?
            var endFollowsCR = false
            if candidate >= scannedTo {
                let from = scannedTo
                scanner.scan(UnsafeRawBufferPointer(rebasing: bytes[from...candidate]), at: 0) { end, afterCR, records, _ in
                    if from + end <= candidate {
                        recordStart = from + end
                        record = scannerBase + records
                        startFollowsCR = afterCR
                    } else if scannerBase + records > record {
                        recordEnd = from + end
                        endFollowsCR = afterCR
                    }
                }
                scannedTo = candidate + 1
            }
            // The LF of a CRLF belongs to the record before.
            let start = startFollowsCR && bytes[recordStart] == 0x0A ? recordStart + 1 : recordStart
            // Then on to the end of that record.
            while recordEnd == nil && scannedTo < filled {
                let from = scannedTo
                let stop = min(filled, from + 4096)
                scanner.scan(UnsafeRawBufferPointer(rebasing: bytes[from..<stop]), at: 0) { end, afterCR, records, _ in
                    guard recordEnd == nil, scannerBase + records > record else { return }
                    recordEnd = from + end
                    endFollowsCR = afterCR
                }
                scannedTo = stop
            }
            let end = recordEnd ?? filled
            if record >= range.upperBound { return true }
            var records = 1
            let recordBytes = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            // A record whose bytes do not show the cell's edges where the pattern wants
            // them is passed over unparsed; unless it is long enough for a cell to be
            // clipped, since a clipped cell ends where its raw bytes do not.
            let edgesShow = recordBytes.count > Self.longestWholeCell
                || recordCandidates?.firstMatch(in: recordBytes) != PatternMatcher.Result.none
            if record >= range.lowerBound && edgesShow {
                confirmed += 1
                let parsed = parseInMemory(recordBytes, firstRecord: record, range: range, visit: visit)
                if !parsed.goesOn { return false }
                records = max(1, parsed.records)   // 1: the scanner follows the parser's rules
            }
            // Look again from the next record, with a scanner that starts there.
            recordStart = endFollowsCR && end < filled && bytes[end] == 0x0A ? end + 1 : end
            record += records
            scanner = RecordScanner(dialect: dialect)
            scannerBase = record
            scannedTo = recordStart
            startFollowsCR = false
        }
        return true
    }

    /// `searchRaw` over bytes whose quoting the index vouches for: record ends are followed
    /// by the bulk boundary scan alone (no visitor per record), and a candidate's record
    /// shorter than the longest whole cell is split into cells without the parser (no
    /// cell of it can be clipped); both read such records as the parser does.
    private func searchWellQuoted(_ bytes: UnsafeRawBufferPointer, piece: ScanInput.Piece, candidates: PatternMatcher,
                                  range: Range<Int>, isCancelled: () -> Bool, visit: (Int, [Int]) -> Bool) -> Bool {
        let filled = bytes.count
        let dialect = input.reader.dialect
        var boundaries = WellQuotedBoundaries(bytes, from: 0, delimiter: dialect.delimiter, quote: dialect.quote, ends: ends)
        // The record where the next candidate is looked for.
        var recordStart = 0
        var record = piece.firstRecord
        var confirmed = 0
        while recordStart < filled {
            if isCancelled() { return false }
            if record >= range.upperBound { return true }
            let isDense = Self.isDense(confirmed: confirmed, of: record - piece.firstRecord)
            // Candidates in most records: every record is confirmed, with no search for them.
            let found = isDense ? .match(recordStart..<recordStart) : candidates.firstMatch(in: bytes, from: recordStart)
            guard case .match(let match) = found else {
                if found == .none { return true }
                return parseInMemory(UnsafeRawBufferPointer(rebasing: bytes[recordStart...]), firstRecord: record,
                                     range: range, visit: visit).goesOn
            }
            // Follow record ends to the record that holds the candidate's first byte.
            var end = filled
            var following = filled
            while true {
                end = boundaries.nextEnd() ?? filled
                following = end < filled && bytes[end - 1] == 0x0D && bytes[end] == 0x0A ? end + 1 : end
                if following > match.lowerBound || following >= filled { break }
                recordStart = following
                record += 1
            }
            if record >= range.upperBound { return true }
            let recordBytes = UnsafeRawBufferPointer(rebasing: bytes[recordStart..<end])
            let edgesShow = isDense || recordBytes.count > Self.longestWholeCell
                || recordCandidates?.firstMatch(in: recordBytes) != PatternMatcher.Result.none
            if record >= range.lowerBound && edgesShow {
                confirmed += 1
                if recordBytes.count < Self.longestWholeCell {
                    confirmations += 1
                    var columns: [Int] = []
                    splitter.split(recordBytes) { row in columns = matchingColumns(row) }
                    if !columns.isEmpty && !visit(record, columns) { return false }
                } else if !parseInMemory(recordBytes, firstRecord: record, range: range, visit: visit).goesOn {
                    return false
                }
            }
            recordStart = following
            record += 1
        }
        return true
    }
}
