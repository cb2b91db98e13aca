import CellStore
@testable import Export
import Foundation
import Query
import Table
import Testing
import TestSupport
import Viewer

/// The export pipeline against a slow reference writer: every record parsed whole, picked
/// and ordered by the same view, written cell by cell. Random hostile inputs (quotes, CR,
/// CRLF, a byte-order mark, a preamble, ragged rows, invalid UTF-8, empty fields, a last
/// record without a line ending, unclosed quotes) go through every format, with and without
/// a filter, a sort and chosen columns.
@Suite("Export: the pipeline against a reference writer", .timeLimit(.minutes(30)))
struct DifferentialTests {
    static let pieces: [[UInt8]] = ["a", "bc", "Oslo", ",", ",", ",", "\"", "\"\"", "\"x,\ny\"", "\"q\"", "\n", "\n", "\r\n", "\r",
                                    " ", "é", "中", "\t", "7", "-1.5", "\n\n"].map { Array($0.utf8) } + [[0xFF], [0xC3]]

    /// A random input: well quoted most of the time (so records leave as their own bytes),
    /// hostile the rest.
    static func input(_ generator: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        if generator.next() % 5 == 0 { bytes += [0xEF, 0xBB, 0xBF] }
        if generator.next() % 4 == 0 { bytes += Array("# exported, \"today\"\r\n".utf8) }
        let hostile = generator.next() % 3 == 0
        let records = 1 + Int(generator.next() % 40)
        let width = 1 + Int(generator.next() % 4)
        let endings: [[UInt8]] = [[0x0A], [0x0D, 0x0A], [0x0D]]
        let ending = endings[Int(generator.next() % 3)]
        bytes += Array("id,name,city,n".utf8).prefix(width == 1 ? 2 : 14)
        bytes += ending
        for record in 0..<records {
            if hostile {
                for _ in 0..<Int(generator.next() % 12) { bytes += pieces[Int(generator.next() % UInt64(pieces.count))] }
                if generator.next() % 2 == 0 { bytes += ending }
                continue
            }
            // Well quoted: quotes only around whole fields, doubled inside; ragged rows.
            let cells = max(1, width + Int(generator.next() % 3) - 1)
            for cell in 0..<cells {
                if cell > 0 { bytes.append(0x2C) }
                switch generator.next() % 12 {
                case 0: break   // empty
                case 1: bytes += Array("\"a \"\"b\"\", c\r\nd\"".utf8)
                case 2: bytes += Array("Oslo".utf8)
                case 3: bytes += [0xFF, 0x41]
                case 4: bytes += Array("\(record * 7 % 13)".utf8)
                case 5: bytes += Array("\"\"".utf8)
                // What a table shows otherwise than as it is: a mark and a character of no
                // width (laid out by grapheme cluster), controls, numbers of every shape.
                case 6: bytes += Array("e\u{301}x\u{200B}".utf8)
                case 7: bytes += Array("\"$1,234.50\"".utf8)
                case 8: bytes += Array(" 12 ".utf8) + [0x7F, 0x09]
                case 9: bytes += Array("\u{85}€-3.5e2%".utf8)
                case 10: bytes += Array(String(repeating: "long ", count: Int(generator.next() % 40)).utf8)
                default: bytes += Array("é中".utf8)
                }
            }
            if record < records - 1 || generator.next() % 3 != 0 {
                bytes += generator.next() % 7 == 0 ? endings[Int(generator.next() % 3)] : ending
            }
        }
        return bytes
    }

    enum Variant: CaseIterable {
        case plain, filter, filterOut, sort, sortDescending, columns, filterSortColumns
    }

    /// The view a variant asks for, over `store`.
    static func view(_ variant: Variant, store: CellStore) throws -> (rows: (any RecordSequence)?, columns: [Int]?, keep: [AnyObject]) {
        switch variant {
        case .plain: return (nil, nil, [])
        case .filter, .filterOut:
            let filter = try FilteredRecords.start(store: store, headerRows: 1,
                                                   filters: [RecordFilter(pattern: "Oslo|b", inverted: variant == .filterOut)])
            filter.wait()
            return (filter, nil, [filter])
        case .sort, .sortDescending:
            let sort = SortedRecords.start(store: store, headerRows: 1, keys: [SortKey(column: 0, descending: variant == .sortDescending)])
            sort.wait()
            return (sort, nil, [sort])
        case .columns:
            return (nil, [2, 0, 7], [])
        case .filterSortColumns:
            let sort = SortedRecords.start(store: store, headerRows: 1, keys: [SortKey(column: 1)])
            sort.wait()
            let filter = try FilteredRecords.start(store: store, headerRows: 1, filters: [RecordFilter(pattern: "a", columns: [1, 0])],
                                                   over: sort)
            filter.wait()
            return (filter, [1, 0], [sort, filter])
        }
    }

    /// The reference: each record parsed alone from the whole input, the view's records in
    /// its order, projected, written by `OutputWriter` one cell at a time.
    static func reference(_ bytes: [UInt8], store: CellStore, rows: (any RecordSequence)?, columns: [Int]?,
                          format: OutputFormat, sampleRows: Int = OutputWriter.tableSampleRows) throws -> [UInt8] {
        let dialect = try #require(store.dialect)
        let dataStart = Int(try #require(store.recordReader()).checkpoints.first?.offset ?? 0)
        let records = try RecordParser.records(in: Array(bytes[dataStart...]), dialect: dialect)
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        var output: [UInt8] = []
        let writer = OutputWriter(format: format, lineEnding: dialect.lineEnding, headerRows: 1, byteOrderMark: bom,
                                  preamble: Array(bytes[(bom ? 3 : 0)..<dataStart]), sampleRows: sampleRows) { output += $0; return true }
        let order = rows.map { sequence in [0] + sequence.records(in: 0..<sequence.count).map(\.record) }
            ?? Array(records.indices)
        for record in order {
            let row = records[record]
            writer.write(columns.map { Row().withBytes(of: row, columns: $0) } ?? row)
        }
        let last = order.last ?? -1
        writer.finish(endsWithTerminator: last == records.count - 1 ? (bytes.last == 0x0A || bytes.last == 0x0D || records.isEmpty) : true)
        return output
    }

    @Test("random hostile inputs: every format, with and without filter, sort and columns, as the reference writes them")
    func differential() throws {
        // A table measures display widths as a UTF-8 terminal does.
        setlocale(LC_ALL, "C.UTF-8")
        var generator = SeededGenerator(seed: UInt64(ProcessInfo.processInfo.environment["CSVFREEZE_EXPORT_SEED"] ?? "") ?? 11)
        var runs = 0
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-diff-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // CSVFREEZE_EXPORT_ROUNDS runs more (the benchmark's randomized runs do too).
        let rounds = Int(ProcessInfo.processInfo.environment["CSVFREEZE_EXPORT_ROUNDS"] ?? "") ?? 48
        for round in 0..<rounds {
            let bytes = Self.input(&generator)
            let path = directory.appendingPathComponent("in-\(round).csv").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            // Checkpoints a few bytes apart in half the rounds: stretches then go to both cores.
            let spacing: Int64 = round % 2 == 0 ? 64 << 10 : 16
            let store = try CellStore.open(InputSpec(path: path, delimiter: 0x2C, preamble: round % 4 == 0 ? .lines(0) : .detect), checkpointSpacing: spacing)
            try #require(turn(pausing: { usleep(1000) }, until: { store.isComplete }), "the input is read")
            _ = store.row(0)
            for variant in Variant.allCases {
                let (rows, columns, keep) = try Self.view(variant, store: store)
                for format in [OutputFormat.csv, .tsv, .json, .jsonl, .table] {
                    var plan = ExportPlan(readers: store.recordReaders, headerRows: 1, rows: rows, columns: columns, name: path)
                    plan.parallelStretch = spacing == 16 ? 1 : 4 << 20
                    // A table that measures two rows lays out the rest on both cores, in bulk.
                    let (got, outcome) = try exported(plan, format: format, sampleRows: 2)
                    let expected = try Self.reference(bytes, store: store, rows: rows, columns: columns, format: format, sampleRows: 2)
                    #expect(outcome.failure == nil)
                    if format == .csv || format == .tsv {
                        // Records may leave as their own bytes: the cells read back are the same.
                        let dialect = Dialect(delimiter: format == .csv ? 0x2C : 0x09)
                        let read = try RecordParser.records(in: got, dialect: dialect)
                        let want = try RecordParser.records(in: expected, dialect: dialect)
                        #expect(read == want, "\(variant) \(format) of \(show(bytes)): \(show(got)) != \(show(expected))")
                    } else {
                        if got != expected, let dump = ProcessInfo.processInfo.environment["CSVFREEZE_EXPORT_DUMP"] {
                            FileManager.default.createFile(atPath: dump + "-\(variant)", contents: Data(bytes))
                        }
                        #expect(got == expected, "\(variant) \(format) of \(show(bytes)): \(show(got)) != \(show(expected))")
                    }
                    runs += 1
                }
                _ = keep
            }
            // Unchanged CSV of a well-quoted comma file is the file, byte for byte (but for
            // blank lines, written `""`).
            if store.progress.quotingProblem == nil, store.recordReader()?.firstBlankRecord == Int.max {
                let plan = ExportPlan(readers: store.recordReaders, headerRows: 1, name: path)
                let (got, _) = try exported(plan, format: .csv)
                #expect(got == bytes, "plain csv of \(show(bytes)): \(show(got))")
            }
        }
        #expect(runs == rounds * Variant.allCases.count * 5)
    }
}

extension Row {
    /// `columns` of `row`, byte for byte (a column it lacks is empty).
    func withBytes(of row: Row, columns: [Int]) -> Row {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for column in columns {
            bytes += row.field(column)
            ends.append(bytes.count)
        }
        return Row(bytes: bytes, ends: ends)
    }
}

/// Bytes as text with controls visible, for messages.
func show(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self).debugDescription
}
