import CellStore
import CFieldScan
import Scan

/// Hands each row a scan keeps to whoever collects them (a batch, a partition).
protocol RowSink {
    /// Record `record`'s wanted cells: `cells[slot]` holds the bytes of the column in that
    /// slot (empty when the record lacks it), valid during the call only. `offset` is where
    /// the record starts in the input, or -1 when that is not known (a parsed piece).
    mutating func row(record: Int, offset: Int64, cells: UnsafePointer<UnsafeRawBufferPointer>)
}

/// Reads the cells of the columns a query uses from pieces of an input, as the parser
/// would read them, and hands the rows a `RowCheck` keeps to a sink.
///
/// A raw piece (records the index vouches are well quoted) is read whole and its fields
/// found in its bytes by the well-quoted field-end scan (`cf_field_ends`, 64 bytes a step);
/// where that cannot vouch for the piece, the field kernel splits it (`RawRows` is its
/// visitor, as `FieldReader` in Insight). Anything in a raw piece that is not as the index
/// promised, every other piece and any record longer than the parser keeps whole are
/// parsed by `RecordParser`. With a literal to look for, a raw piece is searched for it
/// first and only the records around a hit are split (as `RecordSearch` does).
final class RecordFields {
    let input: ScanInput
    let request: ScanRequest
    private let buffer: UnsafeMutableRawBufferPointer
    /// Per slot: where its field is in the buffer, whether it has doubled quotes, and the
    /// record it belongs to.
    fileprivate let spans: UnsafeMutablePointer<(start: Int, end: Int, doubled: Bool, record: Int)>
    /// Per file column up to the highest wanted: its slot, or -1.
    fileprivate let slotOfColumn: UnsafeMutablePointer<Int32>
    fileprivate let highest: Int
    /// The cells handed to a sink, per slot.
    private let cells: UnsafeMutablePointer<UnsafeRawBufferPointer>
    /// Where values with doubled quotes are made single, and its capacity (behind a
    /// pointer: a class's `var` pays an exclusivity check at each access, and the kernel's
    /// visitor hands every row over from outside the class).
    private let scratch: UnsafeMutablePointer<(bytes: UnsafeMutablePointer<UInt8>, capacity: Int)>
    /// The field ends of a piece (see `splitFields`).
    private var ends: UnsafeMutablePointer<UInt32>
    private var endsCapacity = 16
    private let delimiter: UInt8
    fileprivate let quote: UInt8
    /// The field kernel's bulk scan, and the level of the well-quoted scans (tests compare
    /// them; `off` reads those with the portable scan). A constant: a class's `var` costs
    /// an exclusivity check at each read, and the search reads it at every hit.
    let bulk: FieldKernel.Bulk
    /// CSV made from JSON: an empty cell written `""` is an empty text, one without
    /// quotes NULL (a JSON null); handed over as `SQLTyping.emptyText`. In CSV both are NULL.
    let marksEmptyText: Bool
    /// Set when a record cannot be read as the query needs; the scan stops.
    private(set) var failure: SQLError?
    /// Records split to confirm a literal's hit (for tests).
    private(set) var confirmations = 0

    /// Records longer than this are parsed (the parser clips cells past its limit).
    static let longestRawRecord = RecordParser.Limits().cell

    init(input: ScanInput, request: ScanRequest, bufferSize: Int, bulk: FieldKernel.Bulk = .best) {
        self.input = input
        self.request = request
        self.bulk = bulk
        buffer = .allocate(byteCount: max(16, bufferSize), alignment: 16)
        let width = max(1, request.columns.count)
        spans = .allocate(capacity: width)
        spans.initialize(repeating: (0, 0, false, -1), count: width)
        highest = (request.columns.last ?? -1) + 1
        slotOfColumn = .allocate(capacity: max(1, highest))
        slotOfColumn.initialize(repeating: -1, count: max(1, highest))
        for (slot, column) in request.columns.enumerated() { slotOfColumn[column] = Int32(slot) }
        cells = .allocate(capacity: width)
        cells.initialize(repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: width)
        scratch = .allocate(capacity: 1)
        scratch.initialize(to: (.allocate(capacity: 4096), 4096))
        ends = .allocate(capacity: endsCapacity)
        marksEmptyText = input.reader.json?.isJSON == true
        delimiter = input.reader.dialect.delimiter
        quote = input.reader.dialect.quote
    }

    deinit {
        buffer.deallocate()
        spans.deallocate()
        slotOfColumn.deallocate()
        cells.deallocate()
        scratch.pointee.bytes.deallocate()
        scratch.deallocate()
        ends.deallocate()
    }

    /// Hands the rows of a piece (which holds `item.records`) that the request keeps to
    /// `sink`, in order.
    func read<Sink: RowSink>(_ item: PieceSource.Item, into sink: inout Sink, isCancelled: () -> Bool) {
        guard failure == nil else { return }
        let piece = item.piece
        if request.columns.isEmpty && request.check.isEmpty {
            // Nothing to read: the index knows how many records the piece holds.
            for record in item.records where request.records.contains(record) { sink.row(record: record, offset: -1, cells: cells) }
            return
        }
        let fitsRaw = piece.isRaw && Int64(buffer.count) >= piece.byteCount
        if fitsRaw, let literal = request.check.literal {
            guard let filled = readWhole(piece) else { return }
            searchRaw(filled: filled, piece: piece, literal: literal, into: &sink, isCancelled: isCancelled)
        } else if fitsRaw {
            guard let filled = readWhole(piece) else { return }
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            if !splitFields(base, filled: filled, piece: piece, records: item.records, into: &sink) {
                _ = splitRaw(base, at: piece.start, from: 0, to: filled, firstRecord: piece.firstRecord, endsInput: piece.endsInput,
                             into: &sink)
            }
        } else {
            parse(piece, into: &sink, isCancelled: isCancelled)
        }
    }

    /// Reads `piece` whole into the buffer; nil (and a failure) when it cannot be read.
    private func readWhole(_ piece: ScanInput.Piece) -> Int? {
        input.read(piece, into: buffer)
    }

    // MARK: Rows found

    /// Hands a row to the sink when it is in range and passes the check.
    @inline(__always)
    private func deliver<Sink: RowSink>(record: Int, offset: Int64, into sink: inout Sink) {
        guard request.records.contains(record), request.check.accepts(cells) else { return }
        sink.row(record: record, offset: offset, cells: cells)
    }

    /// Hands over a record parsed elsewhere (read alone by a lookup), as a parsed piece's.
    func deliverParsed<Sink: RowSink>(_ row: Row, record: Int, into sink: inout Sink) {
        deliver(row, record: record, into: &sink)
    }

    /// A parsed record's wanted cells; a failure when one was clipped, unless the check
    /// turns the record away on its other cells (SQLite would never see it).
    private func deliver<Sink: RowSink>(_ row: Row, record: Int, into sink: inout Sink) {
        guard request.records.contains(record) else { return }
        let clipped = request.columns.indices.filter { row.isClipped(request.columns[$0]) }
        row.bytes.withUnsafeBytes { bytes in
            var start = 0
            for (slot, column) in request.columns.enumerated() {
                if column < row.count {
                    start = column == 0 ? 0 : row.ends[column - 1]
                    cells[slot] = UnsafeRawBufferPointer(rebasing: bytes[start..<row.ends[column]])
                    if marksEmptyText && start == row.ends[column] && row.quotedEmpty.contains(column) {
                        cells[slot] = SQLTyping.emptyText
                    }
                } else {
                    cells[slot] = UnsafeRawBufferPointer(start: nil, count: 0)
                }
            }
            if let first = clipped.first {
                if !clipped.contains(where: request.check.looks(at:)) && !request.check.accepts(cells) { return }
                let column = request.columns[first]
                failure = .input("\(RecordPlace.name(record, headerRows: request.headerRows)), column \(column + 1): a cell longer "
                                 + "than \(RecordFields.longestRawRecord >> 20) MiB, more than SQL reads")
                return
            }
            deliver(record: record, offset: -1, into: &sink)
        }
    }

    // MARK: Parsed pieces

    private func parse<Sink: RowSink>(_ piece: ScanInput.Piece, into sink: inout Sink, isCancelled: () -> Bool) {
        guard let parser = try? RecordParser(dialect: input.reader.dialect) else { return }
        var record = piece.firstRecord
        input.parse(piece, with: parser, buffer: buffer, while: { failure == nil }, isCancelled: isCancelled) { rows in
            for row in rows {
                deliver(row, record: record, into: &sink)
                record += 1
            }
        }
    }

    /// Parses records held in memory (they start at a record boundary); returns how many.
    private func parseInMemory<Sink: RowSink>(_ bytes: UnsafeRawBufferPointer, firstRecord: Int, endsInput: Bool,
                                              into sink: inout Sink) -> Int {
        guard let parser = try? RecordParser(dialect: input.reader.dialect) else { return 0 }
        parser.parse(bytes)
        if endsInput { parser.finish() }
        let rows = parser.takeRecords()
        for (offset, row) in rows.enumerated() { deliver(row, record: firstRecord + offset, into: &sink) }
        return rows.count
    }

    // MARK: Raw pieces

    /// Splits a whole raw piece from the ends of its fields, found 64 bytes a step
    /// (`cf_field_ends`): false, having handed over nothing, when the piece is not as
    /// the index vouched (it ends inside quotes, or holds another number of records).
    private func splitFields<Sink: RowSink>(_ base: UnsafeMutablePointer<UInt8>, filled: Int, piece: ScanInput.Piece,
                                            records expected: Range<Int>, into sink: inout Sink) -> Bool {
        guard filled == Int(piece.byteCount), filled < 1 << 30 else { return false }
        if endsCapacity < filled + 2 {
            ends.deallocate()
            endsCapacity = filled + 2
            ends = .allocate(capacity: endsCapacity)
        }
        var inQuotes: Int32 = 0
        var recordEnds = 0
        var count = cf_field_ends_at(bulk.level, base, filled, delimiter, quote, max(1, highest), ends, &inQuotes, &recordEnds)
        // The input's last record may have no line end.
        var lastEnd = 0
        if let lastRecord = (0..<count).last(where: { ends[$0] & (1 << 31) != 0 }) { lastEnd = Int(ends[lastRecord] & 0x7FFF_FFFF) + 1 }
        if piece.endsInput && lastEnd < filled {
            ends[count] = UInt32(filled) | (1 << 31)
            count += 1
            recordEnds += 1
        }
        guard inQuotes == 0, recordEnds == expected.count else { return false }
        let quote = self.quote
        let spans = self.spans, slotOfColumn = self.slotOfColumn, highest = self.highest
        for slot in 0..<request.columns.count { spans[slot].record = -1 }
        var record = piece.firstRecord
        var column = 0
        var fieldStart = 0
        var recordStart = 0
        for index in 0..<count {
            let entry = ends[index]
            let isRecordEnd = entry & (1 << 31) != 0
            var fieldEnd = Int(entry & 0x7FFF_FFFF)
            let next = fieldEnd + 1
            if column < highest {
                let slot = Int(slotOfColumn[column])
                if slot >= 0 {
                    if isRecordEnd && fieldEnd > fieldStart && fieldEnd < filled && base[fieldEnd] == 0x0A && base[fieldEnd - 1] == 0x0D {
                        fieldEnd -= 1   // the CR of a CRLF
                    }
                    if fieldStart < fieldEnd && base[fieldStart] == quote {
                        guard fieldEnd - fieldStart >= 2 && base[fieldEnd - 1] == quote else {
                            // Text after a closing quote: the parser reads the rest.
                            _ = parseInMemory(UnsafeRawBufferPointer(start: base + recordStart, count: filled - recordStart),
                                              firstRecord: record, endsInput: piece.endsInput, into: &sink)
                            return true
                        }
                        let start = fieldStart + 1, end = fieldEnd - 1
                        // An empty one is marked as doubled in CSV made from JSON: text, not NULL.
                        let doubled = start == end ? marksEmptyText : cf_find_byte(base + start, end - start, quote) < end - start
                        spans[slot] = (start, end, doubled, record)
                    } else {
                        spans[slot] = (fieldStart, fieldEnd, false, record)
                    }
                }
            }
            column += 1
            fieldStart = next
            guard isRecordEnd else { continue }
            if request.records.contains(record) { collect(base, record: record, offset: piece.start + Int64(recordStart), into: &sink) }
            record += 1
            column = 0
            recordStart = next
        }
        return true
    }

    /// Hands over record `record` from the spans its wanted fields were found at.
    @inline(__always)
    fileprivate func collect<Sink: RowSink>(_ base: UnsafeMutablePointer<UInt8>, record: Int, offset: Int64, into sink: inout Sink) {
        let width = request.columns.count
        var doubledBytes = 0
        for slot in 0..<width where spans[slot].record == record && spans[slot].doubled {
            doubledBytes += spans[slot].end - spans[slot].start
        }
        if doubledBytes > scratch.pointee.capacity { growScratch(doubledBytes) }
        let scratch = self.scratch.pointee.bytes
        var used = 0
        for slot in 0..<width {
            let span = spans[slot]
            if span.record != record {
                cells[slot] = UnsafeRawBufferPointer(start: nil, count: 0)
            } else if span.doubled && span.start == span.end {
                cells[slot] = SQLTyping.emptyText   // `""` in CSV made from JSON
            } else if span.doubled {
                let length = unescape(base + span.start, count: span.end - span.start, into: scratch + used)
                cells[slot] = UnsafeRawBufferPointer(start: scratch + used, count: length)
                used += length
            } else {
                cells[slot] = UnsafeRawBufferPointer(start: base + span.start, count: span.end - span.start)
            }
        }
        deliver(record: record, offset: offset, into: &sink)
    }

    /// Splits the records in `base[from..<to]` (from a record boundary) with the field
    /// kernel (`RawRows` is its visitor) and hands over those kept; returns the records
    /// read. The rest goes to the parser at the first thing that is not as the index
    /// promised, and at a record longer than the parser keeps whole.
    @discardableResult
    func splitRaw<Sink: RowSink>(_ base: UnsafeMutablePointer<UInt8>, at position: Int64, from: Int, to n: Int,
                                 firstRecord: Int, endsInput: Bool, into sink: inout Sink) -> Int {
        // The field kernel does not say which empty fields were quoted: CSV made from JSON,
        // where that tells null from "", is parsed.
        if marksEmptyText {
            return parseInMemory(UnsafeRawBufferPointer(start: base + from, count: n - from), firstRecord: firstRecord,
                                 endsInput: endsInput, into: &sink)
        }
        // Spans of an earlier call may name any record (a lookup reads records in any order).
        for slot in 0..<request.columns.count { spans[slot].record = -1 }
        var kernel = FieldKernel(dialect: input.reader.dialect, bulk: bulk)
        let bytes = UnsafeRawBufferPointer(start: base + from, count: n - from)
        let (stopped, record, recordStart) = withUnsafeMutablePointer(to: &sink) { sink in
            var rows = RawRows(fields: self, sink: sink, buffer: base, from: from, count: n - from, at: position + Int64(from),
                               firstRecord: firstRecord)
            kernel.scan(bytes, at: position + Int64(from), into: &rows)
            // A record cut short at the end is not read here.
            if !rows.isStopped && endsInput { kernel.finish(into: &rows) }
            return (rows.isStopped, rows.record, from + rows.recordStart)
        }
        guard stopped else { return record - firstRecord }
        // Not as promised, or too long to keep whole: the parser reads the rest.
        return record - firstRecord
            + parseInMemory(UnsafeRawBufferPointer(start: base + recordStart, count: n - recordStart), firstRecord: record,
                            endsInput: endsInput, into: &sink)
    }

    private func growScratch(_ needed: Int) {
        let capacity = max(needed, scratch.pointee.capacity * 2)
        scratch.pointee.bytes.deallocate()
        scratch.pointee = (.allocate(capacity: capacity), capacity)
    }

    /// Copies a quoted field's content with doubled quotes made single; returns its length.
    private func unescape(_ bytes: UnsafeMutablePointer<UInt8>, count: Int, into target: UnsafeMutablePointer<UInt8>) -> Int {
        var index = 0, length = 0
        while index < count {
            let byte = bytes[index]
            target[length] = byte
            length += 1
            index += byte == quote ? 2 : 1
        }
        return length
    }

    /// Candidates confirmed in a piece before the rest of it is split whole, when they are
    /// that dense (more than one record in `denseRatio`).
    static let candidatesBeforeSplitting = 32
    static let denseRatio = 8

    /// Finds `literal` in a raw piece and splits only the records around each hit.
    ///
    /// A raw piece is well quoted, so record ends are the line ends outside quotes, and a
    /// byte is inside quotes when an odd number of quotes come before it in its record:
    /// the records between hits are counted 64 bytes a step (`cf_count_records`),
    /// never split.
    private func searchRaw<Sink: RowSink>(filled: Int, piece: ScanInput.Piece, literal: [UInt8], into sink: inout Sink,
                                          isCancelled: () -> Bool) {
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let ignoresCase: Int32 = request.check.ignoresCase ? 1 : 0
        // A record boundary, outside quotes, and the number of the record that starts there.
        var position = 0
        var record = piece.firstRecord
        var confirmed = 0
        while position < filled && failure == nil {
            if isCancelled() || record >= request.records.upperBound { return }
            let found = literal.withUnsafeBufferPointer { needle in
                position + cf_find_text(base + position, filled - position, needle.baseAddress!, needle.count, ignoresCase)
            }
            if found >= filled { return }
            if confirmed >= Self.candidatesBeforeSplitting && (record - piece.firstRecord) < confirmed * Self.denseRatio {
                // Hits in most records: splitting the rest is cheaper than finding each.
                splitRaw(base, at: piece.start, from: position, to: filled, firstRecord: record, endsInput: piece.endsInput, into: &sink)
                return
            }
            // The records that end before the hit, then the end of the hit's record.
            let before = cf_count_records_at(bulk.level, base + position, found - position, delimiter, quote, 0, 0)
            let start = position + before.last_end
            record += before.records
            let after = cf_count_records_at(bulk.level, base + found, filled - found, delimiter, quote, before.in_quotes, 1)
            let end = after.records > 0 ? found + after.last_end : filled
            if record >= request.records.upperBound { return }
            confirmed += 1
            confirmations += 1
            let records = splitRaw(base, at: piece.start, from: start, to: end, firstRecord: record,
                                   endsInput: piece.endsInput || after.records > 0, into: &sink)
            position = end
            record += max(1, records)
        }
    }
}

/// The field kernel's visitor for SQL's raw bytes: notes where each wanted value lies in
/// the buffer (`RecordFields.spans`) and hands each record kept to the sink at its end;
/// stops at a quoting problem or at a record longer than the parser keeps whole (the
/// reader hands the rest to the parser).
///
/// A value's pieces lie in the buffer one after the other, apart from the first quote of
/// each doubled pair: a piece that is one quote is a doubled quote's second (any other
/// quote outside a quoted value is a problem, and stops it), so a span reaches from the
/// first piece to the last and is marked to have its doubled quotes made single.
private struct RawRows<Sink: RowSink>: FieldVisitor {
    let fields: RecordFields
    let sink: UnsafeMutablePointer<Sink>
    /// The whole buffer (spans are offsets in it), and where the kernel's bytes start in it.
    let buffer: UnsafeMutablePointer<UInt8>
    let from: Int
    let count: Int
    /// Where the kernel's bytes start in the input.
    let position: Int64
    let lastWantedColumn: Int
    /// The record being read, and where it starts in the kernel's bytes.
    private(set) var record: Int
    private(set) var recordStart = 0
    private(set) var isStopped = false

    init(fields: RecordFields, sink: UnsafeMutablePointer<Sink>, buffer: UnsafeMutablePointer<UInt8>, from: Int, count: Int,
         at position: Int64, firstRecord: Int) {
        self.fields = fields
        self.sink = sink
        self.buffer = buffer
        self.from = from
        self.count = count
        self.position = position
        lastWantedColumn = fields.highest - 1
        record = firstRecord
    }

    func wants(_ column: Int) -> Bool { fields.slotOfColumn[column] >= 0 }

    mutating func cell(_ column: Int, _ piece: UnsafeRawBufferPointer) {
        guard let address = piece.baseAddress else { return }
        let span = fields.spans + Int(fields.slotOfColumn[column])
        let start = UnsafeRawPointer(buffer).distance(to: address)
        let isDoubledQuote = piece.count == 1 && piece[0] == fields.quote
        if span.pointee.record != record {
            span.pointee = (isDoubledQuote ? start - 1 : start, start + piece.count, isDoubledQuote, record)
        } else {
            span.pointee.end = start + piece.count
            if isDoubledQuote { span.pointee.doubled = true }
        }
    }

    mutating func recordEnded(at end: Int, terminator: UInt8, fields count: Int) -> Bool {
        if (terminator == 0 ? self.count : end) - recordStart > RecordFields.longestRawRecord {
            isStopped = true
            return false
        }
        if fields.request.records.contains(record) {
            fields.collect(buffer, record: record, offset: position + Int64(recordStart), into: &sink.pointee)
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
