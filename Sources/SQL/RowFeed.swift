import CellStore
import Scan
import Synchronization

/// Whether the statement running now is to stop: set by `QueryAnswer.cancel()` from any
/// thread, read by SQLite's progress handler and by the feeds' threads.
final class QueryControl: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Why a table could not give its rows (an input's fault, not the query's).
    private let failure = Mutex<SQLError?>(nil)
    /// The signals of the inputs' indexes, which scans wait on for more records: `cancel()`
    /// publishes on each, so a scan waiting for the index looks again, and stops.
    private let signals = Mutex<[ChangeSignal]>([])
    /// Bytes of input the scans have read, for progress.
    private let read = Atomic<Int64>(0)
    /// Looks at the index by scans waiting for it (see `noteLook`).
    private let looks = Atomic<Int>(0)
    /// Called from the scans' threads after each piece they read: an answer on screen
    /// wakes the event loop with it, so the progress shows while no row comes (a sort).
    private let onRead: @Sendable () -> Void

    init(onRead: @escaping @Sendable () -> Void = {}) { self.onRead = onRead }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func cancel() {
        // Set before the signals publish: a waiter that wakes, or that reads the signal's
        // version after this, sees it.
        cancelled.store(true, ordering: .relaxed)
        for signal in signals.withLock({ $0 }) { signal.notify() }
    }

    /// Ready for the next statement.
    func reset() {
        cancelled.store(false, ordering: .relaxed)
        failure.withLock { $0 = nil }
        read.store(0, ordering: .relaxed)
    }

    /// Scans of these inputs may wait on their signals: `cancel()` wakes them.
    func watch(_ more: [ChangeSignal]) {
        signals.withLock { signals in
            for signal in more where !signals.contains(where: { $0 === signal }) { signals.append(signal) }
        }
    }

    func note(_ error: SQLError) { failure.withLock { $0 = $0 ?? error } }
    var noted: SQLError? { failure.withLock { $0 } }

    /// Counts `bytes` of input as read by a scan.
    func noteRead(_ bytes: Int64) {
        read.add(bytes, ordering: .relaxed)
        onRead()
    }
    /// Bytes of input read by the scans so far (a table read twice counts twice).
    var bytesRead: Int64 { read.load(ordering: .relaxed) }

    /// Times a scan looked whether the index had reached its next piece: once per piece,
    /// and once more each time the index grew while it waited (never on a clock).
    func noteLook() { looks.add(1, ordering: .relaxed) }
    var lookCount: Int { looks.load(ordering: .relaxed) }
}

/// Threads a scan runs on, at the caller's own priority.
enum Workers {
    /// Runs `body(0)` on the calling thread and `body(1)`… on threads of their own, and
    /// returns when all have.
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        BackgroundScan<Int>.runConcurrently(count, threadName: "csvfreeze sql", yieldsToInteractiveThreads: false, body)
    }
}

/// Where a cursor takes its rows from, a batch at a time.
protocol BatchSource: AnyObject {
    /// The next batch, nil when there are no more rows; throws when the scan failed or was
    /// cancelled.
    func next() throws(SQLError) -> RowBatch?
}

/// Collects rows into batches, typed as their columns are (`SQLTyping`).
struct BatchSink: RowSink {
    let width: Int
    /// Per slot, whether its column is a number column.
    let isNumber: [Bool]
    var batches: [RowBatch] = []
    private var current: RowBatch

    init(request: ScanRequest) {
        width = request.columns.count
        isNumber = request.isNumber
        current = RowBatch(width: width)
    }

    mutating func row(record: Int, offset: Int64, cells: UnsafePointer<UnsafeRawBufferPointer>) {
        if current.isFull {
            batches.append(current)
            current = RowBatch(width: width)
        }
        let batch = current
        let row = batch.appendRow(record: record)
        isNumber.withUnsafeBufferPointer { isNumber in
            for slot in 0..<width { row[slot] = batch.cell(cells[slot], isNumber: isNumber[slot]) }
        }
    }

    /// The batches, the last one included.
    mutating func finish() -> [RowBatch] {
        if current.count > 0 { batches.append(current) }
        current = RowBatch(width: width, capacity: 1)
        let all = batches
        batches = []
        return all
    }
}

/// The rows of one scan in input order, read ahead of the cursor by threads of their own.
///
/// The input's pieces are handed out in order to the workers as the index reaches them
/// (`PieceSource`); each reads its piece into batches, which the cursor takes in piece
/// order. Workers stay at most `window` pieces ahead of the cursor, so memory is a few
/// pieces' rows whatever the input's size; the feed stops its threads and waits for them
/// when it goes (a cursor closed early, a `LIMIT` reached, a new scan of the same cursor).
final class RowFeed: BatchSource {
    /// What the workers and the cursor share.
    private struct Shared: Sendable {
        var nextPiece = 0
        var delivered = 0
        /// Pieces in all, once a worker has found the end.
        var pieceCount = Int.max
        var results: [Int: [RowBatch]] = [:]
        var failure: SQLError?
        var stopped = false
        var running = 0
    }

    private let shared = Handoff(Shared())
    /// The index's signal, which a worker waiting for a piece waits on: `stop()` publishes
    /// on it so that the worker sees it is to stop.
    private let changes: ChangeSignal
    private var pending: [RowBatch] = []
    private var pendingIndex = 0
    /// Runs the scan on the caller's thread instead (an input of one piece).
    private var inline: (() -> ([RowBatch], SQLError?))?
    private var isInline = false

    init(input: ScanInput, readers: RecordReaders, request: ScanRequest, workers: Int, control: QueryControl) {
        changes = readers.changes
        let source = PieceSource(readers: readers, records: request.records, limit: request.pieceBytes, control: control)
        let read: @Sendable (RecordFields, PieceSource.Item) -> ([RowBatch], SQLError?) = { fields, item in
            var sink = BatchSink(request: request)
            fields.read(item, into: &sink, isCancelled: { control.isCancelled })
            control.noteRead(item.piece.byteCount)
            return (sink.finish(), fields.failure)
        }
        if source.isFinal && source.knownCount <= 1 {
            isInline = true
            inline = {
                guard let item = source.item(0, isCancelled: { false }) else { return ([], nil) }
                return read(RecordFields(input: input, request: request, bufferSize: Int(request.pieceBytes)), item)
            }
            return
        }
        let count = max(1, workers)
        let window = 2 * count + 2
        let shared = self.shared
        shared.change { $0.running = count }
        for worker in 0..<count {
            BackgroundThread.start(name: "csvfreeze sql \(worker)") {
                let fields = RecordFields(input: input, request: request, bufferSize: Int(request.pieceBytes))
                let isStopped = { control.isCancelled || shared.read { $0.stopped } }
                while true {
                    // The next piece, once it is within the window of the cursor's; nil: no more.
                    let next: Int? = shared.await { state in
                        if state.stopped || state.nextPiece >= state.pieceCount || control.isCancelled { return .some(nil) }
                        guard state.nextPiece < state.delivered + window else { return nil }
                        state.nextPiece += 1
                        return state.nextPiece - 1
                    }
                    guard let index = next else { break }
                    guard let item = source.item(index, isCancelled: isStopped) else {
                        if !isStopped() { shared.change { $0.pieceCount = min($0.pieceCount, index) } }
                        break
                    }
                    let (batches, failure) = read(fields, item)
                    shared.change { state in
                        state.results[index] = batches
                        if let failure, state.failure == nil { state.failure = failure }
                    }
                    if failure != nil { break }
                }
                shared.change { $0.running -= 1 }
            }
        }
    }

    deinit { stop() }

    /// Stops the workers and waits until they have.
    func stop() {
        shared.change { $0.stopped = true }
        // A worker waiting for the index to reach its piece looks again, and stops.
        changes.notify()
        shared.await { $0.running == 0 ? () : nil }
        shared.change { $0.results = [:] }
    }

    func next() throws(SQLError) -> RowBatch? {
        if let inline {
            self.inline = nil
            let (batches, failure) = inline()
            if let failure { throw failure }
            pending = batches
            pendingIndex = 0
        }
        while true {
            if pendingIndex < pending.count {
                pendingIndex += 1
                return pending[pendingIndex - 1]
            }
            if isInline { return nil }
            // The next piece's batches; nil: the input ended there; a failure, or the workers stopped.
            let outcome: Result<[RowBatch]?, SQLError> = shared.await { state in
                if let failure = state.failure { return .failure(failure) }
                if let batches = state.results.removeValue(forKey: state.delivered) {
                    state.delivered += 1
                    return .success(batches)
                }
                if state.delivered >= state.pieceCount { return .success(nil) }
                return state.running > 0 ? nil : .failure(.cancelled)
            }
            guard let batches = try outcome.get() else { return nil }
            pending = batches
            pendingIndex = 0
        }
    }
}
