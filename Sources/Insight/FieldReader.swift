#if canImport(Glibc)
import Glibc
#endif
import CellStore
import CFieldScan
import Scan
import Table

/// What a pass hands each cell it reads to.
protocol CellSink {
    /// Cell `column` of data record `record` (empty for a cell the record lacks).
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int)
    /// Cell `column` of data record `record`, longer than `LongValue.threshold` bytes.
    mutating func longCell(_ value: LongValue, column: Int, record: Int)
    /// Cell `column` of the record about to be handed on, before any of its cells is: a
    /// sink may start loading what `cell` will touch, so that a record's lookups overlap
    /// (the raw reader calls it; nothing may be counted here).
    mutating func willTake(_ bytes: UnsafeRawBufferPointer, column: Int)
}

extension CellSink {
    @inline(__always)
    mutating func willTake(_ bytes: UnsafeRawBufferPointer, column: Int) {}
}

/// The records a pass counts: those from `first` on (after the header), before `end`, that
/// `chosen` holds, or all of them.
struct RecordFilter: Sendable {
    let first: Int
    let chosen: [UInt64]?
    /// Records from here on are not counted (a pass following an input still loading stops
    /// at the last record known whole).
    var end = Int.max

    init(first: Int, chosen: [UInt64]? = nil) {
        self.first = first
        self.chosen = chosen
    }

    @inline(__always)
    func accepts(_ record: Int) -> Bool {
        guard record >= first && record < end else { return false }
        guard let chosen else { return true }
        let word = record >> 6
        return word < chosen.count && chosen[word] & (1 << UInt64(record & 63)) != 0
    }

    /// The records of `sequence`, once it is complete (nil when cancelled first): one bit
    /// per record of the input, whatever the sequence's order.
    static func of(_ sequence: any RecordSequence, first: Int, control: ScanControl) -> RecordFilter? {
        while true {
            let version = sequence.changes.version
            if sequence.isComplete { break }
            guard control.wait(for: sequence.changes, past: version) else { return nil }
        }
        let isCancelled = { control.isCancelled }
        var bits: [UInt64] = []
        var index = 0
        let count = sequence.count
        while index < count {
            if isCancelled() { return nil }
            for ref in sequence.records(in: index..<min(count, index + 65_536)) where ref.record >= 0 {
                let word = ref.record >> 6
                if word >= bits.count { bits.append(contentsOf: repeatElement(0, count: word + 1 - bits.count)) }
                bits[word] |= 1 << UInt64(ref.record & 63)
            }
            index += 65_536
        }
        return RecordFilter(first: first, chosen: bits)
    }
}

/// Reads the cells of `columns` from pieces of an input, exactly as the parser reads them.
///
/// A raw piece (records the index vouches are well quoted) is read whole and the field
/// kernel finds its fields in its bytes (`RawRecords` is its visitor): a value is handed
/// on where it lies in the buffer, or joined in a copy when it holds a doubled quote, and
/// past the last wanted column the kernel skips to the record's end in bulk. The parser,
/// and not this reader, handles every other piece, any record longer than the parser keeps
/// whole, and anything in a raw piece that is not as the index promised; it streams, so no
/// cell is cut and a cell longer than the parser keeps arrives as a `LongValue`.
final class FieldReader {
    let input: ScanInput
    let columns: Range<Int>
    let filter: RecordFilter
    /// Asked between chunks of a piece that is parsed: a record of gigabytes (`/dev/zero`)
    /// is one piece, and its owner must not wait for the whole of it to stop.
    var isCancelled: () -> Bool = { false }
    /// The kernel's bulk scan (tests compare them).
    var bulk = FieldKernel.Bulk.best
    private let buffer: UnsafeMutableRawBufferPointer
    /// Per wanted column: where its value is in the buffer, and the record it belongs to
    /// (behind a pointer: a class's array property pays an exclusivity check per access).
    private let spans: UnsafeMutablePointer<ValueSpan>
    /// Records longer than this are parsed (the parser clips cells past its limit).
    static let longestRawRecord = RecordParser.Limits().cell
    /// Pieces parsed record by record (for tests).
    private(set) var parsedPieces = 0
    /// Raw pieces handed to the parser part way, at something the index did not promise
    /// (for tests).
    private(set) var rawFallbacks = 0
    /// The field ends of a raw piece (`cf_field_ends`), and where values with doubled
    /// quotes are made single: grown on first use.
    private var ends = FieldEnds()
    private var scratch = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    /// A block of records' value spans, and their records (see `splitFields`).
    private var block = UnsafeMutableBufferPointer<(start: UInt32, length: UInt32)>(start: nil, count: 0)
    private var blockRecordNumbers = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    /// True when the sink's columns are independent: a raw piece's values may then be
    /// handed over column by column, a block of records at a time (the band's pictures).
    var byColumn = false

    init(input: ScanInput, columns: Range<Int>, filter: RecordFilter, bufferSize: Int) {
        self.input = input
        self.columns = columns
        self.filter = filter
        buffer = .allocate(byteCount: max(16, bufferSize), alignment: 16)
        spans = .allocate(capacity: max(1, columns.count))
        spans.initialize(repeating: ValueSpan(start: 0, count: 0, record: -1), count: max(1, columns.count))
    }

    deinit {
        buffer.deallocate()
        spans.deallocate()
        scratch.deallocate()
        block.deallocate()
        blockRecordNumbers.deallocate()
    }

    /// Hands every cell of `columns` of every record `filter` accepts in `piece` to `sink`.
    func read<Sink: CellSink>(_ piece: ScanInput.Piece, into sink: inout Sink) {
        if piece.isRaw && Int64(buffer.count) >= piece.byteCount && columns.upperBound <= RecordParser.Limits().cells {
            readRaw(piece, into: &sink)
        } else {
            parsedPieces += 1
            parse(piece, into: &sink)
        }
    }

    private func parse<Sink: CellSink>(_ piece: ScanInput.Piece, into sink: inout Sink) {
        guard let parser = try? RecordParser(dialect: input.reader.dialect, streams: true) else { return }
        var cells = CellAssembler(columns: columns, filter: filter, reader: input.reader, origin: piece.start,
                                  firstRecord: piece.firstRecord)
        // Parsing ends past the filter's last record: a piece may run to the end of what
        // is read (the band's first round over a file still loading: it parsed the file).
        let pastEnd = PastEnd()
        let end = filter.end
        input.parse(piece, with: parser, buffer: buffer, while: { !pastEnd.value }, isCancelled: isCancelled) { rows in
            for row in rows { cells.take(row, into: &sink) }
            if cells.record >= end { pastEnd.value = true }
        }
    }

    /// Set once a parse has passed the records it wants.
    private final class PastEnd {
        var value = false
    }

    /// Parses records held in memory from `bytes` on (they start at a record boundary, at
    /// byte `offset` of the input).
    private func parseInMemory<Sink: CellSink>(_ bytes: UnsafeRawBufferPointer, at offset: Int64, firstRecord: Int,
                                               endsInput: Bool, into sink: inout Sink) {
        guard let parser = try? RecordParser(dialect: input.reader.dialect, streams: true) else { return }
        var cells = CellAssembler(columns: columns, filter: filter, reader: input.reader, origin: offset, firstRecord: firstRecord)
        parser.parse(bytes)
        if endsInput { parser.finish() }
        for row in parser.takeRecords() { cells.take(row, into: &sink) }
    }

    private func readRaw<Sink: CellSink>(_ piece: ScanInput.Piece, into sink: inout Sink) {
        let filled = input.read(piece, into: buffer)
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<filled])
        if splitFields(bytes, piece: piece, into: &sink) { return }
        var kernel = FieldKernel(dialect: input.reader.dialect, bulk: bulk)
        let (stopped, record, recordStart) = withUnsafeMutablePointer(to: &sink) { sink in
            var visitor = RawRecords(sink: sink, spans: spans, bytes: bytes, columns: columns,
                                     filter: filter, firstRecord: piece.firstRecord)
            kernel.scan(bytes, at: piece.start, into: &visitor)
            // A record cut short at the piece's end is read with the next piece.
            if !visitor.isStopped && piece.endsInput { kernel.finish(into: &visitor) }
            return (visitor.isStopped, visitor.record, visitor.recordStart)
        }
        if stopped {
            // Not as promised, or too long to keep whole: the parser reads the rest.
            rawFallbacks += 1
            parseInMemory(UnsafeRawBufferPointer(rebasing: bytes[recordStart...]), at: piece.start + Int64(recordStart),
                          firstRecord: record, endsInput: piece.endsInput, into: &sink)
        }
    }
}

extension FieldReader {
    /// Reads a whole raw piece from the ends of its fields, found 64 bytes a step
    /// (`cf_field_ends`, as SQL's raw rows): false, having handed over nothing, when the
    /// bytes end inside quotes (not as the index vouched; the field kernel reads them).
    /// A quoted field that does not end in its quote, or a record longer than the parser
    /// keeps whole, hands the rest to the parser, as the kernel's visitor does.
    ///
    /// The values are gathered a block of records at a time and handed over record by
    /// record, or with `byColumn` column by column (each column's records in order): a
    /// sink whose columns are independent then keeps one column's counts in the nearest
    /// cache for a whole block, instead of touching every column's at each record.
    fileprivate func splitFields<Sink: CellSink>(_ bytes: UnsafeRawBufferPointer, piece: ScanInput.Piece,
                                                 into sink: inout Sink) -> Bool {
        let filled = bytes.count
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), filled > 0, filled < 1 << 30,
              bulk != .off else { return false }
        let dialect = input.reader.dialect
        let quote = dialect.quote, low = columns.lowerBound, high = columns.upperBound, width = high - low
        guard let ends = self.ends.room(for: filled + 2) else { return false }
        var inQuotes: Int32 = 0
        var recordEnds = 0
        var count = cf_field_ends_at(bulk.level, base, filled, dialect.delimiter, quote, max(1, high), ends, &inQuotes, &recordEnds)
        guard inQuotes == 0 else { return false }
        // The input's last record may have no line end.
        if piece.endsInput && (count == 0 || ends[count - 1] & (1 << 31) == 0 || Int(ends[count - 1] & 0x7FFF_FFFF) + 1 < filled) {
            ends[count] = UInt32(filled) | (1 << 31)
            count += 1
        }
        // A block: per column, its values' spans (bit 31 of the length: doubled quotes
        // inside, made single when handed over), record after record; and the records.
        let blockRecords = max(16, min(256, 8192 / max(1, width)))
        let spanCount = blockRecords * max(1, width)
        if block.count < spanCount {
            block.deallocate()
            block = .allocate(capacity: spanCount)
        }
        if blockRecordNumbers.count < blockRecords {
            blockRecordNumbers.deallocate()
            blockRecordNumbers = .allocate(capacity: blockRecords)
        }
        if scratch.count < Self.longestRawRecord + 1 {
            scratch.deallocate()
            scratch = .allocate(capacity: Self.longestRawRecord + 1)
        }
        let block = self.block.baseAddress!, records = blockRecordNumbers.baseAddress!, scratch = self.scratch.baseAddress!
        let filter = self.filter, byColumn = self.byColumn
        var held = 0
        @inline(__always) func value(_ span: (start: UInt32, length: UInt32)) -> UnsafeRawBufferPointer {
            let length = Int(span.length & 0x7FFF_FFFF)
            guard length > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            guard span.length & (1 << 31) != 0 else { return UnsafeRawBufferPointer(start: base + Int(span.start), count: length) }
            // Each doubled quote ends a stretch copied whole and is kept once.
            var used = 0, at = Int(span.start)
            let end = at + length
            while at < end {
                let stretch = cf_find_byte(base + at, end - at, quote)
                let through = min(end - at, stretch + 1)
                (scratch + used).update(from: base + at, count: through)
                used += through
                at += through + 1
            }
            return UnsafeRawBufferPointer(start: scratch, count: used)
        }
        func flush() {
            if byColumn {
                for slot in 0..<width {
                    let spans = block + slot * blockRecords
                    for index in 0..<held { sink.cell(value(spans[index]), column: low + slot, record: records[index]) }
                }
            } else {
                for index in 0..<held {
                    for slot in 0..<width where block[slot * blockRecords + index].length & (1 << 31) == 0 {
                        let bytes = value(block[slot * blockRecords + index])
                        if bytes.count > 0 { sink.willTake(bytes, column: low + slot) }
                    }
                    for slot in 0..<width { sink.cell(value(block[slot * blockRecords + index]), column: low + slot, record: records[index]) }
                }
            }
            held = 0
        }
        var record = piece.firstRecord
        var column = 0
        var fieldStart = 0
        var recordStart = 0
        var accepted = filter.accepts(record)
        for index in 0..<count {
            let entry = ends[index]
            let isRecordEnd = entry & (1 << 31) != 0
            var fieldEnd = Int(entry & 0x7FFF_FFFF)
            let next = fieldEnd + 1
            if accepted && column >= low && column < high {
                if isRecordEnd && fieldEnd > fieldStart && fieldEnd < filled && base[fieldEnd] == 0x0A && base[fieldEnd - 1] == 0x0D {
                    fieldEnd -= 1   // the CR of a CRLF
                }
                var span = (start: UInt32(fieldStart), length: UInt32(fieldEnd - fieldStart))
                if fieldStart < fieldEnd && base[fieldStart] == quote {
                    guard fieldEnd - fieldStart >= 2 && base[fieldEnd - 1] == quote else {
                        // Text after a closing quote: the parser reads from this record on.
                        flush()
                        rawFallbacks += 1
                        parseRest(bytes, from: recordStart, piece: piece, record: record, into: &sink)
                        return true
                    }
                    let start = fieldStart + 1, end = fieldEnd - 1
                    span = (UInt32(start), UInt32(end - start))
                    if end > start && cf_find_byte(base + start, end - start, quote) < end - start { span.length |= 1 << 31 }
                }
                block[(column - low) * blockRecords + held] = span
            }
            column += 1
            fieldStart = next
            guard isRecordEnd else { continue }
            if (next > filled ? filled : next) - recordStart > Self.longestRawRecord {
                flush()
                rawFallbacks += 1
                parseRest(bytes, from: recordStart, piece: piece, record: record, into: &sink)
                return true
            }
            if accepted {
                // Fields the record lacks are empty.
                var slot = max(0, column - low)
                while slot < width {
                    block[slot * blockRecords + held] = (0, 0)
                    slot += 1
                }
                records[held] = record
                held += 1
                if held == blockRecords { flush() }
            }
            record += 1
            accepted = filter.accepts(record)
            column = 0
            recordStart = next
        }
        flush()
        return true
    }

    /// Hands the records from `from` in a raw piece's bytes (at record `record`) to the parser.
    private func parseRest<Sink: CellSink>(_ bytes: UnsafeRawBufferPointer, from: Int, piece: ScanInput.Piece, record: Int,
                                           into sink: inout Sink) {
        parseInMemory(UnsafeRawBufferPointer(rebasing: bytes[from...]), at: piece.start + Int64(from),
                      firstRecord: record, endsInput: piece.endsInput, into: &sink)
    }
}

/// Room for the field ends of a piece: one for each byte at worst (8 MiB for a 2 MiB piece),
/// mapped from the system directly, so only the ends written take memory. From malloc,
/// freeing a block that large raised glibc's threshold for mapping blocks to its size, and
/// a frequency table's grown arrays then stayed on the heap: 15 MiB more at its peak.
final class FieldEnds {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0

    /// Room for `count` ends (nil when the system has none to give).
    func room(for count: Int) -> UnsafeMutablePointer<UInt32>? {
        if capacity < count {
            release()
            #if canImport(Glibc)
            let mapped = mmap(nil, count * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let mapped, mapped != MAP_FAILED else { return nil }
            base = mapped
            #else
            base = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 4)
            #endif
            capacity = count
        }
        return base?.assumingMemoryBound(to: UInt32.self)
    }

    private func release() {
        guard let base else { return }
        #if canImport(Glibc)
        munmap(base, capacity * 4)
        #else
        base.deallocate()
        #endif
        self.base = nil
        capacity = 0
    }

    deinit { release() }
}

/// Where a value lies in a raw piece's buffer (`count` -1: joined in a copy), and its record.
struct ValueSpan {
    var start: Int
    var count: Int
    var record: Int
}

/// The field kernel's visitor for a raw piece: keeps where each wanted value lies and hands
/// a record's values to the sink when it ends; stops at a quoting problem or at a record
/// longer than the parser keeps whole (the reader hands the rest to the parser).
struct RawRecords<Sink: CellSink>: FieldVisitor {
    let sink: UnsafeMutablePointer<Sink>
    let spans: UnsafeMutablePointer<ValueSpan>
    let bytes: UnsafeRawBufferPointer
    let low: Int
    let high: Int
    let filter: RecordFilter
    /// The record being read, and where it starts in the buffer.
    private(set) var record: Int
    private(set) var recordStart = 0
    private(set) var isStopped = false
    /// Values with a doubled quote, joined from their pieces.
    private var joined: [[UInt8]]

    init(sink: UnsafeMutablePointer<Sink>, spans: UnsafeMutablePointer<ValueSpan>, bytes: UnsafeRawBufferPointer,
         columns: Range<Int>, filter: RecordFilter, firstRecord: Int) {
        self.sink = sink
        self.spans = spans
        self.bytes = bytes
        low = columns.lowerBound
        high = columns.upperBound
        self.filter = filter
        record = firstRecord
        joined = Array(repeating: [], count: columns.count)
    }

    var lastWantedColumn: Int { high - 1 }
    func wants(_ column: Int) -> Bool { column >= low }

    mutating func cell(_ column: Int, _ piece: UnsafeRawBufferPointer) {
        let span = spans + (column - low)
        guard span.pointee.record == record else {
            span.pointee = ValueSpan(start: bytes.baseAddress!.distance(to: piece.baseAddress!), count: piece.count, record: record)
            return
        }
        // A second piece (after a doubled quote): the value is joined in a copy.
        if span.pointee.count >= 0 {
            joined[column - low].removeAll(keepingCapacity: true)
            joined[column - low].append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[span.pointee.start..<(span.pointee.start + span.pointee.count)]))
            span.pointee.count = -1
        }
        joined[column - low].append(contentsOf: piece)
    }

    mutating func recordEnded(at end: Int, terminator: UInt8, fields: Int) -> Bool {
        if (terminator == 0 ? bytes.count : end) - recordStart > FieldReader.longestRawRecord {
            isStopped = true
            return false
        }
        if filter.accepts(record) {
            for column in low..<high {
                let span = spans[column - low]
                if span.record == record && span.count >= 0 {
                    sink.pointee.willTake(UnsafeRawBufferPointer(rebasing: bytes[span.start..<(span.start + span.count)]),
                                          column: column)
                }
            }
            for column in low..<high {
                let span = spans[column - low]
                if span.record != record {
                    sink.pointee.cell(UnsafeRawBufferPointer(start: nil, count: 0), column: column, record: record)
                } else if span.count < 0 {
                    joined[column - low].withUnsafeBytes { sink.pointee.cell($0, column: column, record: record) }
                } else {
                    sink.pointee.cell(UnsafeRawBufferPointer(rebasing: bytes[span.start..<(span.start + span.count)]),
                                      column: column, record: record)
                }
            }
        }
        record += 1
        recordStart = end
        return true
    }

    mutating func lineFeedAfterCR(at end: Int) {
        recordStart = end
    }

    mutating func problem(_ kind: FieldKernel.Problem, at offset: Int64, index: Int) -> Bool {
        isStopped = true
        return false
    }
}
