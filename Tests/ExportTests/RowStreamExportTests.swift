#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Foundation
import Table
import Testing

/// Rows made as they are written (`RowStream`: `--sql`, `--diff`, several inputs) through
/// the exporter: asked a batch at a time, ended as the format ends, stopped when the
/// output stops.
@Suite("Export: rows made as they are written", .timeLimit(.minutes(30)))
struct RowStreamExportTests {
    /// `count` rows after a header, then (with `failing`) a failure; it counts what it was asked.
    final class Numbers: RowStream {
        let count: Int
        let failing: Bool
        var made = 0
        var batches = 0
        var largestBatch = 0
        var stopped = false
        var failure: String?

        init(count: Int, failing: Bool = false) {
            self.count = count
            self.failing = failing
        }

        func next(batch: Int) -> StreamedRows? {
            batches += 1
            if batches == 1 { return StreamedRows(rows: [Row(cells: ["n", "square"])]) }
            guard made < count else {
                if failing { failure = "stopped after \(made)" }
                return nil
            }
            let rows = (made..<min(count, made + batch)).map { Row(cells: ["\($0)", "\($0 * $0)"]) }
            made += rows.count
            largestBatch = max(largestBatch, rows.count)
            return StreamedRows(rows: rows, types: Array(repeating: ValueType.number, count: rows.count * 2))
        }

        func stop() { stopped = true }
    }

    func export(_ stream: Numbers, format: OutputFormat, to sink: ExportSink) -> Exporter.Outcome {
        Exporter.run(stream: stream, headerRows: 1, name: "numbers", to: sink) { _, hand in
            OutputWriter(format: format, headerRows: 1, sink: hand)
        }
    }

    func bytes(_ stream: Numbers, format: OutputFormat) throws -> ([UInt8], Exporter.Outcome) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)").path
        defer { unlink(path) }
        let sink = try ExportSink(replacing: path)
        let outcome = export(stream, format: format, to: sink)
        _ = sink.commit()
        return ([UInt8](FileManager.default.contents(atPath: path) ?? Data()), outcome)
    }

    @Test("every row, a batch at a time, with JSON's types; the format's end after the last")
    func everyRow() throws {
        let stream = Numbers(count: 5000)
        let (csv, outcome) = try bytes(stream, format: .csv)
        #expect(outcome.failure == nil)
        #expect(outcome.rows == 5000)
        #expect(stream.largestBatch <= 1024)
        let expected = "n,square\n" + (0..<5000).map { "\($0),\($0 * $0)\n" }.joined()
        #expect(String(decoding: csv, as: UTF8.self) == expected)
        let (json, _) = try bytes(Numbers(count: 2), format: .json)
        #expect(String(decoding: json, as: UTF8.self) == "[\n  [\"n\",\"square\"],\n  [0,0],\n  [1,1]\n]\n")
    }

    @Test("a stream that fails: the rows before it written and the output ended, the stream's failure kept")
    func failure() throws {
        let stream = Numbers(count: 3, failing: true)
        let (json, outcome) = try bytes(stream, format: .json)
        #expect(stream.failure == "stopped after 3")
        #expect(outcome.rows == 3)
        #expect(!stream.stopped)
        #expect(String(decoding: json, as: UTF8.self).hasSuffix("[2,4]\n]\n"))
    }

    @Test("output that stops (the reader went away) stops the stream: it is asked no more")
    func readerLeaves() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        let stream = Numbers(count: 10_000_000)
        let sink = ExportSink(descriptor: ends[1])
        let previous = signal(SIGPIPE, SIG_IGN)
        defer {
            signal(SIGPIPE, previous)
            close(ends[1])
        }
        let outcome = export(stream, format: .csv, to: sink)
        #expect(outcome.readerLeft)
        #expect(stream.stopped)
        #expect(stream.made < 10_000_000)
    }
}
