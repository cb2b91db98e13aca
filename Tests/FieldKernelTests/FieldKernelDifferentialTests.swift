@testable import CellStore
import Foundation
@testable import Insight
@testable import Query
import Scan
import TestSupport
import Testing

/// The field rules are written once (`FieldKernel`) and read by visitors: the record
/// scanner (the index, the search, the sniffer), the sort-key reader, the insight field
/// reader, the diff's record hasher, SQL's reader (and the well-quoted scans it uses on
/// raw pieces). Every one of them, and libcsv as the parser sets it up, must read every
/// input as the plain byte-at-a-time rules do: in chunks of any size from one byte, with
/// each bulk scan the CPU runs and with none.
@Suite("Field kernel: every visitor against libcsv and the plain rules", .timeLimit(.minutes(30)))
struct FieldKernelDifferentialTests {
    static let chunks = [1, 2, 7, 64, 65, 129, 4096, Int.max]
    /// Below 65 bytes the bulk scan never runs: one setting covers those chunks.
    static func bulks(for chunk: Int) -> [FieldKernel.Bulk] { chunk <= 64 ? [.best] : [.off] + FieldKernel.Bulk.available }

    // MARK: The inputs

    static let hostile: [KernelCase] = (0..<60).map { seed in
        KernelCase(name: "hostile \(seed)", bytes: hostileCSV(length: 50 + (seed * 37) % 3000, seed: UInt64(seed) &* 31 &+ 5))
    }

    static let wellQuoted: [KernelCase] = (0..<30).map { seed in
        KernelCase(name: "well quoted \(seed)", bytes: wellQuotedCSV(records: 20 + seed * 13, seed: UInt64(seed)))
    }

    static let mostlyWellQuoted: [KernelCase] = (0..<40).map { seed in
        KernelCase(name: "mostly well quoted \(seed)",
                   bytes: mostlyWellQuotedCSV(records: 100 + seed * 7, faults: seed % 6, seed: UInt64(seed) &+ 1000))
    }

    static let otherDialects: [KernelCase] = [UInt8(ascii: ";"), 0x09, UInt8(ascii: "|"), UInt8(ascii: " ")].flatMap { delimiter in
        [UInt8(ascii: "\""), UInt8(ascii: "'")].flatMap { quote in
            (0..<6).flatMap { seed -> [KernelCase] in
                let dialect = Dialect(delimiter: delimiter, quote: quote)
                let name = "delimiter \(delimiter) quote \(quote) seed \(seed)"
                return [
                    KernelCase(name: "hostile, " + name, bytes: translated(hostileCSV(length: 800, seed: UInt64(seed) &* 7919),
                                                                           delimiter: delimiter, quote: quote), dialect: dialect),
                    KernelCase(name: "mostly well quoted, " + name,
                               bytes: translated(mostlyWellQuotedCSV(records: 120, faults: seed % 3, seed: UInt64(seed) &+ 77),
                                                 delimiter: delimiter, quote: quote), dialect: dialect),
                ]
            }
        }
    }

    static let unquoted: [KernelCase] = (0..<40).map { seed in
        KernelCase(name: "--quote none \(seed)", bytes: unquotedBytes(count: seed % 2 == 0 ? 80 : 700, seed: UInt64(seed)),
                   dialect: Dialect(delimiter: 0x09, quote: Dialect.noQuote))
    } + [
        KernelCase(name: "--quote none, well quoted CSV", bytes: wellQuotedCSV(records: 300, seed: 5),
                   dialect: Dialect(quote: Dialect.noQuote)),
        KernelCase(name: "--quote none, every byte value", bytes: (0..<20).flatMap { round in (0...255).map { UInt8(($0 + round) % 256) } },
                   dialect: Dialect(delimiter: 0x09, quote: Dialect.noQuote)),
    ]

    /// Long runs of one thing: line ends only (more record ends than the bulk scan's room),
    /// delimiters only, doubled quotes only, one quoted field over many blocks.
    static let runs: [KernelCase] = [
        KernelCase(name: "LF run", bytes: Array(repeating: 0x0A, count: 3000)),
        KernelCase(name: "CRLF run", bytes: Array(String(repeating: "\r\n", count: 1500).utf8)),
        KernelCase(name: "CR run", bytes: Array(repeating: 0x0D, count: 3000)),
        KernelCase(name: "CR LF LF run", bytes: Array(String(repeating: "\r\n\n", count: 800).utf8)),
        KernelCase(name: "delimiter run", bytes: Array(String(repeating: ",", count: 3000).utf8) + [0x0A]),
        KernelCase(name: "doubled quote run", bytes: Array(String(repeating: "\"\"", count: 1500).utf8)),
        KernelCase(name: "quote run, odd", bytes: Array(String(repeating: "\"", count: 1501).utf8)),
        KernelCase(name: "long quoted field", bytes: Array(("a,\"" + String(repeating: "x,\n\r\"\"y", count: 700) + "\",b\nc\n").utf8)),
        KernelCase(name: "invalid UTF-8", bytes: Array(repeating: 0xFF, count: 2000)),
        KernelCase(name: "quote after every delimiter",
                   bytes: Array(String(repeating: "\"a\",\"b\"\"c\",\"\"\r\n", count: 200).utf8)),
        KernelCase(name: "stray quotes in long unquoted fields",
                   bytes: Array(String(repeating: "abc\"def,ghi\"\"jkl,\"m\"n,o\n", count: 150).utf8)),
    ]

    static let handMade: [KernelCase] = [
        "", "\n", "\r\n", "\r", "\n\n", "\r\r\n\n", "a", "a,", ",", ",,\n", "\"", "\"\"", "\"a\"\"", "a\"b\n",
        "\"a\"b,c\nd", "\"a\"\r\nb", "\"a\r\nb\"\r\n", "a\r\rb", "\"\"\"\"", " \"a\",b", "a,\"b\nc\",d\r\n\r\ne",
        "a,b\n\"x\" ,y\nc,d\n", "\"x\"y\"z\",w\n", "\"a\"b\r\n\"c\"\"d\"e,f", "\"x\"tail", "1,\"quoted\" and more,3\n4,5,6\n",
    ].map { KernelCase(name: $0.debugDescription, bytes: Array($0.utf8)) }

    static let conformance: [KernelCase] = ((try? FileManager.default.contentsOfDirectory(
        atPath: Fixtures.conformance.appendingPathComponent("csv-spectrum/csvs").path)) ?? []).sorted().compactMap { name in
        guard let data = try? Data(contentsOf: Fixtures.conformance.appendingPathComponent("csv-spectrum/csvs/\(name)")) else { return nil }
        return KernelCase(name: name, bytes: Array(data))
    }

    static let all = hostile + wellQuoted + mostlyWellQuoted + otherDialects + unquoted + runs + handMade + conformance

    @Test("there is something to compare")
    func inputs() {
        #expect(Self.conformance.count > 5)
        #expect(FieldKernel.Bulk.available.first == .portable)
    }

    // MARK: The comparisons

    @Test("libcsv (the parser) reads as the plain rules do, in chunks of any size", arguments: all)
    func parser(input: KernelCase) throws {
        let expected = referenceRecords(input.bytes, delimiter: input.dialect.delimiter, quote: input.dialect.quote)
        for chunk in [1, 2, 5, 64, 4096, Int.max] {
            let parser = try RecordParser(dialect: input.dialect)
            var index = 0
            while index < input.bytes.count {
                parser.parse(input.bytes[index..<chunkEnd(index, chunk, input.bytes.count)])
                index = chunkEnd(index, chunk, input.bytes.count)
            }
            parser.finish()
            let rows = parser.takeRecords().map { row in (0..<row.count).map { Array(row.field($0)) } }
            #expect(rows == expected, "chunk \(chunk)")
        }
    }

    @Test("the kernel hands over every value, record and problem the rules read", arguments: all)
    func kernel(input: KernelCase) {
        let dialect = input.dialect
        let reference = referenceRecords(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        let boundaries = referenceBoundaries(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        let expectedEnds = boundaries.map { $0.fields > 0 ? Int64($0.end) : -Int64($0.end) }
        // The problems the rules meet, read byte by byte: every other reading must meet the same.
        var baseline = CollectingVisitor(wanted: nil)
        visit(input.bytes, dialect: dialect, chunk: Int.max, bulk: .off, &baseline)
        let problems = baseline.problems.map { "\($0.0)@\($0.1)" }
        for wanted in [nil, [1], [0, 2], []] as [Set<Int>?] {
            let expected = expectedRecords(reference, wanted: wanted)
            for chunk in Self.chunks {
                for bulk in Self.bulks(for: chunk) {
                    var visitor = CollectingVisitor(wanted: wanted)
                    visit(input.bytes, dialect: dialect, chunk: chunk, bulk: bulk, &visitor) { $0.position = $1 }
                    let label = "wanted \(wanted.map { "\($0.sorted())" } ?? "all"), chunk \(chunk), \(bulk)"
                    #expect(visitor.records == expected, "\(label): first difference at record \(firstDifference(visitor.records, expected))")
                    #expect(visitor.ends == expectedEnds, "\(label)")
                    #expect(visitor.problems.map { "\($0.0)@\($0.1)" } == problems, "\(label)")
                }
            }
        }
    }

    @Test("the record scanner: records, widest record, boundaries and problems", arguments: all)
    func scanner(input: KernelCase) {
        let dialect = input.dialect
        let reference = referenceRecords(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        let boundaries = referenceBoundaries(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        var baseline = CollectingVisitor(wanted: nil)
        visit(input.bytes, dialect: dialect, chunk: Int.max, bulk: .off, &baseline)
        let firstProblem = baseline.problems.first
        let firstProblemRecord = firstProblem.map { problem in
            // The record being read when it was met: records whose ends come before it.
            problem.0 == .unclosedQuote ? reference.count - 1 : boundaries.filter { $0.fields > 0 && Int64($0.end) <= problem.1 }.count
        }
        for chunk in Self.chunks {
            for bulk in Self.bulks(for: chunk) {
                var scanner = RecordScanner(dialect: dialect, bulk: bulk)
                var seen: [(end: Int, afterCR: Bool, records: Int, fields: Int)] = []
                var index = 0
                while index < input.bytes.count {
                    let start = index
                    let end = chunkEnd(index, chunk, input.bytes.count)
                    input.bytes[start..<end].withUnsafeBytes { buffer in
                        scanner.scan(buffer, at: Int64(start)) { seen.append((start + $0, $1, $2, $3)) }
                    }
                    index = end
                }
                scanner.finish()
                let label = "chunk \(chunk), \(bulk)"
                #expect(scanner.recordCount == reference.count, "\(label)")
                #expect(scanner.widestRecord == (reference.map(\.count).max() ?? 0), "\(label)")
                #expect(seen.map(\.end) == boundaries.map(\.end), "\(label)")
                #expect(seen.map(\.fields) == boundaries.map(\.fields), "\(label)")
                #expect(seen.map(\.afterCR) == boundaries.map { $0.fields > 0 && input.bytes[$0.end - 1] == 0x0D }, "\(label)")
                var records = 0
                #expect(seen.map(\.records) == boundaries.map { records += $0.fields > 0 ? 1 : 0; return records }, "\(label)")
                #expect(scanner.problemCount == baseline.problems.count, "\(label)")
                #expect(scanner.strayQuoteCount == baseline.problems.filter { $0.0 == .quoteInUnquotedField }.count, "\(label)")
                #expect(scanner.firstProblem?.kind == firstProblem?.0 && scanner.firstProblem?.offset == firstProblem?.1, "\(label)")
                #expect(scanner.firstProblem?.record == firstProblemRecord, "\(label)")
            }
        }
    }

    @Test("the long-cell decoder reads each value from where its field starts", arguments: all)
    func decoder(input: KernelCase) {
        let dialect = input.dialect
        let reference = referenceRecords(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        // Where each field starts: the record's start, and past each delimiter.
        var starts = FieldStarts()
        visit(input.bytes, dialect: dialect, chunk: Int.max, bulk: .best, &starts)
        #expect(starts.records.map(\.count) == reference.map(\.count))
        for (record, fields) in zip(reference, starts.records) {
            for (value, start) in zip(record, fields) {
                let isQuoted = dialect.isQuoting && start < input.bytes.count && input.bytes[start] == dialect.quote
                for chunk in [1, 64, Int.max] {
                    var decoder = FieldDecoder(mode: isQuoted ? .quoted : .unquoted, delimiter: dialect.delimiter, quote: dialect.quote)
                    var position = start + (isQuoted ? 1 : 0)
                    var read: [UInt8] = []
                    while true {
                        let end = chunkEnd(position, chunk, input.bytes.count)
                        let (used, ended) = input.bytes[position..<end].withUnsafeBufferPointer { bytes in
                            decoder.decode(bytes, atEnd: position >= input.bytes.count, into: &read)
                        }
                        position += used
                        if ended { break }
                    }
                    #expect(read == value, "field at \(start), chunk \(chunk)")
                    let stop = position < input.bytes.count ? input.bytes[position] : nil
                    #expect(stop == nil || stop == dialect.delimiter || stop == 0x0A || stop == 0x0D, "field at \(start), chunk \(chunk)")
                }
            }
        }
    }

    @Test("the sort-key reader keeps each key cell and each record's start", arguments: all)
    func sortKeys(input: KernelCase) {
        let dialect = input.dialect
        let reference = referenceRecords(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote)
        let starts = expectedStarts(referenceBoundaries(input.bytes, delimiter: dialect.delimiter, quote: dialect.quote),
                                    records: reference.count)
        for columns in [[0], [2, 0], [3, 1]] {
            let expected = reference.map { record in columns.map { $0 < record.count ? Array(record[$0].prefix(KeyExtractor.cellLimit)) : [] } }
            for chunk in Self.chunks {
                for bulk in Self.bulks(for: chunk) {
                    var extractor = KeyExtractor(dialect: dialect, columns: columns, firstRecord: 0, at: 0, bulk: bulk)
                    var cells: [[[UInt8]]] = []
                    var seenStarts: [Int64] = []
                    var numbers: [Int] = []
                    func ended(_ record: Int, _ start: Int64, _ keys: [[UInt8]]) {
                        numbers.append(record)
                        seenStarts.append(start)
                        cells.append(keys)
                    }
                    var index = 0
                    while index < input.bytes.count {
                        let start = index
                        let end = chunkEnd(index, chunk, input.bytes.count)
                        input.bytes[start..<end].withUnsafeBytes { extractor.scan($0, at: Int64(start), ended: ended) }
                        index = end
                    }
                    extractor.finish(ended: ended)
                    let label = "columns \(columns), chunk \(chunk), \(bulk)"
                    #expect(cells == expected, "\(label)")
                    #expect(seenStarts == starts, "\(label)")
                    #expect(numbers == Array(0..<reference.count), "\(label)")
                }
            }
        }
    }

    @Test("the insight field reader reads raw pieces as the parser reads them", arguments: all)
    func fieldReader(input: KernelCase) throws {
        let dialect = input.dialect
        let store = CellStore(bytes: input.bytes, delimiter: dialect.delimiter, quote: dialect.quote,
                              checkpointSpacing: Int64(8 + input.bytes.count % 5 * 16))
        let input = try #require(ScanInput(store: store))
        let rows = (0..<store.rowCount).map { store.row($0).map { row in (0..<row.count).map { Array(row.field($0)) } } ?? [] }
        for columns in [0..<1, 1..<2, 0..<4, 2..<3, 1..<1] {
            let expected = rows.flatMap { row in columns.map { $0 < row.count ? row[$0] : [] } }
            for limit in [16, 100, 4096, 1 << 20] as [Int64] {
                // Pieces of a few bytes never reach the bulk scan: one setting covers them.
                for bulk in limit <= 100 ? [FieldKernel.Bulk.best] : FieldKernel.Bulk.available + [.off] {
                    let reader = FieldReader(input: input, columns: columns, filter: RecordFilter(first: 0), bufferSize: Int(limit))
                    reader.bulk = bulk
                    var sink = CollectingSink()
                    for piece in input.pieces(for: 0..<Int.max, limit: limit, raw: true) { reader.read(piece, into: &sink) }
                    #expect(sink.cells == expected, "columns \(columns), pieces of \(limit), \(bulk)")
                    #expect(sink.records == rows.indices.flatMap { record in columns.map { _ in record } })
                    // The band's way: a raw piece's cells column by column, a block at a time.
                    let byColumn = FieldReader(input: input, columns: columns, filter: RecordFilter(first: 0), bufferSize: Int(limit))
                    byColumn.bulk = bulk
                    byColumn.byColumn = true
                    var columnSink = CollectingSink()
                    for piece in input.pieces(for: 0..<Int.max, limit: limit, raw: true) { byColumn.read(piece, into: &columnSink) }
                    #expect(columnSink.inRecordOrder == expected, "columns \(columns), pieces of \(limit), \(bulk), by column")
                }
            }
            // A pass shares the pieces out between two threads and puts their sinks in order.
            var pass = Pass(input: input, columns: columns, filter: RecordFilter(first: 0))
            pass.pieceLimit = 32
            pass.workers = 2
            pass.minimumSharedBytes = 0
            let result = pass.run(control: ScanControl(), make: { _ in CollectingSink() })
            let sinks = try #require(result)
            #expect(sinks.flatMap(\.cells) == expected, "columns \(columns), a pass on two threads")
        }
    }
}

/// The index of the first record where `a` and `b` differ (their shorter count when one
/// is a prefix of the other), or -1.
func firstDifference(_ a: [SeenRecord], _ b: [SeenRecord]) -> Int {
    zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? (a.count == b.count ? -1 : min(a.count, b.count))
}
