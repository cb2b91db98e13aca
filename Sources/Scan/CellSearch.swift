import CellStore
import Synchronization
import Table

/// A search for cells matching a pattern in an input, exact to the cell and as fast as
/// the raw bytes allow: the engine under `/`, `n` and `N`, and under filters to come.
///
/// Where the index vouches that records are well quoted, pieces of raw bytes are searched
/// with a candidate pattern (see `CandidatePattern`) and only records around a candidate
/// are parsed; elsewhere, and for patterns the candidate rewrite does not analyse, every
/// record is parsed. Both give exactly what matching each parsed cell gives. Over an
/// indexed input of some size, the pieces are shared out between the cores.
///
/// Rows that are not a file's (a sheet's, in memory) are searched cell by cell with the
/// same matcher that confirms a candidate, so both give the same matches.
package struct CellSearch: Sendable {
    package let pattern: CompiledPattern
    /// The pattern run on raw bytes, or nil when every record is parsed.
    let candidate: CompiledPattern?
    /// Only this column, or every column.
    package let column: Int?
    /// What is searched: an input's bytes, or rows.
    let source: Source

    enum Source: Sendable {
        case bytes(ScanInput)
        case rows(RowSnapshot)
    }
    /// Bytes read in one piece (a longer record is parsed).
    package var pieceLimit: Int64 = 1 << 21
    /// Threads a search may use.
    package var workers = max(1, min(2, BackgroundThread.processorCount))
    /// Inputs smaller than this are searched on one thread (starting one costs more).
    package var minimumSharedBytes: Int64 = 8 << 20

    /// A search of rows (no raw bytes to look at: every cell is matched).
    package init(rows: RowSnapshot, pattern: CompiledPattern, column: Int?) {
        source = .rows(rows)
        self.pattern = pattern
        self.column = column
        candidate = nil
        recordCandidate = nil
    }

    package init(input: ScanInput, pattern: CompiledPattern, column: Int?) {
        source = .bytes(input)
        self.pattern = pattern
        self.column = column
        let dialect = input.reader.dialect
        let loose = CandidatePattern.rewrite(pattern.text, quote: dialect.candidateQuote)
        candidate = loose
            .flatMap { try? CompiledPattern($0, ignoresCase: pattern.ignoresCase) }
            // A candidate that may be empty would stop at every record: parsing is cheaper.
            .flatMap { $0.minimumLength > 0 ? $0 : nil }
        let edged = CandidatePattern.rewrite(pattern.text, quote: dialect.candidateQuote, delimiter: dialect.delimiter)
        recordCandidate = candidate == nil || edged == loose ? nil
            : edged.flatMap { try? CompiledPattern($0, ignoresCase: pattern.ignoresCase) }
    }

    /// The candidate pattern with a cell's edges as raw bytes show them, tried on a
    /// candidate's record before it is parsed (nil when the pattern has no edges).
    let recordCandidate: CompiledPattern?

    /// True when raw bytes are searched where the input is well quoted.
    package var searchesRawBytes: Bool { candidate != nil }

    /// A match: the record and the column chosen.
    package struct Hit: Sendable, Equatable {
        package var record: Int
        package var column: Int

        package init(record: Int, column: Int) {
            self.record = record
            self.column = column
        }
    }

    /// The first record (forward) or the last (backward) in `range` for which `choose`
    /// picks a column among its matching ones; nil when none, or when cancelled.
    /// - Complexity: reads the pieces from the start of `range` (or its end, backward) to
    ///   the hit; parses only records around a candidate where the input is well quoted.
    package func find(in range: Range<Int>, forward: Bool, control: ScanControl,
                     choose: @escaping @Sendable (_ record: Int, _ columns: [Int]) -> Int?) -> Hit? {
        let input: ScanInput
        switch source {
        case .rows(let rows): return find(in: rows, range: range, forward: forward, control: control, choose: choose)
        case .bytes(let bytes): input = bytes
        }
        let pieces = input.pieces(for: range, limit: pieceLimit, raw: candidate != nil)
        let total = pieces.reduce(Int64(0)) { $0 + $1.byteCount }
        let shares = workers > 1 && total >= minimumSharedBytes ? ScanInput.split(pieces, into: workers) : [pieces]
        let hits = Mutex<[Hit?]>(Array(repeating: nil, count: shares.count))
        BackgroundScan<Int>.runConcurrently(shares.count) { share in
            let search = RecordSearch(input: input, pattern: pattern, candidate: candidate, recordCandidate: recordCandidate, column: column,
                                      bufferSize: Int(pieceLimit))
            // A share stops once one before it (forward) or after it (backward) has a hit.
            let isSettled = {
                control.isCancelled || hits.withLock { found in
                    forward ? found[..<share].contains { $0 != nil } : found[(share + 1)...].contains { $0 != nil }
                }
            }
            for piece in forward ? shares[share] : shares[share].reversed() {
                if isSettled() { return }
                var last: Hit?
                _ = search.search(piece, range: range, isCancelled: isSettled) { record, columns in
                    guard let column = choose(record, columns) else { return true }
                    last = Hit(record: record, column: column)
                    return !forward   // backward: the last one in the piece
                }
                control.advance(by: piece.byteCount)
                if let last {
                    hits.withLock { $0[share] = last }
                    return
                }
            }
        }
        if control.isCancelled { return nil }
        let found = hits.withLock { $0 }
        return forward ? found.compactMap { $0 }.first : found.compactMap { $0 }.last
    }

    /// What `find` over `range` counts as its progress: its pieces' bytes, or its rows.
    package func progressTotal(of range: Range<Int>) -> Int64 {
        switch source {
        case .rows: return Int64(range.count)
        case .bytes(let input): return input.pieces(for: range, limit: pieceLimit, raw: candidate != nil).reduce(0) { $0 + $1.byteCount }
        }
    }

    /// Work done by a search, for tests: what was parsed.
    package struct Statistics: Sendable, Equatable {
        /// Candidates' records parsed one at a time (a whole-piece parse counts once).
        package var recordParses = 0
        /// Pieces parsed record by record from their start.
        package var piecesParsed = 0
    }

    /// Calls `visit` with every record in `range` that has a matching cell, in order,
    /// with its matching columns, until it returns false (one thread; for filters).
    @discardableResult
    package func forEachMatch(in range: Range<Int>, control: ScanControl, _ visit: (Int, [Int]) -> Bool) -> Statistics {
        let input: ScanInput
        switch source {
        case .rows(let rows):
            let matcher = PatternMatcher(pattern)
            var done = 0
            rows.forEachRow(in: range) { record, row in
                if done % 4096 == 0 && control.isCancelled { return false }
                done += 1
                control.advance(by: 1)
                let columns = Self.matchingColumns(row, matcher: matcher, column: column)
                return columns.isEmpty || visit(record, columns)
            }
            return Statistics()
        case .bytes(let bytes):
            input = bytes
        }
        let search = RecordSearch(input: input, pattern: pattern, candidate: candidate, recordCandidate: recordCandidate, column: column,
                                  bufferSize: Int(pieceLimit))
        for piece in input.pieces(for: range, limit: pieceLimit, raw: candidate != nil) {
            guard search.search(piece, range: range, isCancelled: { control.isCancelled }, visit: visit) else { break }
            control.advance(by: piece.byteCount)
        }
        return Statistics(recordParses: search.confirmations, piecesParsed: search.parsedPieces)
    }

    /// The columns of `row` whose cell matches, in order (as `RecordSearch` confirms them).
    static func matchingColumns(_ row: Row, matcher: PatternMatcher, column: Int?) -> [Int] {
        if let column { return matcher.matches(row.field(column)) ? [column] : [] }
        return (0..<row.count).filter { matcher.matches(row.field($0)) }
    }

    /// `find` over rows: one thread (rows in memory are few enough), cell by cell.
    private func find(in rows: RowSnapshot, range: Range<Int>, forward: Bool, control: ScanControl,
                      choose: (Int, [Int]) -> Int?) -> Hit? {
        let matcher = PatternMatcher(pattern)
        let wanted = range.clamped(to: 0..<rows.count)
        let batch = 4096
        var start = forward ? wanted.lowerBound : wanted.upperBound
        while forward ? start < wanted.upperBound : start > wanted.lowerBound {
            if control.isCancelled { return nil }
            let stretch = forward ? start..<min(wanted.upperBound, start + batch) : max(wanted.lowerBound, start - batch)..<start
            let found = rows.rows(in: stretch)
            for offset in forward ? Array(found.indices) : Array(found.indices.reversed()) {
                let record = stretch.lowerBound + offset
                let columns = Self.matchingColumns(found[offset], matcher: matcher, column: column)
                if !columns.isEmpty, let chosen = choose(record, columns) { return Hit(record: record, column: chosen) }
            }
            control.advance(by: Int64(stretch.count))
            start = forward ? stretch.upperBound : stretch.lowerBound
        }
        return nil
    }
}
