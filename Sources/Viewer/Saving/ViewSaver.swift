import CellStore
import Export
import Scan
import Table

/// Writes the current view (its header rows, its rows in its order, its columns) to a
/// file through the export pipeline, as `--output` writes it, on a thread of its own that
/// the viewer owns: dropping the saver cancels it and waits. It writes to a temporary file
/// beside the target and renames it at the end, so the target is never left half written;
/// a cancelled or failed save removes it.
final class ViewSaver {
    enum Outcome: Sendable, Equatable {
        case running(rows: Int, of: Int)
        case finished(rows: Int)
        case failed(String)
        case cancelled
    }

    /// What the pass hands back.
    private enum Result: Sendable {
        case wrote(Int)
        case failed(String)
    }

    let path: String
    /// The pass counts rows as its progress.
    private let scan: BackgroundScan<Result>

    /// Starts writing `plan` to `path` in `format` (CSV or TSV).
    init(_ plan: ExportPlan, path: String, format: OutputFormat, wake: @escaping @Sendable () -> Void) {
        self.path = path
        let total = plan.rowLimit ?? 0
        scan = BackgroundScan(name: "csvfreeze save", total: Int64(total), wake: wake) { control in
            ViewSaver.write(plan, to: path, format: format, control: control)
        }
    }

    var outcome: Outcome {
        switch scan.status {
        case .running(let done, let total): return .running(rows: Int(done), of: Int(total))
        case .finished(.wrote(let rows)): return .finished(rows: rows)
        case .finished(.failed(let reason)): return .failed(reason)
        case .cancelled: return .cancelled
        }
    }

    func cancel() { scan.cancel() }
    func wait() { scan.wait() }

    /// The pass: the export pipeline into a temporary file renamed over `path` at the end.
    private static func write(_ plan: ExportPlan, to path: String, format: OutputFormat, control: ScanControl) -> Result? {
        let sink: ExportSink
        do {
            sink = try ExportSink(replacing: path)
        } catch {
            return .failed(error.description)
        }
        let outcome = Exporter.run(plan, to: sink, control: control) { start, hand in
            OutputWriter(format: format, lineEnding: start.dialect.lineEnding, headerRows: plan.headerRows,
                         byteOrderMark: start.hasByteOrderMark, preamble: start.preamble, sink: hand)
        }
        if outcome.isCancelled || control.isCancelled {
            sink.discard()
            return nil
        }
        if let failure = outcome.failure ?? sink.failure {
            sink.discard()
            return .failed(failure)
        }
        guard sink.commit() else { return .failed(sink.failure ?? "cannot write \(path)") }
        return .wrote(outcome.rows)
    }
}

extension Row {
    /// The cells `columns` of this row, in that order (a column it lacks is empty).
    func projected(_ columns: [Int]) -> Row {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for column in columns {
            bytes.append(contentsOf: field(column))
            ends.append(bytes.count)
        }
        return Row(bytes: bytes, ends: ends)
    }
}
