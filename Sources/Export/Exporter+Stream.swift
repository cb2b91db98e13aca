import CellStore
import Scan
import Table

// MARK: Rows made as they are written (a `RowStream`)

extension Exporter {
    /// Writes `stream`'s rows to `sink` with the writer `makeWriter` makes, as `run` does
    /// a view's: `--sql`, `--diff` and several inputs. The writer is made before the first
    /// row is asked for, so a stream that fails at once still ends the output as the
    /// format ends an empty one (JSON's `[]`). `name` is the output's, for messages.
    package static func run(stream: some RowStream, headerRows: Int, name: String, to sink: ExportSink,
                            control: ScanControl = ScanControl(),
                            makeWriter: (ExportStart, @escaping ([UInt8]) -> Bool) -> RecordWriting) -> Outcome {
        var plan = ExportPlan(snapshot: RowSnapshot(rows: []), headerRows: headerRows, name: name)
        plan.yieldsToInteractiveThreads = false
        let exporter = Exporter(plan: plan, sink: sink, control: control)
        let hand: ([UInt8]) -> Bool = { bytes in sink.write(bytes) }
        exporter.writeStream(stream, writer: makeWriter(ExportStart(dialect: Dialect()), hand))
        return exporter.control.isCancelled ? exporter.cancelled() : exporter.settle()
    }

    private func writeStream(_ stream: some RowStream, writer: RecordWriting) {
        self.writer = writer
        var record = 0
        while !isStopped, let batch = stream.next(batch: 1024) {
            // Rows counted a batch at a time: a count per row costs an atomic add each.
            var written = 0
            if let types = batch.types {
                var start = 0
                for row in batch.rows {
                    written += 1
                    guard writer.write(row, types: types[start..<(start + row.count)]) else { break }
                    start += row.count
                }
            } else {
                for row in batch.rows {
                    written += 1
                    guard writer.write(row) else { break }
                }
            }
            countRows(from: record, to: record + written)
            record += written
        }
        // A failure of the stream ends the output after the rows before it, as a finished
        // one ends; output that cannot be written is not finished.
        if isStopped && stream.failure == nil {
            stream.stop()
            return
        }
        writer.finish(endsWithTerminator: true)
    }
}
