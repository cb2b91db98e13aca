#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Scan
import Table

/// The one export pipeline: a view's header rows and rows, in its order, with its columns,
/// written by a `RecordWriting` to an `ExportSink`. `--output`, Ctrl-S and `--echo column`
/// all run it.
///
/// A record the index vouches is well quoted leaves as its own bytes when the writer's
/// dialect is the input's and the record is written whole: in the file's order whole
/// stretches between checkpoints are copied at once (in the kernel for a plain file).
/// Every other record is parsed and written as cells. Records of a view in another order
/// (a sort) are read a window at a time in the order they lie in the input, then written
/// in the view's order, so the input is read sequentially, never record by record at
/// random. It runs on the calling thread, follows an input still loading and a view still
/// growing, and stops at the next stretch when `control` is cancelled.
package final class Exporter {
    /// How an export ended.
    package struct Outcome: Sendable, Equatable {
        /// Data rows written.
        package var rows = 0
        /// Why it stopped early (the output could not be written, the format cannot hold
        /// the input, a record could not be read again).
        package var failure: String?
        /// The reader of the output went away (`| head`): not a failure.
        package var readerLeft = false
        package var isCancelled = false
        /// Where the input itself broke off (damaged compressed data): everything before
        /// was written.
        package var damage: String?
        /// Records formatted on the other cores (the rest on the exporter's own thread).
        package var recordsInParallel = 0
        /// The most bytes one stretch's output held at once between the core that made
        /// them and the sink (bounded by `StretchOutput.limit` and one chunk).
        package var largestHeld = 0
    }

    let plan: ExportPlan
    let sink: ExportSink
    let control: ScanControl
    var writer: RecordWriting!
    /// The writer's line ending (what a record written as cells ends with).
    var lineEnding: [UInt8] = [0x0A]
    var reader: RecordReader!
    var window: ByteWindow!
    /// Two windows and storages for gathering a sorted view's records on both cores.
    var gatherWork: [ParallelWork]?
    var outcome = Outcome()
    /// True when records the index vouches for may leave as their own bytes.
    var writesRawBytes = false
    /// The parser of records written as cells, fed record after record.
    var parser: RecordParser?
    var lastFedCR = false
    /// The parser was fed bytes that may leave a record open in it.
    var hasFedParser = false
    /// The chosen cells of a record that comes in pieces (a cell over 1 MiB, or more cells
    /// than the parser hands out at once).
    var projection = Projection()
    /// The average length of the records of the last window.
    var averageRecord = 512
    /// The last byte written: a lone CR there would join a LF that comes next into a CRLF.
    var lastByte: UInt8 = 0
    /// Where a record written as cells in pieces has got to (for a projection).
    var lastRecordWritten = -1
    /// Records at and after this one may hold a quoting problem: written as cells.
    var wellQuoted = 0
    /// The record of the first quoting problem, once it is known.
    var knownProblem: Int?
    /// The first blank line indexed: it is written `""`, so stretches stop before it.
    var firstBlank = Int.max

    /// A window of a sorted view holds about this many bytes of records.
    static let windowBytes = 28 << 20
    /// A record longer than this is written straight from the input in pieces.
    static let longRecord = 16 << 20
    /// A well-quoted record shorter than this is split into cells without the parser (it
    /// has fewer cells than the parser hands out at once, and none clipped).
    static let splitRecord = 1 << 16
    /// Splits well-quoted records, where the dialect lets quote parity find their cells.
    var splitter: WellQuotedSplitter?

    /// The file's readers (a plan over a snapshot never reaches the code that uses them).
    var readers: RecordReaders { plan.readers! }

    init(plan: ExportPlan, sink: ExportSink, control: ScanControl) {
        self.plan = plan
        self.sink = sink
        self.control = control
    }

    /// Writes `plan` to `sink` with the writer `makeWriter` makes once the input's start is
    /// known (its second argument is what the writer hands its bytes to).
    package static func run(_ plan: ExportPlan, to sink: ExportSink, control: ScanControl = ScanControl(),
                           makeWriter: (ExportStart, @escaping ([UInt8]) -> Bool) -> RecordWriting) -> Outcome {
        let exporter = Exporter(plan: plan, sink: sink, control: control)
        return exporter.run(makeWriter)
    }

    private func run(_ makeWriter: (ExportStart, @escaping ([UInt8]) -> Bool) -> RecordWriting) -> Outcome {
        let sink = self.sink
        let hand: ([UInt8]) -> Bool = { bytes in sink.write(bytes) }
        if let snapshot = plan.snapshot {
            writeSnapshot(snapshot, writer: makeWriter(ExportStart(dialect: Dialect()), hand))
            return control.isCancelled ? cancelled() : settle()
        }
        guard plan.readers != nil else {
            outcome.failure = "\(plan.name): nothing to write"
            return outcome
        }
        guard let first = waitForInput() else {
            if control.isCancelled { return cancelled() }
            // No input at all (or it broke off before a record): an empty output.
            writer = makeWriter(ExportStart(dialect: Dialect()), hand)
            writer.finish(endsWithTerminator: true)
            outcome.damage = plan.readers?.progress.failure
            return settle()
        }
        reader = first
        window = ByteWindow(source: first.source)
        let start = start(of: first)
        lineEnding = start.dialect.lineEnding
        if WellQuotedBoundaries.applies(delimiter: first.dialect.delimiter, quote: first.dialect.quote) {
            splitter = WellQuotedSplitter(dialect: first.dialect)
        }
        writer = makeWriter(start, hand)
        writesRawBytes = plan.allowsRawBytes && plan.columns == nil
            && writer.rawDelimiter == first.dialect.delimiter && first.dialect.quote == 0x22
        refresh()
        if plan.rows == nil {
            writeFileOrder()
        } else {
            if plan.headerRows > 0 { writeRecords(Array(0..<plan.headerRows)) }
            writeSequence()
        }
        if control.isCancelled { return cancelled() }
        if isStopped {
            // A record that cannot be written ends the output after the records before it.
            if outcome.failure != nil && sink.failure == nil && writer.isOpen { writer.finish(endsWithTerminator: true) }
            return settle()
        }
        var progress = readers.progress
        // Whether the last record written ends the input decides the output's last line
        // end: known once the input is complete, or once a later record is indexed (a
        // view can end before the loader, a filter decided from raw bytes).
        while true {
            let version = readers.changes.version
            progress = readers.progress
            guard !progress.isComplete && progress.rowCount - 1 <= lastRecordWritten && !control.isCancelled else { break }
            wait(for: readers.changes, past: version)
        }
        if control.isCancelled { return cancelled() }
        let lastInputRecord = progress.rowCount - 1
        writer.finish(endsWithTerminator: lastRecordWritten == lastInputRecord ? progress.endsWithTerminator : true)
        outcome.damage = progress.failure
        return settle()
    }

    func cancelled() -> Outcome {
        outcome.isCancelled = true
        return outcome
    }

    func settle() -> Outcome {
        if let failure = writer?.formatFailure { outcome.failure = "\(plan.name): \(failure)" }
        if sink.readerLeft {
            outcome.readerLeft = true
        } else if let failure = sink.failure {
            outcome.failure = failure
        }
        return outcome
    }

    var isStopped: Bool { control.isCancelled || !(writer?.isOpen ?? true) || sink.failure != nil || outcome.failure != nil }
}
