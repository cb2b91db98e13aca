#if canImport(Glibc)
import Glibc
#endif
import CellStore
import CLibCSV
import Scan
import Table

/// What a pass hands each cell it reads to.
protocol CellSink {
    /// Cell `column` of data record `record` (empty for a cell the record lacks).
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int)
    /// Cell `column` of data record `record`, longer than `LongValue.threshold` bytes.
    mutating func longCell(_ value: LongValue, column: Int, record: Int)
}

/// The records a pass counts: those from `first` on (after the header) that `chosen`
/// holds, or all of them.
struct RecordFilter: Sendable {
    let first: Int
    let chosen: [UInt64]?

    init(first: Int, chosen: [UInt64]? = nil) {
        self.first = first
        self.chosen = chosen
    }

    @inline(__always)
    func accepts(_ record: Int) -> Bool {
        guard record >= first else { return false }
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
/// A raw piece (records the index vouches are well quoted) is read whole and its fields
/// are found in its bytes: an unquoted field runs to the next delimiter or line end, a
/// quoted one to its closing quote, with doubled quotes made single. The parser, and not
/// this reader, handles every other piece, any record longer than the parser keeps whole,
/// and anything in a raw piece that is not as the index promised; it streams, so no cell
/// is cut and a cell longer than the parser keeps arrives as a `LongValue`.
final class FieldReader {
    let input: ScanInput
    let columns: Range<Int>
    let filter: RecordFilter
    /// Asked between chunks of a piece that is parsed: a record of gigabytes (`/dev/zero`)
    /// is one piece, and its owner must not wait for the whole of it to stop.
    var isCancelled: () -> Bool = { false }
    private let buffer: UnsafeMutableRawBufferPointer
    private var scratch: [UInt8] = []
    /// Per wanted column: where its field is in the buffer, and the record it belongs to
    /// (behind a pointer: a class's array property pays an exclusivity check per access).
    private let spans: UnsafeMutablePointer<(start: Int, end: Int, doubled: Bool, record: Int)>
    private let delimiter: UInt8
    private let quote: UInt8
    /// False with `--quote none`: no field is quoted, a quote is data.
    private let quotes: Bool
    /// Records longer than this are parsed (the parser clips cells past its limit).
    static let longestRawRecord = RecordParser.Limits().cell
    /// Pieces parsed record by record (for tests).
    private(set) var parsedPieces = 0
    /// Raw pieces handed to the parser part way, at something the index did not promise
    /// (for tests).
    private(set) var rawFallbacks = 0

    init(input: ScanInput, columns: Range<Int>, filter: RecordFilter, bufferSize: Int) {
        self.input = input
        self.columns = columns
        self.filter = filter
        buffer = .allocate(byteCount: max(16, bufferSize), alignment: 16)
        spans = .allocate(capacity: max(1, columns.count))
        spans.initialize(repeating: (0, 0, false, -1), count: max(1, columns.count))
        delimiter = input.reader.dialect.delimiter
        quote = input.reader.dialect.quote
        quotes = input.reader.dialect.isQuoting
    }

    deinit {
        buffer.deallocate()
        spans.deallocate()
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
        var offset = piece.start
        let chunk = min(buffer.count, 1 << 20)
        while offset < piece.end {
            if isCancelled() { return }
            let wanted = Int(min(Int64(chunk), piece.end - offset))
            let count = input.reader.source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count <= 0 { break }
            parser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
            for row in parser.takeRecords() { cells.take(row, into: &sink) }
        }
        if piece.endsInput {
            parser.finish()
            for row in parser.takeRecords() { cells.take(row, into: &sink) }
        }
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
        let size = Int(piece.byteCount)
        var filled = 0
        while filled < size {
            let count = input.reader.source.read(at: piece.start + Int64(filled),
                                                 into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<size]))
            if count <= 0 { break }
            filled += count
        }
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let n = filled
        let delimiter = self.delimiter, quote = self.quote, quotes = self.quotes
        let low = columns.lowerBound, high = columns.upperBound
        let spans = self.spans
        var p = 0
        var record = piece.firstRecord
        while p < n {
            let recordStart = p
            var column = 0
            var complete = false
            var surprise = false
            fields: while true {
                let fieldStart: Int
                var fieldEnd: Int
                var doubled = false
                if quotes && p < n && base[p] == quote {
                    p += 1
                    fieldStart = p
                    while true {
                        p += cf_find_byte(base + p, n - p, quote)
                        if p >= n { break fields }   // cut short: the rest is not known yet
                        if p + 1 < n && base[p + 1] == quote {
                            doubled = true
                            p += 2
                            continue
                        }
                        break
                    }
                    fieldEnd = p
                    p += 1
                    if p < n && base[p] != delimiter && base[p] != 0x0A && base[p] != 0x0D {
                        surprise = true   // text after a closing quote: the parser's business
                        break fields
                    }
                } else {
                    fieldStart = p
                    p += cf_find_special(base + p, n - p, delimiter, quote)
                    if quotes && p < n && base[p] == quote {
                        surprise = true   // a quote inside an unquoted field
                        break fields
                    }
                    fieldEnd = p
                }
                if column >= low && column < high {
                    spans[column - low] = (fieldStart, fieldEnd, doubled, record)
                }
                if p >= n {
                    complete = piece.endsInput
                    break
                }
                let byte = base[p]
                p += 1
                if byte == delimiter {
                    column += 1
                    continue
                }
                if byte == 0x0D && p < n && base[p] == 0x0A { p += 1 }
                complete = true
                break
            }
            if surprise || (complete && p - recordStart > Self.longestRawRecord) {
                // Not as promised, or too long to keep whole: the parser reads the rest.
                rawFallbacks += 1
                parseInMemory(UnsafeRawBufferPointer(start: base + recordStart, count: n - recordStart),
                              at: piece.start + Int64(recordStart), firstRecord: record, endsInput: piece.endsInput, into: &sink)
                return
            }
            if !complete { return }
            if filter.accepts(record) {
                for column in low..<high {
                    let span = spans[column - low]
                    if span.record != record {
                        sink.cell(UnsafeRawBufferPointer(start: nil, count: 0), column: column, record: record)
                    } else if span.doubled {
                        unescape(UnsafeRawBufferPointer(start: base + span.start, count: span.end - span.start))
                        scratch.withUnsafeBytes { sink.cell($0, column: column, record: record) }
                    } else {
                        sink.cell(UnsafeRawBufferPointer(start: base + span.start, count: span.end - span.start),
                                  column: column, record: record)
                    }
                }
            }
            record += 1
        }
    }

    /// Puts the content of a quoted field, doubled quotes made single, in `scratch`.
    private func unescape(_ bytes: UnsafeRawBufferPointer) {
        scratch.removeAll(keepingCapacity: true)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            scratch.append(byte)
            index += byte == quote ? 2 : 1
        }
    }
}
