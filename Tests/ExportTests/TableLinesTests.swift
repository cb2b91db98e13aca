#if canImport(Glibc)
import Glibc
#endif
import CellStore
@testable import Export
import Foundation
import Scan
import Table
import Testing
@testable import Viewer

/// An aligned table laid out in C (`TableLines`: well-quoted records in bulk, rows one by
/// one) against the writer's own Swift layout of each row, and the bounds of what a table
/// and the cores hold while they write.
@Suite("Export: an aligned table laid out in bulk", .timeLimit(.minutes(30)))
struct TableLinesTests {
    init() { setlocale(LC_ALL, "C.UTF-8") }

    /// Bytes written.
    final class Output {
        var bytes: [UInt8] = []
    }

    /// The table writer's copy for later records, after measuring `header`.
    static func measured(_ header: Row, maximumWidth: Int?, into output: Output) -> RecordWriting? {
        let writer = OutputWriter(format: .table, maximumWidth: maximumWidth, sampleRows: 1) { _ in true }
        writer.write(header)
        return writer.continuation(following: 0) { output.bytes += $0; return true }
    }

    @Test("C reads a number where CellValue does, so the same cells are right-aligned")
    func numbers() {
        var generator = SeededGenerator(seed: 5)
        let pieces = ["0", "1", "7", "12", "007", ",", ",000", ".", "-", "+", "e", "E", "%", " ", "$", "€", "£", "¥", "a", "x1", "1e", "\u{85}"]
        var cases = ["", " ", "1", "-0", "1,234", "12,34", "1,234,567.5", "0.5", ".5", "5.", "1e9", "1e", "$-3", "-$3", "+$+3",
                     "€1", "50%", "%", "007", "0", "00", " 12 ", "1,2345", "1234,567", "¥1,000"]
        for _ in 0..<20_000 {
            cases.append((0..<Int(1 + generator.next() % 6)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined())
        }
        for text in cases {
            let bytes = Array(text.utf8)
            #expect(TableLines.isNumber(bytes) == CellValue.isNumber(bytes[...]), "\(text.debugDescription)")
        }
    }

    @Test("well-quoted records laid out in bulk, and their rows laid out one by one, are the lines Swift lays out, cell for cell",
          arguments: [UInt8(ascii: ","), 0x09, UInt8(ascii: ";")])
    func agreesWithRows(delimiter: UInt8) throws {
        var generator = SeededGenerator(seed: UInt64(delimiter) + 40)
        let quoted = { (text: String) in Array(("\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"").utf8) }
        let pieces: [[UInt8]] = [[], Array("a".utf8), Array("Oslo".utf8), quoted("a \"b\", c\r\nd"), Array("\"\"".utf8),
                                 [0xFF, 0x41], Array("é中".utf8), Array(" x ".utf8), quoted("\n"), Array("12".utf8),
                                 Array("-3.5".utf8), quoted("$1,234"), Array("007".utf8), Array("e\u{301}".utf8),
                                 Array("\u{200B}".utf8), [0x7F], [0xC2, 0x85], Array("👍🏽".utf8), Array("Ω≈ç√".utf8),
                                 quoted(String(repeating: "wide ", count: 30)), Array("\u{FFFD}".utf8), [0x00, 0x41]]
        let endings: [[UInt8]] = [[0x0A], [0x0D, 0x0A], [0x0D]]
        var inBulk = 0, aside = 0
        for round in 0..<300 {
            var bytes: [UInt8] = []
            for record in 0..<Int(1 + generator.next() % 30) {
                if generator.next() % 8 == 0 {
                    bytes += endings[Int(generator.next() % 3)]   // a blank line
                    continue
                }
                for cell in 0..<Int(1 + generator.next() % 6) {
                    if cell > 0 { bytes.append(delimiter) }
                    bytes += pieces[Int(generator.next() % UInt64(pieces.count))]
                }
                if record > 0 && generator.next() % 9 == 0 { break }   // a last record without a line end
                bytes += endings[Int(generator.next() % 3)]
            }
            let dialect = Dialect(delimiter: delimiter)
            guard RecordScanner.scanning(bytes, dialect: dialect).firstProblem == nil else { continue }
            let header = Row(cells: (0..<Int(generator.next() % 5)).map { String(repeating: "h", count: 1 + $0 * 3) })
            let columns: [Int]? = round % 3 == 0 ? [2, 0, 5, 0] : round % 7 == 0 ? [] : nil
            let maximumWidth: Int? = round % 5 == 0 ? 6 : nil
            let rows = Output(), got = Output()
            let byRows = try #require(Self.measured(header, maximumWidth: maximumWidth, into: rows))
            let bulk = try #require(Self.measured(header, maximumWidth: maximumWidth, into: got))
            // The reference: each row laid out by the writer's Swift code, by grapheme cluster.
            let limit = maximumWidth ?? OutputWriter.tableAlignmentLimit
            let widths = (0..<header.count).map { max(1, min(limit, CellText.width(header.field($0), limit: limit))) }
            var expected: [UInt8] = []
            var splitter = WellQuotedSplitter(dialect: dialect)
            let shape = { (row: Row) in columns.map { Row().withBytes(of: row, columns: $0) } ?? row }
            bytes.withUnsafeBytes { all in
                splitter.split(all) { row in
                    OutputWriter.appendTableRow(shape(row), widths: widths, isHeader: false, maximumWidth: maximumWidth, to: &expected)
                    byRows.write(shape(row))
                }
                var rest = 0
                var records = 0
                while rest < all.count {
                    let left = UnsafeRawBufferPointer(rebasing: all[rest...])
                    guard let written = bulk.writeWellQuoted(left, delimiter: delimiter, quote: 0x22, columns: columns) else {
                        Issue.record("a table with its widths has a bulk way")
                        return
                    }
                    records += written.records
                    inBulk += written.records
                    rest += written.consumed
                    guard let length = written.aside else { break }
                    #expect(length > 0)
                    splitter.split(UnsafeRawBufferPointer(rebasing: all[rest..<(rest + length)])) {
                        bulk.write(shape($0))
                        records += 1
                        aside += 1
                    }
                    rest += length
                }
                #expect(rest == all.count)
            }
            byRows.finish(endsWithTerminator: true)
            bulk.finish(endsWithTerminator: true)
            let input = String(decoding: bytes, as: UTF8.self).debugDescription
            #expect(got.bytes == expected, "in bulk, \(input): \(show(got.bytes)) != \(show(expected))")
            #expect(rows.bytes == expected, "by rows, \(input): \(show(rows.bytes)) != \(show(expected))")
        }
        // Both ways were taken, the bulk one for most records.
        #expect(inBulk > 2 * aside && aside > 100, "\(inBulk) in bulk, \(aside) aside")
    }

    @Test("a long table: widths from its first 1,000 rows, a wider cell after them written whole, running on; the rest laid out on both cores")
    func lateWideCell() throws {
        var text = "id,name,amount\n"
        for index in 1...5000 {
            let name = index == 3000 ? String(repeating: "Ω", count: 150) : index == 4000 ? "name that is wider than the first rows" : "n\(index % 97)"
            text += "\(index),\(name),\(index % 13).5\n"
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("late-wide-\(getpid()).csv").path
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        defer { unlink(path) }
        let store = try CellStore.open(InputSpec(path: path), checkpointSpacing: 2048)
        while !store.isComplete { usleep(1000) }
        var plan = ExportPlan(readers: store.recordReaders, headerRows: 1, name: path)
        plan.parallelStretch = 8 << 10
        let (got, outcome) = try exported(plan, format: .table)
        #expect(outcome.failure == nil)
        // The rows after the first thousand (and the checkpoint past them) went to the cores.
        #expect(outcome.recordsInParallel > 3500, "\(outcome.recordsInParallel)")
        let lines = String(decoding: got, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 5003)
        // Widths from the first 1,000 rows (the header and 999): `id` 3 wide, `name` 4
        // (`name`; `n1`…`n96`), `amount` 6. A wider id runs on by its extra character.
        #expect(lines[0] == "id   name  amount")
        #expect(lines[2] == "  1  n1       1.5")
        #expect(lines[2 + 998] == "999  n29     11.5")
        #expect(lines[2 + 999] == "1000  n30     12.5")
        #expect(lines[2 + 2999] == "3000  " + String(repeating: "Ω", count: 150) + "    10.5")
        #expect(lines[2 + 3999] == "4000  name that is wider than the first rows     9.5")
        #expect(lines[2 + 4999] == "5000  n53      8.5")
        #expect(!String(decoding: got, as: UTF8.self).contains("…"))
    }

    @Test("a table holds at most 4 MiB of its first rows to measure them, however long their cells")
    func boundedSample() throws {
        var output: [UInt8] = []
        let writer = OutputWriter(format: .table) { output += $0; return true }
        let long = String(repeating: "x", count: 512 << 10)
        writer.write(Row(cells: ["id", "text"]))
        for index in 0..<40 { writer.write(Row(cells: ["\(index)", long])) }
        writer.finish()
        #expect(writer.largestSampleHeld <= OutputWriter.tableSampleBytes + (512 << 10) + 16, "\(writer.largestSampleHeld)")
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 42)
        #expect(lines.dropFirst(2).allSatisfy { $0.hasSuffix(long) })
    }

    @Test("what the cores hold for the sink stays bounded when each record grows far larger (JSON lines' keys)")
    func boundedHandOver() throws {
        let names = (0..<100).map { "column named at length: number \($0) of a wide header row" }
        var text = names.joined(separator: ",") + "\n"
        for index in 0..<2000 { text += (0..<100).map { $0 % 3 == 0 ? "\(index % 10)" : "" }.joined(separator: ",") + "\n" }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wide-keys-\(getpid()).csv").path
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        defer { unlink(path) }
        let store = try CellStore.open(InputSpec(path: path), checkpointSpacing: 4096)
        while !store.isComplete { usleep(1000) }
        var plan = ExportPlan(readers: store.recordReaders, headerRows: 1, name: path)
        plan.parallelStretch = 64 << 10
        let (got, outcome) = try exported(plan, format: .jsonl)
        #expect(outcome.failure == nil)
        #expect(outcome.recordsInParallel > 1000)
        // A stretch of 64 KiB becomes some 5 MB of JSON: it leaves in chunks, the core waiting.
        #expect(got.count > 8_000_000)
        #expect(outcome.largestHeld > 0 && outcome.largestHeld <= StretchOutput.limit + (256 << 10), "\(outcome.largestHeld)")
        #expect(got.split(separator: 0x0A).count == 2000)
    }
}
