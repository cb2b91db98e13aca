import CellStore
@testable import Export
import Foundation
import Query
@testable import Scan
import Table
import Testing
import TestSupport
import Viewer

/// Filters and their output against a slow reference: every record parsed from the whole
/// input, each cell matched with the pattern alone, the records kept written one cell at a
/// time. The filter's raw-byte scan (candidates in raw bytes, record ends followed 64 bytes
/// a step, a candidate's record split without the parser) must keep exactly these records.
@Suite("Export: filters against a reference over hostile input", .timeLimit(.minutes(30)))
struct FilterDifferentialTests {
    /// Filters whose raw candidates differ from their matches in every way the scan must
    /// get right: in quoted cells, across a CRLF inside a cell, only the header, only a
    /// delimiter or a quote (in cells, never between them), at a cell's edges, one column,
    /// shown columns, case ignored, inverted, and a pattern with no raw candidate.
    static let filters: [RecordFilter] = [
        RecordFilter(pattern: "Oslo|b"),
        RecordFilter(pattern: "oslo"),
        RecordFilter(pattern: "OSLO"),
        RecordFilter(pattern: "name"),
        RecordFilter(pattern: "c\\r\\nd"),
        RecordFilter(pattern: "\\n"),
        RecordFilter(pattern: ","),
        RecordFilter(pattern: "\""),
        RecordFilter(pattern: "\"\""),
        RecordFilter(pattern: "^7$"),
        RecordFilter(pattern: "^a \"b"),
        RecordFilter(pattern: "a", column: 1),
        RecordFilter(pattern: "é", columns: [2, 0]),
        RecordFilter(pattern: "b", inverted: true),
        RecordFilter(pattern: "(x)\\1|Oslo"),
        RecordFilter(pattern: "long \"\"?quote"),
        RecordFilter(pattern: "end$"),
    ]

    /// A random input: `DifferentialTests.input` most of the time, or many well-quoted
    /// records (some longer than a 64-byte block, quotes and line ends on its edges), so the
    /// bulk scan's stretches, refills and byte-at-a-time blocks all meet candidates.
    static func input(_ generator: inout SeededGenerator) -> [UInt8] {
        if generator.next() % 3 != 0 { return DifferentialTests.input(&generator) }
        var bytes: [UInt8] = generator.next() % 3 == 0 ? [0xEF, 0xBB, 0xBF] : []
        let endings: [[UInt8]] = [[0x0A], [0x0D, 0x0A], [0x0D]]
        let ending = endings[Int(generator.next() % 3)]
        bytes += Array("id,name,city,n".utf8) + ending
        let cells: [[UInt8]] = ["", "\"a \"\"b\"\", c\r\nd\"", "Oslo", "oslo", "7", "\"\"", "é中", "\"x,\ny\"",
                                "\"" + String(repeating: "long \"\"quote\"\" text, ", count: 3) + "end\"",
                                String(repeating: "plain text ", count: 7) + "end", "\"\r\"", "\"\n\n\""].map { Array($0.utf8) }
        for record in 0..<(50 + Int(generator.next() % 400)) {
            if generator.next() % 20 == 0 {
                bytes += endings[Int(generator.next() % 3)]   // a blank line
                continue
            }
            for cell in 0..<Int(1 + generator.next() % 5) {
                if cell > 0 { bytes.append(0x2C) }
                bytes += cells[Int(generator.next() % UInt64(cells.count))]
            }
            _ = record
            bytes += generator.next() % 9 == 0 ? endings[Int(generator.next() % 3)] : ending
        }
        if generator.next() % 2 == 0, bytes.last == 0x0A { bytes.removeLast() }
        return bytes
    }

    /// The data records (after the header) whose parsed cells meet `filter`, in order.
    static func kept(_ records: [Row], filter: RecordFilter) throws -> [Int] {
        let matcher = PatternMatcher(try SearchPattern(text: filter.pattern, column: filter.column).compile())
        return records.indices.dropFirst().filter { record in
            let row = records[record]
            let columns = filter.column.map { [$0] } ?? filter.columns ?? Array(0..<row.count)
            let matches = columns.contains { $0 < row.count && matcher.matches(row.field($0)) }
                || (filter.column != nil && columns.contains { $0 >= row.count } && matcher.matches(ArraySlice<UInt8>()))
            return matches != filter.inverted
        }
    }

    @Test("random hostile inputs: each filter keeps the records the reference keeps, and writes them as it does")
    func differential() throws {
        var generator = SeededGenerator(seed: UInt64(ProcessInfo.processInfo.environment["CSVFREEZE_EXPORT_SEED"] ?? "") ?? 23)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("filter-diff-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rounds = Int(ProcessInfo.processInfo.environment["CSVFREEZE_EXPORT_ROUNDS"] ?? "") ?? 40
        var kept = 0
        for round in 0..<rounds {
            let bytes = Self.input(&generator)
            let path = directory.appendingPathComponent("in-\(round).csv").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let spacing: Int64 = round % 2 == 0 ? 64 << 10 : 48
            let store = try CellStore.open(InputSpec(path: path, delimiter: 0x2C, preamble: round % 4 == 0 ? .lines(0) : .detect), checkpointSpacing: spacing)
            try #require(turn(pausing: { usleep(1000) }, until: { store.isComplete }), "the input is read")
            let dialect = try #require(store.dialect)
            let dataStart = Int(try #require(store.recordReader()).checkpoints.first?.offset ?? 0)
            let records = try RecordParser.records(in: Array(bytes[dataStart...]), dialect: dialect)
            for filter in Self.filters {
                let expected = try Self.kept(records, filter: filter)
                let filtered = try FilteredRecords.start(store: store, headerRows: 1, filters: [filter])
                filtered.wait()
                let got = filtered.records(in: 0..<filtered.count).map(\.record)
                #expect(got == expected, "\(filter.pattern) (column \(filter.column ?? -1)) in \(show(bytes))")
                kept += got.count
                for format in [OutputFormat.csv, .jsonl] {
                    let plan = ExportPlan(readers: store.recordReaders, headerRows: 1, rows: filtered, name: path)
                    let (output, outcome) = try exported(plan, format: format)
                    #expect(outcome.failure == nil)
                    let reference = try DifferentialTests.reference(bytes, store: store, rows: filtered, columns: nil, format: format)
                    if format == .csv {
                        let read = try RecordParser.records(in: output, dialect: Dialect(delimiter: 0x2C))
                        #expect(read == (try RecordParser.records(in: reference, dialect: Dialect(delimiter: 0x2C))),
                                "\(filter.pattern) csv of \(show(bytes))")
                    } else {
                        #expect(output == reference, "\(filter.pattern) jsonl of \(show(bytes))")
                    }
                }
            }
        }
        #expect(kept > rounds * 20)
    }

    /// Literals a filter decided from raw bytes looks for: in cells, across a dropped
    /// closing quote (`"ab"cd` is `abcd`), in the header only, with a `k` or an `s` (also
    /// matched by a sign outside ASCII), a delimiter or a line end, at a cell's edges, and
    /// nowhere.
    static let literals = ["bc", "abc", "Oslo", "oslo", "name", "zzqqxx", "sk", "k", "a,b", "x\ny", "é中", "-1\\.5", "q", "n", "^Oslo$", "\\boslo\\b", "^zzqqxx"]

    /// A hostile input for literals: the inputs above, or quoting gone wrong on purpose.
    static func literalInput(_ generator: inout SeededGenerator) -> [UInt8] {
        if generator.next() % 2 == 0 { return input(&generator) }
        let pieces: [[UInt8]] = ["\"", "\"\"", ",", "\n", "\r\n", "\r", "ab", "c", "\"ab\"cd", "\"a,\"b", "x\"y", "Oslo",
                                 "\u{212A}", "\u{017F}", "k", "é", "中"].map { Array($0.utf8) } + [[0xFF]]
        var bytes: [UInt8] = generator.next() % 4 == 0 ? [0xEF, 0xBB, 0xBF] : []
        bytes += Array("id,name,city\n".utf8)
        for _ in 0..<(1 + Int(generator.next() % 120)) { bytes += pieces[Int(generator.next() % UInt64(pieces.count))] }
        return bytes
    }

    @Test("a filter decided from raw bytes keeps what the exact pass keeps and writes the same bytes, the input loaded or not")
    func decidedFromRawBytes() throws {
        var generator = SeededGenerator(seed: UInt64(ProcessInfo.processInfo.environment["CSVFREEZE_EXPORT_SEED"] ?? "") ?? 29)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("filter-raw-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var decided = 0, kept = 0
        for round in 0..<120 {
            let bytes = Self.literalInput(&generator)
            let path = directory.appendingPathComponent("in-\(round).csv").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let literal = Self.literals[Int(generator.next() % UInt64(Self.literals.count))]
            var filters = [RecordFilter(pattern: literal)]
            switch generator.next() % 4 {
            case 0: filters.append(RecordFilter(pattern: "b", inverted: true))
            case 1: filters[0].columns = [1]
            case 2: filters.insert(RecordFilter(pattern: "a"), at: 0)
            default: break
            }
            let spacing: Int64 = round % 2 == 0 ? 64 << 10 : 48
            // Half the time the filter starts while the input may still be loading.
            let store = try CellStore.open(InputSpec(path: path, delimiter: 0x2C, preamble: round % 4 == 0 ? .lines(0) : .detect), checkpointSpacing: spacing)
            if round % 2 == 0 { try #require(turn(pausing: { usleep(1000) }, until: { store.isComplete }), "the input is read") }
            try #require(turn(pausing: { usleep(500) }, until: { store.dialect != nil || store.isComplete }), "the dialect is known")
            let fast = try FilteredRecords.start(store: store, headerRows: 1, filters: filters, decidesFromRawBytes: true)
            fast.wait()
            let fastOutputs = try [OutputFormat.csv, .jsonl].map { format in
                try exported(ExportPlan(readers: store.recordReaders, headerRows: 1, rows: fast, name: path), format: format)
            }
            try #require(turn(pausing: { usleep(1000) }, until: { store.isComplete }), "the input is read")
            let exact = try FilteredRecords.start(store: store, headerRows: 1, filters: filters)
            exact.wait()
            let dialect = try #require(store.dialect)
            let dataStart = Int(try #require(store.recordReader()).checkpoints.first?.offset ?? 0)
            let records = try RecordParser.records(in: Array(bytes[dataStart...]), dialect: dialect)
            let expected = try filters.map { try Self.kept(records, filter: $0) }
                .reduce(Set(records.indices.dropFirst())) { $0.intersection($1) }.sorted()
            let got = fast.records(in: 0..<fast.count).map(\.record)
            #expect(got == expected, "\(filters.map(\.pattern)) in \(show(bytes))")
            #expect(exact.records(in: 0..<exact.count).map(\.record) == expected)
            if fast.wasDecidedFromRawBytes {
                decided += 1
                #expect(expected.isEmpty, "\(filters.map(\.pattern)) decided from raw bytes in \(show(bytes))")
            }
            kept += got.count
            for (format, fastOutput) in zip([OutputFormat.csv, .jsonl], fastOutputs) {
                let exactOutput = try exported(ExportPlan(readers: store.recordReaders, headerRows: 1, rows: exact, name: path), format: format)
                #expect(fastOutput.bytes == exactOutput.bytes, "\(filters.map(\.pattern)) \(format) of \(show(bytes))")
                #expect(fastOutput.outcome == exactOutput.outcome)
            }
        }
        #expect(decided > 20)
        #expect(kept > 100)
    }
}
