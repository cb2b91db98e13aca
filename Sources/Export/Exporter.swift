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
    private var window: ByteWindow!
    /// Two windows and storages for gathering a sorted view's records on both cores.
    private var gatherWork: [ParallelWork]?
    var outcome = Outcome()
    /// True when records the index vouches for may leave as their own bytes.
    private var writesRawBytes = false
    /// The parser of records written as cells, fed record after record.
    private var parser: RecordParser?
    private var lastFedCR = false
    /// The parser was fed bytes that may leave a record open in it.
    private var hasFedParser = false
    /// The chosen cells of a record that comes in pieces (a cell over 1 MiB, or more cells
    /// than the parser hands out at once).
    private var projection = Projection()
    /// The average length of the records of the last window.
    private var averageRecord = 512
    /// The last byte written: a lone CR there would join a LF that comes next into a CRLF.
    var lastByte: UInt8 = 0
    /// Where a record written as cells in pieces has got to (for a projection).
    var lastRecordWritten = -1
    /// Records at and after this one may hold a quoting problem: written as cells.
    var wellQuoted = 0
    /// The record of the first quoting problem, once it is known.
    private var knownProblem: Int?
    /// The first blank line indexed: it is written `""`, so stretches stop before it.
    private var firstBlank = Int.max

    /// A window of a sorted view holds about this many bytes of records.
    static let windowBytes = 28 << 20
    /// A record longer than this is written straight from the input in pieces.
    static let longRecord = 16 << 20
    /// A well-quoted record shorter than this is split into cells without the parser (it
    /// has fewer cells than the parser hands out at once, and none clipped).
    static let splitRecord = 1 << 16
    /// Splits well-quoted records, where the dialect lets quote parity find their cells.
    private var splitter: WellQuotedSplitter?

    /// The file's readers (a plan over a snapshot never reaches the code that uses them).
    var readers: RecordReaders { plan.readers! }

    private init(plan: ExportPlan, sink: ExportSink, control: ScanControl) {
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

    private func cancelled() -> Outcome {
        outcome.isCancelled = true
        return outcome
    }

    private func settle() -> Outcome {
        if let failure = writer?.formatFailure { outcome.failure = "\(plan.name): \(failure)" }
        if sink.readerLeft {
            outcome.readerLeft = true
        } else if let failure = sink.failure {
            outcome.failure = failure
        }
        return outcome
    }

    var isStopped: Bool { control.isCancelled || !(writer?.isOpen ?? true) || sink.failure != nil || outcome.failure != nil }

    // MARK: Rows in memory

    /// Writes a snapshot's rows (a sheet's): the rows above, its header rows, then its rows
    /// in the view's order.
    private func writeSnapshot(_ snapshot: RowSnapshot, writer: RecordWriting) {
        self.writer = writer
        // A row in memory that is not whole (a diff's record with a cell over 1 MiB) is not
        // written cut: the write stops and says so.
        func writeCells(_ row: Row, record: Int) {
            if let whole = plan.wholeCells, whole.records[record] != nil {
                writeWhole(row, record: record, whole: whole)
                return
            }
            guard !row.isCut else {
                outcome.failure = "\(plan.name): row \(max(0, record - plan.headerRows) + 1) holds a cell longer than 1 MiB "
                    + "(or more than \(RecordParser.Limits.fieldLimit) fields), which is not written whole from here"
                return
            }
            self.writeCells(row, record: record)
        }
        for row in plan.rowsAbove where !isStopped { writeCells(row, record: -1) }
        let headers = min(plan.headerRows, snapshot.count)
        snapshot.forEachRow(in: 0..<headers) { record, row in
            writeCells(row, record: record)
            return !isStopped
        }
        if let rows = plan.rows {
            let count = min(rows.count, plan.rowLimit ?? Int.max)
            var written = 0
            while written < count && !isStopped {
                let refs = rows.records(in: written..<min(count, written + 4096))
                if refs.isEmpty { break }
                for ref in refs where !isStopped {
                    guard let row = snapshot.row(ref.record) else { continue }
                    writeCells(row, record: ref.record)
                    countRows(from: ref.record, to: ref.record + 1)
                }
                written += refs.count
            }
        } else {
            let end = min(snapshot.count, plan.rowLimit.map { plan.headerRows + $0 } ?? Int.max)
            snapshot.forEachRow(in: headers..<end) { record, row in
                writeCells(row, record: record)
                countRows(from: record, to: record + 1)
                return !isStopped
            }
        }
        if !isStopped { writer.finish(endsWithTerminator: true) }
    }

    /// Writes a snapshot's row whose cell in `whole.column` is only the start of a value:
    /// the value whole, read again from `whole.source` a piece at a time, in its place.
    private func writeWhole(_ given: Row, record: Int, whole: WholeCells) {
        guard case .success(let shaped?) = Self.shaped(given, record: record, plan: plan, projection: &projection) else { return }
        let place = plan.columns.map { $0.firstIndex(of: whole.column) } ?? whole.column
        guard let place, place < shaped.count else {
            // The column is not written: nothing stands in for it.
            writer.write(shaped)
            return
        }
        var before = Row(bytes: Array(shaped.bytes[..<(place == 0 ? 0 : shaped.ends[place - 1])]), ends: Array(shaped.ends[..<place]))
        var first = true
        let found = whole.read(record) { piece in
            defer { first = false }
            if first {
                before.bytes.append(contentsOf: piece)
                before.ends.append(before.bytes.count)
                before.continuesInNext = true
                return writer.write(before) && !isStopped
            }
            return writer.write(Row(bytes: Array(piece), ends: [piece.count], continuesPrevious: true, continuesInNext: true))
                && !isStopped
        }
        guard found == true, !first else {
            outcome.failure = "\(plan.name): row \(max(0, record - plan.headerRows) + 1) holds a value longer than 1 MiB that "
                + "could not be read again from the input (it changed?)"
            return
        }
        guard !isStopped else { return }
        let start = shaped.ends[place]
        writer.write(Row(bytes: Array(shaped.bytes[start...]), ends: [0] + shaped.ends[(place + 1)...].map { $0 - start },
                         continuesPrevious: true))
    }

    // MARK: The input

    /// Waits until the input's dialect and first checkpoint are known; nil when it ended
    /// without (empty, or unreadable) or the export was cancelled.
    private func waitForInput() -> RecordReader? {
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
    private func start(of reader: RecordReader) -> ExportStart {
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
    private func refresh() -> Bool {
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
    private func wait(for signal: ChangeSignal, past version: UInt64) { control.wait(for: signal, past: version) }

    /// Records in the input known now, and whether that is all of them.
    private var knownRecords: (count: Int, isAll: Bool) {
        let progress = readers.progress
        if reader.isFinal && progress.isComplete { return (progress.rowCount, true) }
        return (reader.checkpoints.last?.row ?? 0, false)
    }

    // MARK: The file's order

    /// Every record from the first, in order: whole stretches between checkpoints copied
    /// where they may be, records the index does not vouch for parsed.
    private func writeFileOrder() {
        // A snapshot of an input still loading ends at its last whole record.
        let limit = min(plan.rowLimit.map { plan.headerRows + $0 } ?? Int.max,
                        readers.isSnapshot ? readers.progress.rowCount : Int.max)
        var record = 0
        // Where `record` starts, when it starts at checkpoint `checkpoint`.
        var position: Int64? = reader.checkpoints[0].offset
        var checkpoint = 0
        // Read from JSON with columns found late: the header is written as cells (named
        // whole), so the records are parsed rather than copied.
        var parsesRest = !writesRawBytes || reader.json?.current.lateNames.isEmpty == false
        while !isStopped {
            let version = readers.changes.version
            let (known, isAll) = knownRecords
            let end = min(known, limit)
            if !parsesRest, let start = position, let problem = knownProblem, record >= problem {
                // Past a quoting problem nothing is vouched for: parse on from here.
                parsesRest = true
                position = start
            }
            if parsesRest, var start = position {
                writeParsed(from: &start, record: &record, limit: limit, isAll: isAll)
                position = start
                if isAll && start >= reader.end { break }
            } else if let start = position {
                // Whole stretches the index vouches for, as they are.
                let checkpoints = reader.checkpoints
                var rawEnd = start
                var rawRecords = record
                var next = checkpoint
                while next + 1 < checkpoints.count, checkpoints[next + 1].row <= min(end, wellQuoted, firstBlank) {
                    next += 1
                    rawEnd = checkpoints[next].offset
                    rawRecords = checkpoints[next].row
                }
                if isAll && !readers.isSnapshot && next == checkpoints.count - 1 && known <= min(limit, wellQuoted, firstBlank)
                    && rawEnd < reader.end {
                    rawEnd = reader.end
                    rawRecords = known
                }
                if rawEnd > start {
                    copyRaw(from: start, to: rawEnd, records: rawRecords - record)
                    lastRecordWritten = rawRecords - 1
                    countRows(from: record, to: rawRecords)
                    record = rawRecords
                    position = rawEnd
                    checkpoint = next
                    continue
                }
                position = nil
            }
            if !parsesRest && position == nil {
                // One at a time up to the next checkpoint (a limit or a problem inside a stretch).
                let checkpoints = reader.checkpoints
                let following = checkpoints.firstIndex { $0.row > record }
                let upTo = following.map { min(checkpoints[$0].row, end) } ?? (isAll ? end : record)
                if upTo > record {
                    writeRecords(Array(record..<upTo))
                    record = upTo
                    if let following, checkpoints[following].row == record {
                        position = checkpoints[following].offset
                        checkpoint = following
                    }
                    continue
                }
            }
            if (isAll && record >= end) || record >= limit { break }
            // A write that failed in this round (a full disk, a reader gone) stops the output:
            // nothing would publish the news waited for, so it is looked at first.
            if !refresh() && !isStopped { wait(for: readers.changes, past: version) }
        }
    }

    /// Parses the input from `position` on (a record's start) up to what is indexed, and
    /// writes each record as cells.
    private func writeParsed(from position: inout Int64, record: inout Int, limit: Int, isAll: Bool) {
        if parser == nil { parser = try? RecordParser(dialect: reader.dialect, streams: true) }
        guard let parser else {
            outcome.failure = "cannot set up the parser"
            return
        }
        let end = isAll ? reader.end : (reader.checkpoints.last?.offset ?? position)
        // JSON opens its array with the first record: the header rows, or the first record,
        // go through the writer itself.
        // A table measures its first rows itself: it has no copy for other cores before.
        let firstParallel = max(plan.headerRows, 1, writer.leadingRecords)
        let parallel = limit == Int.max && !hasFedParser
            && (writer.leadingRecords > 0 || writer.continuation(following: 0, sink: { _ in true }) != nil)
        if parallel && record >= firstParallel {
            // Parse and write on two cores, as far as the input is indexed.
            let before = position
            writeInParallel(from: &position, record: &record, isAll: isAll)
            if position != before || !isAll || isStopped { return }
        }
        if parallel && record < firstParallel,
           let next = reader.checkpoints.first(where: { $0.row >= firstParallel && $0.offset > position }) {
            // The header rows with the writer itself, up to a checkpoint; the rest on two cores.
            let before = record
            var at = position
            while at < next.offset && !isStopped {
                // A mebibyte at a time: the rows before the checkpoint may be long.
                let stop = min(next.offset, at + (1 << 20)), from = at
                window.withBytes(from..<stop) { parser.parse($0) }
                at = stop
                deliver(parser.takeRecords(), record: &record, limit: limit)
            }
            countRows(from: before, to: record)
            position = next.offset
            if record == next.row {
                writeInParallel(from: &position, record: &record, isAll: isAll)
                return
            }
        } else if parallel && !isAll {
            return   // the header's checkpoint is not indexed yet
        }
        hasFedParser = true
        let chunk: Int64 = 1 << 20
        while position < end && record < limit && !isStopped {
            let stop = min(end, position + chunk)
            let before = record
            let from = position
            window.withBytes(from..<stop) { parser.parse($0) }
            position = stop
            deliver(parser.takeRecords(), record: &record, limit: limit)
            countRows(from: before, to: record)
        }
        if isAll && position >= end && record < limit && !isStopped && readers.progress.failure == nil {
            let before = record
            parser.finish()
            deliver(parser.takeRecords(), record: &record, limit: limit)
            countRows(from: before, to: record)
        }
    }


    /// Writes parsed rows (records and pieces) in order, from record `record` on.
    private func deliver(_ rows: [Row], record: inout Int, limit: Int) {
        for row in rows {
            if record >= limit || isStopped { return }
            writeCells(row, record: record)
            if !row.continuesInNext {
                lastRecordWritten = record
                record += 1
            }
        }
    }

    /// Copies bytes `start..<end` of the input, `records` whole records, as they are.
    private func copyRaw(from start: Int64, to end: Int64, records: Int) {
        var position = start
        if end - start >= 1 << 20, let file = reader.source as? FileSource, writer.flushAll() {
            position += sink.copy(from: file.descriptor, offset: start, length: end - start)
            if position > start { lastByte = window.withBytes((position - 1)..<position) { $0.first ?? 0 } }
        }
        var counted = position == start ? 0 : records
        while position < end && !isStopped {
            let stop = min(end, position + (1 << 20))
            let from = position
            window.withBytes(from..<stop) { bytes in
                _ = writer.writeRaw(bytes, records: stop == end ? records - counted : 0, lineEnding: false)
                if let last = bytes.last { lastByte = last }
            }
            if stop == end { counted = records }
            position = stop
            if control.isCancelled { return }
        }
    }

    func countRows(from: Int, to: Int) {
        let rows = max(0, to - max(from, plan.headerRows))
        guard rows > 0 else { return }
        outcome.rows += rows
        control.advance(by: Int64(rows))
    }

    // MARK: Records one at a time

    /// Writes `records` (in increasing order), each found from the checkpoint before it.
    private func writeRecords(_ records: [Int]) {
        SpanFinder(reader: reader, window: window).forEachSpan(ofRecords: records) { span in
            write(span)
            return !isStopped
        }
    }

    /// Writes one record from its span: its own bytes, or its cells.
    private func write(_ span: RecordSpan, bytes given: UnsafeRawBufferPointer? = nil) {
        defer {
            lastRecordWritten = span.record
            countRows(from: span.record, to: span.record + 1)
        }
        // A blank line is written `""` (readers such as Python's csv skip blank lines).
        let isBlank = span.length <= 2 && span.record >= firstBlank
            && (given.map { $0.allSatisfy { $0 == 0x0D || $0 == 0x0A } }
                ?? window.withBytes(span.start..<span.end) { $0.allSatisfy { $0 == 0x0D || $0 == 0x0A } })
        // Read from JSON, the header names columns found late only as cells (see `JSONReport`).
        let isLateHeader = span.record == 0 && reader.json?.current.lateNames.isEmpty == false
        if writesRawBytes && span.record < wellQuoted && !isBlank && !isLateHeader {
            if let given {
                writer.writeRaw(given, records: 1, lineEnding: !span.hasTerminator)
                if let last = given.last { lastByte = last }
            } else {
                forEachPiece(of: span) { bytes, isLast in
                    writer.writeRaw(bytes, records: isLast ? 1 : 0, lineEnding: isLast && !span.hasTerminator)
                    if let last = bytes.last { lastByte = last }
                }
            }
            if !span.hasTerminator { lastByte = lineEnding.last ?? 0x0A }
            return
        }
        if span.record < wellQuoted && span.hasTerminator && span.length < Self.splitRecord && !isLateHeader, var splitter {
            // A short record the index vouches for: its cells straight from its bytes, as the
            // parser reads them (no cell clipped, no piece), several times faster.
            let split = { (bytes: UnsafeRawBufferPointer) in splitter.split(bytes) { row in self.writeCells(row, record: span.record) } }
            if let given { split(given) } else { window.withBytes(span.start..<span.end, split) }
            self.splitter = splitter
            return
        }
        // As cells: a well-quoted record with a line ending joins the ones before in the
        // parser; others are parsed alone, as a record read from its offset is (the last
        // record of an input that has no line ending may be an open quote, and text after
        // a closing quote is read by the parser's own rule, which needs the record's start).
        let parser: RecordParser
        let isShared = span.hasTerminator && span.record < wellQuoted
        if isShared {
            if self.parser == nil { self.parser = try? RecordParser(dialect: reader.dialect, streams: true) }
            guard let shared = self.parser else { return }
            parser = shared
        } else {
            guard let alone = try? RecordParser(dialect: reader.dialect, streams: true) else { return }
            parser = alone
        }
        var record = span.record
        func feed(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            // A blank line after a record that ended with a lone CR would read as its LF:
            // it is fed as a blank line of a CR, which reads as the same one empty cell.
            if isShared && lastFedCR && bytes.count == 1 && bytes.first == 0x0A {
                let blank: [UInt8] = [0x0D]
                blank.withUnsafeBytes { parser.parse($0) }
                for row in parser.takeRecords() where !isStopped {
                    writeCells(row, record: record)
                    if !row.continuesInNext { record += 1 }
                }
                return
            }
            parser.parse(bytes)
            if isShared { lastFedCR = bytes.last == 0x0D }
            for row in parser.takeRecords() where !isStopped {
                writeCells(row, record: record)
                if !row.continuesInNext { record += 1 }
            }
        }
        if let given {
            feed(given)
        } else {
            forEachPiece(of: span) { bytes, _ in feed(bytes) }
        }
        if !span.hasTerminator {
            parser.finish()
            for row in parser.takeRecords() where !isStopped { writeCells(row, record: record) }
        }
    }

    /// Calls `body` with the bytes of `span`, a mebibyte at a time (the window stays its size).
    private func forEachPiece(of span: RecordSpan, _ body: (UnsafeRawBufferPointer, Bool) -> Void) {
        var position = span.start
        while position < span.end && !isStopped {
            let stop = min(span.end, position + (1 << 20))
            let from = position
            window.withBytes(from..<stop) { body($0, stop == span.end) }
            position = stop
        }
        if span.length > Self.longRecord { window.shrink() }
    }

    /// Writes a record (or a piece) as cells, the columns chosen.
    private func writeCells(_ given: Row, record: Int) {
        var given = given
        if record == 0, let json = reader.json { given = json.extending(header: given) }
        switch Self.shaped(given, record: record, plan: plan, projection: &projection) {
        case .success(let row?):
            writer.write(row)
            if !row.continuesInNext { lastByte = lineEnding.last ?? 0x0A }
        case .success(nil):
            break
        case .failure(let failure):
            outcome.failure = failure.description
        }
    }

    /// `row` as the plan writes it: its columns chosen (a record in pieces is gathered by
    /// `projection`: nil until its last piece).
    static func shaped(_ row: Row, record: Int, plan: ExportPlan, projection: inout Projection) -> Result<Row?, ExportError> {
        guard let columns = plan.columns else { return .success(row) }
        if row.continuesInNext || row.continuesPrevious || projection.isGathering {
            guard projection.gather(row, columns: columns) else {
                return .failure(.unreadable("\(plan.name): \(RecordPlace.name(record, headerRows: plan.headerRows)) has chosen cells over \(Projection.limit >> 20) MiB in all; "
                                            + "write it without --columns (or hidden columns)"))
            }
            return .success(row.continuesInNext ? nil : projection.take(columns))
        }
        var bytes: [UInt8] = []
        var ends: [Int] = []
        ends.reserveCapacity(columns.count)
        for column in columns {
            bytes.append(contentsOf: row.field(column))
            ends.append(bytes.count)
        }
        return .success(Row(bytes: bytes, ends: ends))
    }

    // MARK: A view's rows in its order

    /// The rows of `plan.rows`, in its order, as they come.
    private func writeSequence() {
        guard let rows = plan.rows else { return }
        var written = 0
        var batch = 2048
        // A sorted view's next window is gathered on both cores while this thread writes
        // the one before (two sets of slots, used in turn).
        var gathering: GatheringWindow?
        var turn = 0
        defer { gathering?.join.wait() }
        func writeGathering() {
            guard let previous = gathering else { return }
            gathering = nil
            let average = writeGathered(previous)
            batch = max(1024, min(1 << 20, Self.windowBytes * 7 / 8 / max(64, average)))
        }
        while !isStopped {
            let version = rows.changes.version
            let complete = rows.isComplete
            let available = min(rows.count, plan.rowLimit ?? Int.max)
            while written < available && !isStopped {
                // Small windows while the view's pass still holds its memory (a sort's
                // merge), full ones after.
                let size = rows.isComplete ? batch : min(batch, 4096)
                let refs = rows.records(in: written..<min(available, written + size))
                if refs.isEmpty { break }
                refresh()
                written += refs.count
                if Self.isStraight(refs) {
                    writeGathering()
                    let average = writeStraight(refs)
                    batch = max(1024, min(1 << 20, Self.windowBytes * 7 / 8 / max(64, average)))
                    continue
                }
                let next = startGathering(refs, into: gatherSets[turn % 2])
                turn += 1
                writeGathering()
                gathering = next
            }
            writeGathering()
            if (complete && written >= available) || written >= (plan.rowLimit ?? Int.max) { break }
            if !isStopped { wait(for: rows.changes, past: version) }
        }
    }

    /// True for records in the file's order with some offsets unknown (a filter): written
    /// straight through, no window.
    private static func isStraight(_ refs: [RecordRef]) -> Bool {
        zip(refs, refs.dropFirst()).allSatisfy { $0.record < $1.record } && refs.contains(where: { $0.offset == nil })
    }

    private func writeStraight(_ refs: [RecordRef]) -> Int {
        var total = 0
        SpanFinder(reader: reader, window: window).forEachSpan(ofRecords: refs.map(\.record)) { span in
            total += span.length
            write(span)
            return !isStopped
        }
        return total / max(1, refs.count)
    }

    /// A window of records whose bytes are being gathered on both cores.
    private struct GatheringWindow {
        let refs: [RecordRef]
        /// The spans found before the gathering (records with no offset).
        let spans: [RecordSpan?]
        let work: ParallelWork
        let halves: Int
        let join: BackgroundScan<Int>.Join
    }

    /// Two sets of windows and storages, used in turn by the windows of a sorted view.
    private var gatherSets: [ParallelWork] {
        if let made = gatherWork { return made }
        let made = [ParallelWork(count: 2, source: reader.source, readSize: window.readSize),
                    ParallelWork(count: 2, source: reader.source, readSize: window.readSize)]
        gatherWork = made
        return made
    }

    /// Finds each record's span in the input's order and starts gathering their bytes on
    /// both cores, each half of the input's order into its own storage through its own
    /// window; `writeGathered` writes them in view order.
    private func startGathering(_ refs: [RecordRef], into work: ParallelWork) -> GatheringWindow {
        var spans = [RecordSpan?](repeating: nil, count: refs.count)
        let order = refs.indices.sorted { (refs[$0].offset ?? -1, refs[$0].record) < (refs[$1].offset ?? -1, refs[$1].record) }
        let finder = SpanFinder(reader: reader, window: window)
        let withoutOffset = order.filter { refs[$0].offset == nil }
        if !withoutOffset.isEmpty {
            var byRecord: [Int: Int] = [:]
            for index in withoutOffset { byRecord[refs[index].record] = index }
            finder.forEachSpan(ofRecords: withoutOffset.map { refs[$0].record }.sorted()) { span in
                if let index = byRecord[span.record] { spans[index] = span }
                return true
            }
        }
        // Records far apart are read each with its neighbours closer than `gap`, in one
        // read: a window over a sorted 1 GiB file reads its records, not the file.
        let gap: Int64 = 4096
        let alone = Int64(max(512, min(4096, 2 * averageRecord)))
        var runEnds = [Int64](repeating: 0, count: order.count)
        var runEnd: Int64 = 0
        for position in order.indices.reversed() {
            guard let offset = refs[order[position]].offset else { continue }
            if runEnd == 0 || runEnd - offset > Int64(window.readSize) || position + 1 >= order.count
                || (refs[order[position + 1]].offset ?? offset) - offset > gap {
                runEnd = offset + alone
            }
            runEnds[position] = runEnd
        }
        let cut = order.count < 4096 ? order.count : order.count / 2
        let halves = [0..<cut, cut..<order.count].filter { !$0.isEmpty }
        let reader = self.reader!, control = self.control, wellQuoted = self.wellQuoted
        let found = spans, readAhead = Int(alone), ends = runEnds
        let join = BackgroundScan<Int>.start(halves.count, threadName: "csvfreeze export",
                                             yieldsToInteractiveThreads: plan.yieldsToInteractiveThreads) { slot in
            let output = work.outputs[slot], window = work.windows[slot]
            output.bytes.removeAll(keepingCapacity: true)
            output.placed.removeAll(keepingCapacity: true)
            // Pages are touched only as they fill: the room a half may need, never doubled.
            output.bytes.reserveCapacity(min(Self.windowBytes / 2 + Self.windowBytes / 8, halves[slot].count * 1024))
            window.readAhead = readAhead
            defer { window.readAhead = window.readSize }
            let finder = SpanFinder(reader: reader, window: window)
            for position in halves[slot] {
                if control.isCancelled { return }
                let index = order[position]
                var span = found[index]
                if let offset = refs[index].offset {
                    window.prefetch(offset..<min(reader.end, max(ends[position], offset + 1)))
                    span = finder.span(ofRecord: refs[index].record, at: offset, isWellQuoted: refs[index].record < wellQuoted)
                }
                guard let span else { continue }
                var place = -1
                if span.length <= Self.longRecord {
                    place = output.bytes.count
                    window.withBytes(span.start..<span.end) { output.bytes.append(contentsOf: $0) }
                }
                output.placed.append((index, place, span))
            }
        }
        return GatheringWindow(refs: refs, spans: spans, work: work, halves: halves.count, join: join)
    }

    /// Waits for a window's gathering and writes its records in view order; returns their
    /// average length.
    private func writeGathered(_ gathered: GatheringWindow) -> Int {
        gathered.join.wait()
        if control.isCancelled { return 1 }
        let refs = gathered.refs, work = gathered.work
        var spans = gathered.spans
        var places = [(slot: Int, place: Int)](repeating: (0, -1), count: refs.count)
        for slot in 0..<gathered.halves {
            for (index, place, span) in work.outputs[slot].placed {
                spans[index] = span
                places[index] = (slot, place)
            }
        }
        var total = 0
        work.outputs[0].bytes.withUnsafeBytes { first in
            work.outputs[1].bytes.withUnsafeBytes { second in
                for index in refs.indices where !isStopped {
                    guard let span = spans[index] else {
                        outcome.failure = "\(plan.name): \(RecordPlace.name(refs[index].record, headerRows: plan.headerRows)) could not be read again"
                        return
                    }
                    total += span.length
                    let (slot, place) = places[index]
                    if place >= 0 {
                        let bytes = slot == 0 ? first : second
                        write(span, bytes: UnsafeRawBufferPointer(rebasing: bytes[place..<(place + span.length)]))
                    } else {
                        write(span)
                    }
                }
            }
        }
        averageRecord = total / max(1, refs.count)
        return averageRecord
    }
}

/// What the two cores gathering a sorted view's window hand back: each slot is written by
/// one thread only, and read by the exporter's thread after both have joined.
private final class ParallelWork: @unchecked Sendable {
    // @unchecked: slot `i` of `outputs` and `windows` is touched by worker `i` alone while
    // the workers run (`writeGathered` joins them before the exporter reads a slot).
    final class Output {
        var bytes: [UInt8] = []
        /// A sorted window's records gathered in `bytes`: each one's place in the
        /// window, where its bytes start (-1: a long record, written from the input), and
        /// its span.
        var placed: [(index: Int, place: Int, span: RecordSpan)] = []
    }
    let outputs: [Output]
    /// Each slot's window on the input.
    let windows: [ByteWindow]

    init(count: Int, source: ByteSource, readSize: Int = 1 << 20) {
        outputs = (0..<count).map { _ in Output() }
        windows = (0..<count).map { _ in ByteWindow(source: source, readSize: readSize) }
    }
}

/// The chosen cells of a record that arrives in pieces, gathered until its last piece.
struct Projection {
    /// Bytes of chosen cells gathered at most for one record.
    static let limit = 64 << 20
    private var pieces = RecordPieces()
    private var cells: [Int: [UInt8]] = [:]
    private var bytes = 0
    private(set) var isGathering = false

    /// Takes a piece (or a whole record); false past `limit`.
    mutating func gather(_ row: Row, columns: [Int]) -> Bool {
        let first = pieces.place(row)
        isGathering = row.continuesInNext
        for index in 0..<row.count where columns.contains(first + index) {
            let field = row.field(index)
            cells[first + index, default: []].append(contentsOf: field)
            bytes += field.count
        }
        return bytes <= Self.limit
    }

    /// The record's chosen cells, in order; gathering starts again.
    mutating func take(_ columns: [Int]) -> Row {
        var result: [UInt8] = []
        var ends: [Int] = []
        for column in columns {
            result.append(contentsOf: cells[column] ?? [])
            ends.append(result.count)
        }
        cells = [:]
        bytes = 0
        isGathering = false
        return Row(bytes: result, ends: ends)
    }
}
