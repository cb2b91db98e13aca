/// How far the background loader has come, as the screen shows it.
package struct LoadProgress: Sendable, Equatable {
    /// Records indexed so far (exact once `isComplete`).
    package var rowCount = 0
    /// Bytes of the input read so far.
    package var bytesRead: Int64 = 0
    /// The input's size when known in advance (a regular file), else nil.
    package var totalBytes: Int64?
    /// For compressed input: compressed bytes read so far, and the compressed file's size
    /// (nil through a pipe). Progress and the time left count these.
    package var packedBytesRead: Int64 = 0
    package var packedSize: Int64?
    /// The compression of the input (`gzip`, …), once known; nil for plain text.
    package var compression: String?
    /// True once the whole input has been read and indexed.
    package var isComplete = false
    /// The most cells any record has.
    package var widestRow = 0
    /// The first record (0 is the first, header included) with more fields than a record
    /// held in memory keeps (`RecordParser.Limits.fieldLimit`), if any: the screen shows
    /// only its first fields, and output that reads records from the store refuses it.
    package var tooWideRecord: Int?
    /// True when the input's last byte ends a record (so CSV output ends with a newline).
    package var endsWithTerminator = true
    /// True while following a file that has nothing new: everything is read for now.
    package var isCaughtUp = false
    /// Seconds since the loader started, at the last update.
    package var elapsed: Double = 0
    /// A read error that stopped the loader, if any.
    package var failure: String?
    /// A note about the input for the status line: it waits for a writer, reading paused
    /// at the spool limit, the file changed on disk.
    package var notice: String?
    /// True when a followed file became shorter, so it must be read again from its start.
    package var wasTruncated = false
    /// True when a followed file's name came to hold another file (a log rotated by
    /// renaming), so the new file must be read.
    package var wasReplaced = false
    /// The first malformed quoting met (read leniently), and how many there were.
    package var quotingProblem: QuotingProblem?
    package var quotingProblemCount = 0

    package init() {}

    /// Bytes read per second so far (0 until measurable).
    package var bytesPerSecond: Double {
        elapsed > 0.01 ? Double(bytesRead) / elapsed : 0
    }

    /// Seconds still to go at the rate so far, when the size is known.
    package var secondsLeft: Double? {
        if let packed = packedSize {
            guard elapsed > 0.01, packedBytesRead > 0 else { return nil }
            return Double(max(0, packed - packedBytesRead)) / (Double(packedBytesRead) / elapsed)
        }
        guard let total = totalBytes, bytesPerSecond > 0 else { return nil }
        return Double(max(0, total - bytesRead)) / bytesPerSecond
    }

    /// The fraction of the input read, when its size is known.
    package var fractionRead: Double? {
        if let packed = packedSize {
            return packed > 0 ? min(1, Double(packedBytesRead) / Double(packed)) : nil
        }
        guard let total = totalBytes, total > 0 else { return nil }
        return min(1, Double(bytesRead) / Double(total))
    }
}

/// Malformed quoting, as a user can find it: the record, the line, and what is wrong.
package struct QuotingProblem: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case quoteInUnquotedField, textAfterClosingQuote, unclosedQuote
    }
    package var kind: Kind
    /// The record (0 is the first, header included).
    package var record: Int
    /// The physical line of the input (1 is the first), once known.
    package var line: Int?

    package init(kind: Kind, record: Int, line: Int? = nil) {
        self.kind = kind
        self.record = record
        self.line = line
    }

    /// What is wrong, in a few words.
    package var summary: String {
        switch kind {
        case .quoteInUnquotedField: return "a quote inside an unquoted field"
        case .textAfterClosingQuote: return "text after a closing quote"
        case .unclosedQuote: return "a quote that is never closed"
        }
    }
}

/// A byte offset where a record starts, with that record's number: the loader's index.
package struct Checkpoint: Sendable, Equatable {
    package var offset: Int64
    package var row: Int

    package init(offset: Int64, row: Int) {
        self.offset = offset
        self.row = row
    }
}

extension Checkpoint {
    /// A place in the input that checkpoints are ordered by: a record, or a byte offset.
    package enum Place: Sendable {
        case record(Int)
        case offset(Int64)
    }
}

extension Array where Element == Checkpoint {
    /// The index of the last checkpoint at or before `place`, or nil when there is none (no
    /// checkpoints, or the first is after it): checkpoints rise in records and in offsets.
    /// - Complexity: O(log n) in the number of checkpoints.
    package func index(atOrBefore place: Checkpoint.Place) -> Int? {
        // The first checkpoint past `place`.
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            let checkpoint = self[middle]
            let isAtOrBefore = switch place {
            case .record(let record): checkpoint.row <= record
            case .offset(let offset): checkpoint.offset <= offset
            }
            if isAtOrBefore { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }
}

/// What the loader shares with the reader: progress, the checkpoints, and the dialect.
package struct IndexState: Sendable {
    var progress = LoadProgress()
    var checkpoints: [Checkpoint] = []
    var dialect: Dialect?
    /// Lines before the table (see `PreambleRule`).
    var preamble: [String] = []
    /// Bytes from the start of the input that can be read now.
    var available: Int64 = 0
    /// Records indexed so far before any quoting problem: those before the first problem's
    /// record, or every completed one (a search reads their raw bytes; see `Scan`).
    var wellQuotedRecords = 0
    /// The first blank line indexed, if any (Int.max: none).
    var firstBlankRecord = Int.max
    /// Where the loader goes on from in a file that grew since its index was kept (the
    /// last checkpoint kept, and the widest record before it), instead of its start.
    var resumesAt: (checkpoint: Checkpoint, widest: Int)?

    /// The index of the last checkpoint at or before `row`.
    /// - Complexity: O(log n) in the number of checkpoints.
    func checkpointIndex(for row: Int) -> Int? {
        checkpoints.index(atOrBefore: .record(row))
    }
}
