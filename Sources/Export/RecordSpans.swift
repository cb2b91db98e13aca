import CellStore
import CFieldScan

/// Where one record's bytes lie in the input: from its first byte to the first byte of the
/// record after it (its line ending included, both bytes of a CRLF).
package struct RecordSpan: Sendable, Equatable {
    package var record: Int
    package var start: Int64
    package var end: Int64
    /// False for the input's last record when nothing ends it.
    package var hasTerminator: Bool
    package var length: Int { Int(end - start) }
}

/// Reads an input's bytes for an export through one buffer: a stretch asked for next to
/// the last one is served from memory, so records read in the order they lie cost one large
/// `pread` per few megabytes, whatever their number.
package final class ByteWindow {
    let source: ByteSource
    private var buffer: UnsafeMutableRawBufferPointer
    private var start: Int64 = 0
    private var count = 0
    /// Bytes read from the source in all (for tests).
    private(set) var bytesRead: Int64 = 0
    /// What one read asks for at least.
    let readSize: Int
    /// What a read that is not a `prefetch` asks for at least: `readSize`, or less while
    /// records far apart are read (a sort's window).
    var readAhead: Int

    package init(source: ByteSource, readSize: Int = 1 << 22) {
        self.source = source
        self.readSize = readSize
        readAhead = readSize
        buffer = .allocate(byteCount: readSize, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Calls `body` with bytes `range` of the input (fewer at its end), read from the
    /// buffer when it holds them, else into it (it grows for a longer stretch).
    func withBytes<R>(_ range: Range<Int64>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if range.lowerBound < start || range.upperBound > start + Int64(count) {
            load(range)
        }
        let from = Int(range.lowerBound - start)
        let to = max(from, min(count, Int(range.upperBound - start)))
        return body(UnsafeRawBufferPointer(rebasing: buffer[from..<to]))
    }

    /// Reads `range` into the buffer in one go, unless the buffer holds it already.
    func prefetch(_ range: Range<Int64>) {
        guard range.lowerBound < start || range.upperBound > start + Int64(count) else { return }
        load(range, minimum: range.count)
    }

    /// Fills the buffer from `range.lowerBound`, for at least `range` and `readAhead` bytes.
    private func load(_ range: Range<Int64>, minimum: Int? = nil) {
        let wanted = max(minimum ?? readAhead, range.count)
        if buffer.count < wanted {
            buffer.deallocate()
            buffer = .allocate(byteCount: wanted, alignment: 16)
        }
        start = range.lowerBound
        count = 0
        while count < wanted {
            let read = source.read(at: start + Int64(count), into: UnsafeMutableRawBufferPointer(rebasing: buffer[count..<wanted]))
            if read <= 0 { break }
            count += read
        }
        bytesRead += Int64(count)
    }

    /// Gives back a buffer grown for one long record.
    func shrink() {
        guard buffer.count > readSize else { return }
        buffer.deallocate()
        buffer = .allocate(byteCount: readSize, alignment: 16)
        count = 0
    }
}

/// Finds records' spans with the record-boundary scanner (the parser's rules, exactly).
package struct SpanFinder {
    let reader: RecordReader
    let window: ByteWindow

    package init(reader: RecordReader, window: ByteWindow) {
        self.reader = reader
        self.window = window
    }

    /// The span of a record the index vouches is well quoted, found by its quotes and line
    /// ends alone: outside quotes the first CR or LF ends it, inside them only a quote
    /// matters (a doubled quote stays inside). Nil when the bytes read do not reach its end.
    private func wellQuotedSpan(ofRecord record: Int, at offset: Int64) -> RecordSpan? {
        let quote = reader.dialect.quote
        var found: Int64?
        var hasLF = false
        window.withBytes(offset..<min(reader.end, offset + Int64(max(256, min(window.readAhead, 1 << 16))))) { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let count = bytes.count
            var index = 0
            while index < count {
                index += cf_find_special(base + index, count - index, quote, quote)
                guard index < count else { return }
                let byte = base[index]
                if byte == quote {
                    // To the closing quote; a doubled one goes on.
                    index += 1
                    while true {
                        index += cf_find_byte(base + index, count - index, quote)
                        guard index + 1 < count else { return }
                        if base[index + 1] != quote { break }
                        index += 2
                    }
                    index += 1
                    continue
                }
                if byte == 0x0D {
                    guard index + 1 < count else { return }
                    hasLF = base[index + 1] == 0x0A
                }
                found = offset + Int64(index + 1 + (hasLF ? 1 : 0))
                return
            }
        }
        return found.map { RecordSpan(record: record, start: offset, end: $0, hasTerminator: true) }
    }

    /// The span of the record that starts at `offset` (a record's first byte).
    /// - Complexity: the scanner over the record's bytes (in steps that double).
    package func span(ofRecord record: Int, at offset: Int64, isWellQuoted: Bool = false) -> RecordSpan {
        if isWellQuoted, let span = wellQuotedSpan(ofRecord: record, at: offset) { return span }
        var scanner = RecordScanner(dialect: reader.dialect)
        var position = offset
        // The scanner reads all it is given: small steps first, for short records.
        var step: Int64 = 256
        var end: Int64?
        var afterCR = false
        while end == nil && position < reader.end {
            let stop = min(reader.end, position + step)
            let from = position
            window.withBytes(from..<stop) { bytes in
                scanner.scan(bytes) { boundary, isCR, records, _ in
                    guard end == nil, records > 0 else { return }
                    end = from + Int64(boundary)
                    afterCR = isCR
                }
            }
            position = stop
            step = min(step * 4, 1 << 24)
        }
        guard var found = end else {
            // Nothing ends it: the input's last record, to the input's end.
            return RecordSpan(record: record, start: offset, end: reader.end, hasTerminator: false)
        }
        if afterCR && found < reader.end {
            // The LF of a CRLF belongs to the record it ends.
            let isLF = window.withBytes(found..<(found + 1)) { $0.first == 0x0A }
            if isLF { found += 1 }
        }
        return RecordSpan(record: record, start: offset, end: found, hasTerminator: true)
    }

    /// The spans of `records` (in increasing order), found by scanning from the checkpoint
    /// before each through the records between; stretches holding none are never read.
    /// Calls `body` with each span in order until it returns false.
    package func forEachSpan(ofRecords records: [Int], _ body: (RecordSpan) -> Bool) {
        let checkpoints = reader.checkpoints
        guard !checkpoints.isEmpty else { return }
        var scanner = RecordScanner(dialect: reader.dialect)
        var started = false
        /// The scanner's first record and how far it has read.
        var base = 0
        var scanned: Int64 = 0
        /// Where the record being scanned starts.
        var recordStart: Int64 = 0
        /// Records ended and not handed out yet, in order.
        var pending: [RecordSpan] = []
        var first = 0   // pending[first...] are live
        for wanted in records {
            let checkpoint = checkpoints[Self.checkpoint(before: wanted, in: checkpoints)]
            let scanning = base + scanner.recordCount
            if !started || wanted < (first < pending.count ? pending[first].record : scanning) || checkpoint.row > scanning {
                started = true
                scanner = RecordScanner(dialect: reader.dialect)
                base = checkpoint.row
                scanned = checkpoint.offset
                recordStart = checkpoint.offset
                pending.removeAll(keepingCapacity: true)
                first = 0
            }
            while true {
                while first < pending.count && pending[first].record < wanted { first += 1 }
                if first < pending.count && pending[first].record == wanted {
                    let span = pending[first]
                    // After a CR, the next byte may be the LF that belongs to this record.
                    let isFinal = scanned > span.end || span.end >= reader.end || window.withBytes(span.end..<(span.end + 1)) { $0.first != 0x0A }
                    if isFinal {
                        first += 1
                        if !body(span) { return }
                        break
                    }
                }
                guard scanned < reader.end else {
                    if reader.isFinal && base + scanner.recordCount == wanted && recordStart < reader.end {
                        // The last record, with nothing after it.
                        if !body(RecordSpan(record: wanted, start: recordStart, end: reader.end, hasTerminator: false)) { return }
                    }
                    break
                }
                if first > 0 && first == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    first = 0
                }
                let from = scanned
                let stop = min(reader.end, from + (1 << 18))
                window.withBytes(from..<stop) { bytes in
                    var last = scanner.recordCount
                    scanner.scan(bytes) { end, _, records, _ in
                        let position = from + Int64(end)
                        if records > last {
                            pending.append(RecordSpan(record: base + records - 1, start: recordStart, end: position, hasTerminator: true))
                        } else if !pending.isEmpty {
                            pending[pending.count - 1].end = position   // the LF of a CRLF
                        }
                        recordStart = position
                        last = records
                    }
                }
                scanned = stop
            }
        }
    }

    /// The index of the last checkpoint at or before `record`.
    static func checkpoint(before record: Int, in checkpoints: [Checkpoint]) -> Int {
        checkpoints.index(atOrBefore: .record(record)) ?? 0
    }
}
