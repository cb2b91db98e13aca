import CellStore
import CFieldScan
@testable import Diff
@testable import SQL
import Scan
import TestSupport
import Testing

/// The diff's record hasher and SQL's readers, held to the plain rules by the same inputs
/// as every other visitor of the field kernel.
extension FieldKernelDifferentialTests {
    /// A record's hash from its values, as the hasher combines the cells of `plan`'s slots.
    static func expectedHash(_ record: [[UInt8]], plan: RecordHasher.Plan) -> UInt64 {
        var cells = Array(repeating: StreamHash.empty, count: plan.slotCount)
        for (column, slot) in plan.slots.enumerated() where slot >= 0 && column < record.count && !record[column].isEmpty {
            var hash = StreamHash()
            record[column].withUnsafeBufferPointer { hash.add($0.baseAddress!, $0.count) }
            cells[slot] = hash.finish()
        }
        var hash: UInt64 = 0x27D4_EB2F_1656_67C5
        for cell in cells { hash = StreamHash.combine(hash, cell) }
        return hash
    }

    /// What the hasher tells of a record: its number, start, hash, key cells and lengths, flag.
    struct HashedRecord: Equatable {
        var number: Int
        var start: Int64
        var hash: UInt64
        var keys: [[UInt8]]
        var keyLengths: [Int]
        var flagged: Bool
    }

    static let plans: [RecordHasher.Plan] = [
        RecordHasher.Plan(slots: Array(0..<6)),
        RecordHasher.Plan(slots: [-1, 1, -1, 0], keys: [1, -1, -1, 0], flags: [false, false, true]),
        RecordHasher.Plan(slots: [0], keys: [-1, 0]),
        RecordHasher.Plan(slots: []),
    ]

    @Test("the diff's record hasher: each record's hash, key cells, flag and start", arguments: all)
    func recordHasher(input: KernelCase) {
        let dialect = input.dialect
        let reference = referenceRecords(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        let starts = expectedStarts(referenceBoundaries(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote),
                                    records: reference.count)
        for (number, plan) in Self.plans.enumerated() {
            let expected = reference.enumerated().map { index, record in
                let keys = plan.keys.enumerated().filter { $0.element >= 0 }.sorted { $0.element < $1.element }.map(\.offset)
                let values = keys.map { $0 < record.count ? record[$0] : [] }
                return HashedRecord(number: index, start: starts[index], hash: Self.expectedHash(record, plan: plan),
                                    keys: values.map { Array($0.prefix(RecordHasher.keyLimit)) }, keyLengths: values.map(\.count),
                                    flagged: plan.flags.enumerated().contains { $0.element && $0.offset < record.count && !record[$0.offset].isEmpty })
            }
            for chunk in Self.chunks {
                for bulk in Self.bulks(for: chunk) {
                    var hasher = RecordHasher(dialect: dialect, plan: plan, firstRecord: 0, at: 0, bulk: bulk)
                    var seen: [HashedRecord] = []
                    func ended(_ record: Int, _ start: Int64, _ hasher: inout RecordHasher) -> Bool {
                        seen.append(HashedRecord(number: record, start: start, hash: hasher.recordHash, keys: hasher.keyCells,
                                                 keyLengths: hasher.keyLengths, flagged: hasher.hasFlaggedValue))
                        return true
                    }
                    var index = 0
                    while index < input.bytes.count {
                        let start = index
                        let end = chunkEnd(index, chunk, input.bytes.count)
                        _ = input.bytes[start..<end].withUnsafeBytes { hasher.scan($0, at: Int64(start), ended: ended) }
                        index = end
                    }
                    hasher.finish(ended: ended)
                    #expect(seen == expected, "plan \(number), chunk \(chunk), \(bulk): first difference at record \(zip(seen, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(seen.count, expected.count))")
                }
            }
        }
    }
}

/// Collects the rows SQL's reader hands over: record, offset and the cells of each slot.
struct CollectedRows: RowSink {
    let width: Int
    var rows: [SQLRow] = []

    mutating func row(record: Int, offset: Int64, cells: UnsafePointer<UnsafeRawBufferPointer>) {
        rows.append(SQLRow(record: record, offset: offset, cells: (0..<width).map { Array(cells[$0]) }))
    }
}

struct SQLRow: Equatable, CustomStringConvertible {
    var record: Int
    var offset: Int64
    var cells: [[UInt8]]

    var description: String { "#\(record)@\(offset) " + cells.map { String(decoding: $0, as: UTF8.self).debugDescription }.joined(separator: ",") }
}

extension FieldKernelDifferentialTests {
    /// The levels of the well-quoted scans this CPU runs.
    static var levels: [Int32] { [CF_SCAN_PORTABLE, CF_SCAN_SSE2, CF_SCAN_AVX2].map(Int32.init).filter { $0 <= cf_scan_best_level() } }

    @Test("SQL's reader hands over each record's wanted cells, a literal searched for first or not", arguments: all)
    func sqlFields(input: KernelCase) throws {
        let dialect = input.dialect
        let reference = referenceRecords(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        let starts = expectedStarts(referenceBoundaries(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote),
                                    records: reference.count)
        let store = CellStore(bytes: input.bytes, delimiter: dialect.delimiter, quote: dialect.quote,
                              checkpointSpacing: Int64(8 + input.bytes.count % 5 * 16))
        let scan = try #require(ScanInput(store: store))
        #expect(store.rowCount == reference.count)
        let searches: [(literal: [UInt8], ignoresCase: Bool)?] = [nil, (Array("a".utf8), false), (Array("x".utf8), true)]
        for columns in [[0], [1, 3], [0, 2], [2], []] {
            for search in searches {
                var request = ScanRequest(columns: columns, types: [], records: 0..<Int.max, headerRows: 0)
                if let search, !columns.isEmpty {
                    request.check.literal = search.literal
                    request.check.ignoresCase = search.ignoresCase
                    request.check.contains = [(slot: 0, literal: search.literal, ignoresCase: search.ignoresCase)]
                }
                let expected = reference.enumerated().compactMap { record, values -> SQLRow? in
                    let cells = columns.map { $0 < values.count ? values[$0] : [] }
                    if let search, !columns.isEmpty {
                        let cell = search.ignoresCase ? cells[0].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 } : cells[0]
                        guard cell.count >= search.literal.count,
                              (0...(cell.count - search.literal.count)).contains(where: { cell[$0..<($0 + search.literal.count)].elementsEqual(search.literal) })
                        else { return nil }
                    }
                    return SQLRow(record: record, offset: starts[record], cells: cells)
                }
                for limit in [16, 100, 4096, 1 << 20] as [Int64] {
                    let pieces = scan.pieces(for: 0..<Int.max, limit: limit, raw: true)
                    for bulk in limit <= 100 ? [FieldKernel.Bulk.best] : FieldKernel.Bulk.available + [.off] {
                        let fields = RecordFields(input: scan, request: request, bufferSize: Int(limit), bulk: bulk)
                        var sink = CollectedRows(width: columns.count)
                        for (index, piece) in pieces.enumerated() {
                            let next = index + 1 < pieces.count ? pieces[index + 1].firstRecord : store.rowCount
                            fields.read(PieceSource.Item(piece: piece, records: piece.firstRecord..<next), into: &sink, isCancelled: { false })
                        }
                        // A parsed record does not know its offset (-1).
                        let seen = sink.rows.map { row in SQLRow(record: row.record, offset: row.offset < 0 ? starts[row.record] : row.offset, cells: row.cells) }
                        let label = "columns \(columns), literal \(search.map { String(decoding: $0.literal, as: UTF8.self) } ?? "none"), pieces of \(limit), \(bulk)"
                        #expect(fields.failure == nil, "\(label)")
                        #expect(seen == expected, "\(label): first difference at \(zip(seen, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(seen.count, expected.count))")
                    }
                }
            }
        }
    }

    @Test("the well-quoted scans (record ends, field ends) read what the plain rules read", arguments: all)
    func wellQuotedScans(input: KernelCase) {
        let dialect = input.dialect
        var baseline = CollectingVisitor(wanted: nil)
        visit(input.bytes, dialect: dialect, chunk: Int.max, bulk: .off, &baseline)
        // They read only what the index vouches for: input where the rules meet no problem.
        guard baseline.problems.isEmpty else { return }
        let boundaries = referenceBoundaries(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        let bytes = input.bytes
        // A CRLF's record ends past its LF here.
        let recordEnds = boundaries.filter { $0.fields > 0 }.map { $0.end < bytes.count && bytes[$0.end - 1] == 0x0D && bytes[$0.end] == 0x0A ? $0.end + 1 : $0.end }
        var starts = FieldStarts()
        visit(input.bytes, dialect: dialect, chunk: Int.max, bulk: .off, &starts)
        for level in Self.levels {
            // Record ends, counted in chunks (never between the CR and LF of a CRLF).
            for chunk in [1, 7, 64, 65, 129, Int.max] {
                var index = 0, records = 0, inQuotes: Int32 = 0
                while index < bytes.count {
                    var end = chunkEnd(index, chunk, bytes.count)
                    if end < bytes.count && bytes[end - 1] == 0x0D && bytes[end] == 0x0A { end += 1 }
                    let counted = bytes[index..<end].withUnsafeBufferPointer {
                        cf_count_records_at(level, $0.baseAddress!, $0.count, dialect.delimiter, dialect.quote, inQuotes, 0)
                    }
                    let inside = recordEnds.filter { $0 > index && $0 <= end }
                    #expect(counted.records == inside.count, "level \(level), chunk \(chunk), bytes \(index)..<\(end)")
                    if let last = inside.last { #expect(index + counted.last_end == last, "level \(level), chunk \(chunk), bytes \(index)..<\(end)") }
                    records += counted.records
                    inQuotes = counted.in_quotes
                    index = end
                }
                #expect(records == recordEnds.count, "level \(level), chunk \(chunk)")
                #expect(inQuotes == 0, "level \(level), chunk \(chunk)")
            }
            // The first record end from each record's start.
            for (record, start) in starts.records.map({ $0[0] }).enumerated() where start < bytes.count {
                let first = bytes[start...].withUnsafeBufferPointer {
                    cf_count_records_at(level, $0.baseAddress!, $0.count, dialect.delimiter, dialect.quote, 0, 1)
                }
                #expect(first.records == (record < recordEnds.count ? 1 : 0), "level \(level), record \(record)")
                if record < recordEnds.count { #expect(start + first.last_end == recordEnds[record], "level \(level), record \(record)") }
            }
            // Field ends: the delimiters ending each record's first `limit` fields, then its end.
            for limit in [1, 2, 3, 100] {
                var expected: [UInt32] = []
                for (record, fieldStarts) in starts.records.enumerated() {
                    for field in fieldStarts.indices.dropFirst() where field <= limit { expected.append(UInt32(fieldStarts[field] - 1)) }
                    if record < recordEnds.count { expected.append(UInt32(recordEnds[record] - 1) | 1 << 31) }
                }
                var ends = [UInt32](repeating: 0, count: bytes.count + 1)
                var inQuotes: Int32 = 0
                var count = 0
                let found = bytes.withUnsafeBufferPointer { bytes in
                    ends.withUnsafeMutableBufferPointer {
                        cf_field_ends_at(level, bytes.baseAddress, bytes.count, dialect.delimiter, dialect.quote, limit, $0.baseAddress,
                                         &inQuotes, &count)
                    }
                }
                #expect(Array(ends.prefix(found)) == expected, "level \(level), limit \(limit)")
                #expect(count == recordEnds.count && inQuotes == 0, "level \(level), limit \(limit)")
            }
        }
    }
}
