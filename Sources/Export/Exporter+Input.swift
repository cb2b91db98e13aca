import CellStore
import Scan
import Table

// MARK: The input: waiting for it, and taking its index as it grows

extension Exporter {
    /// Waits until the input's dialect and first checkpoint are known; nil when it ended
    /// without (empty, or unreadable) or the export was cancelled.
    func waitForInput() -> RecordReader? {
        while !control.isCancelled {
            let version = readers.changes.version
            let progress = readers.progress
            if let reader = readers.current(), !reader.checkpoints.isEmpty,
               progress.isComplete || progress.rowCount > 0 || reader.end > reader.checkpoints[0].offset {
                return reader
            }
            if progress.isComplete { return nil }
            wait(for: readers.changes, past: version)
        }
        return nil
    }

    /// The byte-order mark and the preamble, as the input has them.
    func start(of reader: RecordReader) -> ExportStart {
        let dataStart = reader.checkpoints[0].offset
        guard dataStart > 0 else { return ExportStart(dialect: reader.dialect) }
        var bytes = [UInt8](repeating: 0, count: Int(min(dataStart, 1 << 20)))
        let count = bytes.withUnsafeMutableBytes { reader.source.read(at: 0, into: $0) }
        bytes.removeSubrange(max(0, count)...)
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        var preamble = bytes.dropFirst(bom ? 3 : 0)
        // An Excel `sep=` line is left out: the output has a delimiter of its own.
        if reader.dialect.hasSeparatorLine, let line = Dialect.separatorLine(in: preamble) {
            preamble = preamble.dropFirst(line.length)
        }
        return ExportStart(dialect: reader.dialect, hasByteOrderMark: bom, preamble: Array(preamble))
    }

    /// Takes the index as it is now; true when it grew.
    @discardableResult
    func refresh() -> Bool {
        guard let now = readers.current() else { return false }
        let grew = now.end != reader.end || now.checkpoints.count != reader.checkpoints.count || now.isFinal != reader.isFinal
        reader = now
        let progress = readers.progress
        // A problem is known at the end, or once the index has passed its record.
        var problem = progress.quotingProblem?.record
        if problem == nil, let last = now.checkpoints.last?.row, now.wellQuotedRecords < last { problem = now.wellQuotedRecords }
        var vouched = now.wellQuotedRecords
        if let problem {
            vouched = min(vouched, problem)
        } else if now.isFinal && progress.isComplete && !readers.isSnapshot {
            vouched = Int.max
        }
        knownProblem = problem
        firstBlank = now.firstBlankRecord
        wellQuoted = vouched
        return grew
    }

    /// Waits for the input or the view to grow: for `signal` (the index's or the view's) to
    /// publish past `version`, read before the look that found nothing new. The one way an
    /// export stops while it waits is `control.cancel()`, which publishes on the signal
    /// waited on (`ScanControl.wait`); a write fails on this thread, never during a wait
    /// (the other core's stretches are written to memory, and joined before this waits).
    func wait(for signal: ChangeSignal, past version: UInt64) { control.wait(for: signal, past: version) }

    /// Records in the input known now, and whether that is all of them.
    var knownRecords: (count: Int, isAll: Bool) {
        let progress = readers.progress
        if reader.isFinal && progress.isComplete { return (progress.rowCount, true) }
        return (reader.checkpoints.last?.row ?? 0, false)
    }
}
