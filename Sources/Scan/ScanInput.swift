import CellStore

/// An input's bytes and index as a scan on another thread sees them: a snapshot taken on
/// the UI thread, which owns the store.
package struct ScanInput: Sendable {
    package let reader: RecordReader
    /// Records before this one were indexed with no quoting problem met before them:
    /// their raw bytes hold each cell's value, quoted or not, with only its quotes doubled.
    /// A raw-byte scan is exact only there; later records are parsed.
    package let wellQuotedRecords: Int

    /// The store's input as read now (nil until its dialect is known).
    package init?(store: CellStore) {
        guard let reader = store.recordReader() else { return nil }
        self.init(reader: reader, progress: store.progress.patched(store.patch))
    }

    package init(reader: RecordReader, progress: LoadProgress) {
        self.reader = reader
        if reader.isFinal && progress.isComplete {
            wellQuotedRecords = progress.quotingProblem.map(\.record) ?? Int.max
        } else {
            // Still loading: the records the index has passed without a problem so far.
            wellQuotedRecords = reader.wellQuotedRecords
        }
    }

    /// Bytes a scan reads at most.
    package var byteCount: Int64 { reader.end - (reader.checkpoints.first?.offset ?? 0) }

    /// A stretch of the input a scan reads in one go: whole records, between checkpoints.
    package struct Piece: Sendable {
        package var start: Int64
        package var end: Int64
        package var firstRecord: Int
        /// True when its raw bytes may be searched for candidates (else it is parsed).
        package var isRaw: Bool
        /// True when it ends the input (a last record without a line end is complete).
        package var endsInput: Bool
        package var byteCount: Int64 { end - start }
    }

    /// The pieces that hold records `range`, in order, each at most `limit` bytes unless
    /// one record is longer; raw only where `raw` and the records are well quoted.
    /// - Complexity: O(log c + pieces) for c checkpoints.
    package func pieces(for range: Range<Int>, limit: Int64, raw: Bool) -> [Piece] {
        let checkpoints = reader.checkpoints
        guard !checkpoints.isEmpty, !range.isEmpty else { return [] }
        var pieces: [Piece] = []
        var index = checkpoints.index(atOrBefore: .record(range.lowerBound)) ?? 0
        while index < checkpoints.count && checkpoints[index].row < range.upperBound {
            let start = checkpoints[index]
            let next = index + 1 < checkpoints.count ? checkpoints[index + 1] : nil
            let end = next?.offset ?? reader.end
            let isRaw = raw && (next?.row ?? Int.max) <= wellQuotedRecords
            let endsInput = next == nil && reader.isFinal
            index += 1
            if var last = pieces.last, last.isRaw == isRaw, last.end == start.offset, end - last.start <= limit {
                last.end = end
                last.endsInput = endsInput
                pieces[pieces.count - 1] = last
            } else {
                // A record longer than a piece is parsed: candidates are searched in memory.
                let fits = end - start.offset <= limit
                pieces.append(Piece(start: start.offset, end: end, firstRecord: start.row, isRaw: isRaw && fits,
                                    endsInput: endsInput))
            }
        }
        return pieces
    }
}

extension ScanInput {
    /// `pieces` in `count` runs of about equal bytes, in order: one share a worker, for
    /// every pass that spreads pieces over threads.
    package static func split(_ pieces: [Piece], into count: Int) -> [[Piece]] {
        let total = pieces.reduce(Int64(0)) { $0 + $1.byteCount }
        var shares: [[Piece]] = [[]]
        var done: Int64 = 0
        for piece in pieces {
            if done >= total * Int64(shares.count) / Int64(count) && shares.count < count && !shares[shares.count - 1].isEmpty {
                shares.append([])
            }
            shares[shares.count - 1].append(piece)
            done += piece.byteCount
        }
        return shares
    }
}

extension ScanInput {
    /// Parses `piece` with `parser`, read through `buffer` a megabyte at most at a time,
    /// and hands each batch of records to `take`; the parser is finished when the piece
    /// ends the input. Reading stops when `goesOn` says no (what was read is still
    /// finished), and stops at once, unfinished, when `isCancelled`.
    package func parse(_ piece: Piece, with parser: RecordParser, buffer: UnsafeMutableRawBufferPointer,
                       while goesOn: () -> Bool = { true }, isCancelled: () -> Bool, _ take: ([Row]) -> Void) {
        var offset = piece.start
        let chunk = min(buffer.count, 1 << 20)
        while offset < piece.end && goesOn() {
            if isCancelled() { return }
            let wanted = Int(min(Int64(chunk), piece.end - offset))
            let count = reader.source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count <= 0 { break }
            parser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
            take(parser.takeRecords())
        }
        if piece.endsInput {
            parser.finish()
            take(parser.takeRecords())
        }
    }
}
