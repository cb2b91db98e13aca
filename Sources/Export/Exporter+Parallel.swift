import CellStore
import Scan
import Synchronization
import Table

/// A stretch of records between two checkpoints, formatted by one core.
struct Stretch: Sendable {
    var start: Int64
    var end: Int64
    var firstRecord: Int
    var endsInput: Bool
    /// Split from its bytes without the parser (the index vouches for its quoting, and it
    /// fits one read).
    var isWellQuoted: Bool
}

/// One stretch's formatted bytes, handed from the core that makes them to the exporter's
/// thread as they come. It holds at most about `limit` bytes: the core waits while they
/// wait, so output held in memory is bounded whatever a stretch's records become (a JSON
/// key per cell, a long cell), and stretches are written in order with no copy of a
/// whole one.
final class StretchOutput: Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        var held = 0
        var isDone = false
        var isAbandoned = false
        var records = 0
        var failure: String?
        var mostHeld = 0
    }
    private let state = Mutex(State())
    private let signal = ChangeSignal()

    /// Bytes held before the core that makes them waits.
    static let limit = 1 << 20

    /// Adds bytes, waiting while `limit` are held; false once the exporter stopped taking.
    func put(_ bytes: [UInt8]) -> Bool {
        while true {
            let version = signal.version
            let added: Bool? = state.withLock { state in
                if state.isAbandoned { return false }
                guard state.held < Self.limit || state.chunks.isEmpty else { return nil }
                state.chunks.append(bytes)
                state.held += bytes.count
                state.mostHeld = max(state.mostHeld, state.held)
                return true
            }
            if let added {
                if added { signal.notify() }
                return added
            }
            signal.wait(past: version)
        }
    }

    /// The stretch is formatted: `records` whole records, or up to a `failure`.
    func finish(records: Int, failure: String?) {
        state.withLock { state in
            state.isDone = true
            state.records = records
            state.failure = failure
        }
        signal.notify()
    }

    /// The bytes held, waiting for some; nil once the stretch is done and all were taken.
    func take() -> [[UInt8]]? {
        while true {
            let version = signal.version
            let taken: [[UInt8]]?? = state.withLock { state in
                if !state.chunks.isEmpty {
                    defer {
                        state.chunks = []
                        state.held = 0
                    }
                    return state.chunks
                }
                return state.isDone ? .some(nil) : nil
            }
            if let taken {
                if taken != nil { signal.notify() }
                return taken
            }
            signal.wait(past: version)
        }
    }

    /// What `finish` said, and the most bytes held at once.
    var result: (records: Int, failure: String?, mostHeld: Int) { state.withLock { ($0.records, $0.failure, $0.mostHeld) } }

    /// The exporter stopped: what is held and what comes is dropped, and the core goes on.
    func abandon() {
        state.withLock { state in
            state.isAbandoned = true
            state.chunks = []
            state.held = 0
        }
        signal.notify()
    }
}

/// A stretch to format, with the writer that formats it and where its bytes go.
private final class StretchJob: @unchecked Sendable {
    // @unchecked: `writer` is made on the exporter's thread before the job is queued, and
    // used after by the one worker that takes the job from the queue (whose lock orders
    // the hand-over); the exporter's thread never touches it again.
    let stretch: Stretch
    let writer: RecordWriting
    let output: StretchOutput

    init(stretch: Stretch, writer: RecordWriting, output: StretchOutput) {
        self.stretch = stretch
        self.writer = writer
        self.output = output
    }
}

extension Exporter {
    /// Stretches formatted or queued but not written yet, at most: with `StretchOutput.limit`
    /// each, what the output holds in memory.
    static let stretchesAhead = 4

    /// Parses the input from checkpoint `position` to its end (as far as it is indexed) on
    /// two cores: stretches between checkpoints, each formatted by a copy of the writer
    /// (`continuation`) with a parser of its own, or in bulk (`writeWellQuoted`), while this
    /// thread writes the earlier ones' bytes, in order, as they come. Returns at once when
    /// the writer has no copy yet (a table that has not measured its rows).
    func writeInParallel(from position: inout Int64, record: inout Int, isAll: Bool) {
        let checkpoints = reader.checkpoints
        guard var index = checkpoints.firstIndex(where: { $0.offset == position }),
              writer.continuation(following: 0, sink: { _ in true }) != nil else { return }
        let reader = self.reader!
        let plan = self.plan
        let inputFailure = readers.progress.failure
        // Stretches waiting for a core, in order (no more than are pending); finished
        // once all are queued, so the workers end when it is empty.
        let queue = BoundedQueue<StretchJob>(limit: Self.stretchesAhead)
        // A read holds a stretch that the splitter takes whole; a longer one is parsed a
        // mebibyte at a time.
        let readSize = Int(max(1 << 20, 2 * plan.parallelStretch))
        let join = BackgroundScan<Int>.start(2, threadName: "csvfreeze export", yieldsToInteractiveThreads: plan.yieldsToInteractiveThreads) { _ in
            let window = ByteWindow(source: reader.source, readSize: readSize)
            while let job = queue.pop() {
                Self.format(job, reader: reader, window: window, plan: plan, inputFailure: inputFailure)
            }
        }
        var pending: [(stretch: Stretch, output: StretchOutput)] = []
        defer {
            queue.finish()
            for (_, output) in pending { output.abandon() }
            join.wait()
        }
        /// The next stretch, from checkpoint `index`, and the checkpoint after it: nil when
        /// none is indexed yet.
        func nextStretch() -> (Stretch, Int)? {
            guard index < checkpoints.count else { return nil }
            let start = checkpoints[index]
            var next = index + 1
            while next < checkpoints.count && checkpoints[next].offset - start.offset < plan.parallelStretch { next += 1 }
            var endsInput = next >= checkpoints.count
            if endsInput && !isAll {
                // Still loading: up to the last checkpoint, the rest later.
                next = checkpoints.count - 1
                endsInput = false
                if next <= index { return nil }
            }
            let end = endsInput ? reader.end : checkpoints[next].offset
            let lastRecord = endsInput ? readers.progress.rowCount : checkpoints[next].row
            return (Stretch(start: start.offset, end: end, firstRecord: start.row, endsInput: endsInput,
                            isWellQuoted: lastRecord <= wellQuoted && end - start.offset <= Int64(readSize)), next)
        }
        while !isStopped {
            while pending.count < Self.stretchesAhead, let (stretch, next) = nextStretch() {
                let output = StretchOutput()
                // The records before this stretch not handed to the writer yet come first.
                guard let copy = writer.continuation(following: stretch.firstRecord - record, sink: { output.put($0) }) else { break }
                index = next
                queue.push(StretchJob(stretch: stretch, writer: copy, output: output))
                pending.append((stretch, output))
            }
            guard !pending.isEmpty else { return }
            let (stretch, output) = pending.removeFirst()
            // A table or JSON's bytes go straight to the sink; CSV's through the writer,
            // which may take back the last line ending.
            let passesThrough = writer.rawDelimiter == nil
            if passesThrough { writer.flushAll() }
            while let chunks = output.take() {
                for chunk in chunks where !isStopped {
                    if passesThrough {
                        chunk.withUnsafeBytes { _ = sink.write($0) }
                    } else {
                        chunk.withUnsafeBytes { _ = writer.writeFormatted($0, records: 0) }
                    }
                }
                if isStopped {
                    output.abandon()
                    return
                }
            }
            let (records, failure, mostHeld) = output.result
            writer.writeFormatted(UnsafeRawBufferPointer(start: nil, count: 0), records: records)
            countRows(from: record, to: record + records)
            outcome.recordsInParallel += records
            outcome.largestHeld = max(outcome.largestHeld, mostHeld)
            if let failure {
                outcome.failure = failure
                return
            }
            record += records
            if records > 0 {
                lastRecordWritten = record - 1
                lastByte = lineEnding.last ?? 0x0A
            }
            position = stretch.endsInput ? reader.end : stretch.end
        }
    }

    /// Formats one stretch on a worker: records the index vouches for are split from their
    /// bytes (laid out in bulk where the writer can), others parsed a mebibyte at a time.
    private static func format(_ job: StretchJob, reader: RecordReader, window: ByteWindow, plan: ExportPlan,
                               inputFailure: String?) {
        let stretch = job.stretch, writer = job.writer, output = job.output
        var number = stretch.firstRecord
        var projection = Projection()
        var failure: String?
        /// The record that could not be written: the stretch stops before it.
        var failedAt = 0
        /// Writes a row; at the first that cannot be written, the stretch stops there with
        /// the records before it.
        func put(_ row: Row) {
            guard failure == nil else { return }
            switch shaped(row, record: number, plan: plan, projection: &projection) {
            case .success(let shaped?): writer.write(shaped)
            case .success(nil): break
            case .failure(let error):
                failure = error.description
                failedAt = number
            }
        }
        defer {
            writer.flushAll()
            output.finish(records: (failure == nil ? number : failedAt) - stretch.firstRecord, failure: failure)
            window.shrink()
        }
        if stretch.isWellQuoted {
            var splitter = WellQuotedSplitter(dialect: reader.dialect)
            let dialect = reader.dialect
            window.withBytes(stretch.start..<stretch.end) { bytes in
                var rest = 0
                while rest < bytes.count && failure == nil && writer.isOpen {
                    let left = UnsafeRawBufferPointer(rebasing: bytes[rest...])
                    guard let bulk = writer.writeWellQuoted(left, delimiter: dialect.delimiter, quote: dialect.quote,
                                                            columns: plan.columns) else {
                        // Records are split and written one by one.
                        splitter.split(left) { row in
                            put(row)
                            number += 1
                        }
                        return
                    }
                    number += bulk.records
                    rest += bulk.consumed
                    guard let aside = bulk.aside else { return }
                    // One record the bulk way leaves to the writer's rows.
                    splitter.split(UnsafeRawBufferPointer(rebasing: bytes[rest..<(rest + aside)])) { row in
                        put(row)
                        number += 1
                    }
                    rest += aside
                }
            }
            return
        }
        guard let parser = try? RecordParser(dialect: reader.dialect, streams: true) else {
            failure = "cannot set up the parser"
            failedAt = number
            return
        }
        func deliver() {
            for row in parser.takeRecords() {
                put(row)
                if !row.continuesInNext { number += 1 }
            }
        }
        var offset = stretch.start
        while offset < stretch.end && failure == nil && writer.isOpen {
            let stop = min(stretch.end, offset + (1 << 20))
            let from = offset
            window.withBytes(from..<stop) { parser.parse($0) }
            offset = stop
            deliver()
        }
        if stretch.endsInput && inputFailure == nil && failure == nil {
            parser.finish()
            deliver()
        }
    }
}
