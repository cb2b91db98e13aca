/// What the loader learned of a whole file, to be kept beside no file of the user (a
/// session) and handed back when the same file is opened again: its checkpoints and the
/// facts the screen and the passes read from the index, so the exact row count and `G`
/// come back without reading the file.
package struct IndexSnapshot: Sendable, Equatable {
    package var checkpoints: [Checkpoint]
    /// Bytes indexed: the file's size when it was read.
    package var available: Int64
    package var rowCount: Int
    package var widestRow: Int
    package var tooWideRecord: Int?
    package var endsWithTerminator: Bool
    package var wellQuotedRecords: Int
    package var firstBlankRecord: Int
    package var quotingProblem: QuotingProblem?
    package var quotingProblemCount: Int
    /// The dialect it was read in: the index holds only for the same.
    package var delimiter: UInt8
    package var quote: UInt8

    package init(checkpoints: [Checkpoint], available: Int64, rowCount: Int, widestRow: Int, tooWideRecord: Int?,
                 endsWithTerminator: Bool, wellQuotedRecords: Int, firstBlankRecord: Int, quotingProblem: QuotingProblem?,
                 quotingProblemCount: Int, delimiter: UInt8, quote: UInt8) {
        self.checkpoints = checkpoints
        self.available = available
        self.rowCount = rowCount
        self.widestRow = widestRow
        self.tooWideRecord = tooWideRecord
        self.endsWithTerminator = endsWithTerminator
        self.wellQuotedRecords = wellQuotedRecords
        self.firstBlankRecord = firstBlankRecord
        self.quotingProblem = quotingProblem
        self.quotingProblemCount = quotingProblemCount
        self.delimiter = delimiter
        self.quote = quote
    }

    /// True when the checkpoints rise in offsets and records, start where the table starts
    /// and stay within the bytes and records counted: a snapshot read from a session file
    /// is checked so before it is used.
    package func isConsistent(dataStart: Int64) -> Bool {
        guard let first = checkpoints.first, first.offset == dataStart, first.row == 0, rowCount >= 0,
              available >= dataStart, widestRow >= 0, wellQuotedRecords >= 0, wellQuotedRecords <= rowCount else { return false }
        var previous = first
        for checkpoint in checkpoints.dropFirst() {
            guard checkpoint.offset > previous.offset, checkpoint.row > previous.row,
                  checkpoint.offset < available, checkpoint.row < rowCount else { return false }
            previous = checkpoint
        }
        return true
    }

    /// Keeps every `step`th checkpoint (the first always), so the index fits a budget: rows
    /// are then parsed from farther back, the row count stays exact.
    package func thinned(toAtMost count: Int) -> IndexSnapshot {
        guard checkpoints.count > max(1, count) else { return self }
        let step = (checkpoints.count + max(1, count) - 1) / max(1, count)
        var copy = self
        copy.checkpoints = stride(from: 0, to: checkpoints.count, by: step).map { checkpoints[$0] }
        return copy
    }
}

extension CellStore {
    /// The index of a plain file read to its end, to be kept; nil for anything else (a
    /// stream, compressed or converted text, a followed file, an index not complete, a
    /// read that failed or saw the file change).
    package func indexSnapshot() -> IndexSnapshot? {
        guard case .file = loader.input, !loader.follows, !isConverted else { return nil }
        return loader.shared.withLock { state -> IndexSnapshot? in
            let progress = state.progress
            guard progress.isComplete, progress.failure == nil, !progress.wasTruncated, !progress.wasReplaced,
                  let dialect = state.dialect, !state.checkpoints.isEmpty, state.available == progress.totalBytes else { return nil }
            return IndexSnapshot(checkpoints: state.checkpoints, available: state.available, rowCount: progress.rowCount,
                                 widestRow: progress.widestRow, tooWideRecord: progress.tooWideRecord,
                                 endsWithTerminator: progress.endsWithTerminator, wellQuotedRecords: state.wellQuotedRecords,
                                 firstBlankRecord: state.firstBlankRecord, quotingProblem: progress.quotingProblem,
                                 quotingProblemCount: progress.quotingProblemCount, delimiter: dialect.delimiter,
                                 quote: dialect.quote)
        }
    }

    /// The index of a followed file as far as its records are surely whole: up to its last
    /// checkpoint (a record's start), which is then the snapshot's end, `available`. A log
    /// still being written may end in half a record; what lies past that checkpoint is read
    /// again when the file is followed next (`adoptGrown`). Nil for a file not followed, one
    /// read with a problem (a quoting problem, a record too wide), rotated, or with fewer
    /// than two checkpoints.
    package func followedIndexSnapshot() -> IndexSnapshot? {
        guard case .file = loader.input, loader.follows, !isConverted else { return nil }
        return loader.shared.withLock { state -> IndexSnapshot? in
            let progress = state.progress
            guard progress.failure == nil, !progress.wasTruncated, !progress.wasReplaced, progress.quotingProblem == nil,
                  progress.quotingProblemCount == 0, progress.tooWideRecord == nil, let dialect = state.dialect,
                  state.checkpoints.count >= 2, let cut = state.checkpoints.last else { return nil }
            return IndexSnapshot(checkpoints: Array(state.checkpoints.dropLast()), available: cut.offset, rowCount: cut.row,
                                 widestRow: progress.widestRow, tooWideRecord: nil, endsWithTerminator: true,
                                 wellQuotedRecords: min(state.wellQuotedRecords, cut.row),
                                 firstBlankRecord: state.firstBlankRecord < cut.row ? state.firstBlankRecord : Int.max,
                                 quotingProblem: nil, quotingProblemCount: 0, delimiter: dialect.delimiter, quote: dialect.quote)
        }
    }

    /// The device and inode of the file this store opened (nil for anything but a file).
    package var openedFile: (device: UInt64, inode: UInt64)? { loader.openedAs.map { ($0.device, $0.inode) } }

    /// Where the table starts in the input (past a byte-order mark and the preamble), once judged.
    package var dataStart: Int64? { loader.shared.withLock { $0.checkpoints.first?.offset } }

    /// Takes `snapshot` as the whole index of this file (opened without its loader): the
    /// rows, their count and `G` are there at once. False, and nothing changed, when the
    /// snapshot does not fit the file as it was judged now (another dialect, another start,
    /// another size) or is not consistent.
    package func adopt(_ snapshot: IndexSnapshot) -> Bool {
        guard case .file(_, let size) = loader.input, !loader.follows, size == snapshot.available else { return false }
        return loader.shared.withLock { state -> Bool in
            guard Self.fits(snapshot, state) else { return false }
            state.checkpoints = snapshot.checkpoints
            state.available = snapshot.available
            state.wellQuotedRecords = snapshot.wellQuotedRecords
            state.firstBlankRecord = snapshot.firstBlankRecord
            state.progress.totalBytes = snapshot.available
            state.progress.bytesRead = snapshot.available
            state.progress.rowCount = snapshot.rowCount
            state.progress.widestRow = snapshot.widestRow
            state.progress.tooWideRecord = snapshot.tooWideRecord
            state.progress.endsWithTerminator = snapshot.endsWithTerminator
            state.progress.quotingProblem = snapshot.quotingProblem
            state.progress.quotingProblemCount = snapshot.quotingProblemCount
            state.progress.isComplete = true
            return true
        }
    }
}

extension CellStore {
    /// True when `snapshot` was made of this file as `state` judges it now (the same
    /// dialect and start, the snapshot consistent) and nothing has been read into it yet.
    private static func fits(_ snapshot: IndexSnapshot, _ state: IndexState) -> Bool {
        guard let dialect = state.dialect, dialect.delimiter == snapshot.delimiter, dialect.quote == snapshot.quote,
              let start = state.checkpoints.first?.offset, snapshot.isConsistent(dataStart: start) else { return false }
        return !state.progress.isComplete && state.progress.bytesRead == 0
    }

    /// Takes `snapshot`, the index of this file when it was shorter (it only grew since:
    /// the caller checked its old bytes are as they were), as the index of what was there:
    /// the loader, started next, goes on from its last checkpoint instead of the start.
    /// False, and nothing changed, when it does not fit (as `adopt`), or the old part had
    /// a quoting problem or a record too wide (the scan would have to know where it was).
    /// A followed file goes on the same way, then follows (`followedIndexSnapshot`).
    package func adoptGrown(_ snapshot: IndexSnapshot) -> Bool {
        guard case .file(_, let size) = loader.input, size > snapshot.available,
              snapshot.quotingProblem == nil, snapshot.quotingProblemCount == 0, snapshot.tooWideRecord == nil,
              let last = snapshot.checkpoints.last else { return false }
        return loader.shared.withLock { state -> Bool in
            guard Self.fits(snapshot, state) else { return false }
            state.checkpoints = snapshot.checkpoints
            state.available = snapshot.available
            state.wellQuotedRecords = last.row
            state.firstBlankRecord = snapshot.firstBlankRecord < last.row ? snapshot.firstBlankRecord : Int.max
            state.progress.bytesRead = last.offset
            state.progress.rowCount = last.row
            state.progress.widestRow = snapshot.widestRow
            state.resumesAt = (last, snapshot.widestRow)
            return true
        }
    }

    /// Starts the loader of a store opened without it (`startsLoader: false`).
    package func startLoading() { loader.start() }

    /// Tells the passes and the event loop that the index changed (after `adopt`).
    package func announceIndex() {
        loader.progressSignal.notify()
        loader.onChange()
    }
}
