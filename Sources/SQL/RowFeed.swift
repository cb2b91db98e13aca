import CellStore
import Foundation
import Scan
import Synchronization

/// Whether the statement running now is to stop: set by `QueryAnswer.cancel()` from any
/// thread, read by SQLite's progress handler and by the feeds' threads.
final class QueryControl: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Why a table could not give its rows (an input's fault, not the query's).
    private let failure = Mutex<SQLError?>(nil)

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Ready for the next statement.
    func reset() {
        cancelled.store(false, ordering: .relaxed)
        failure.withLock { $0 = nil }
    }

    func note(_ error: SQLError) { failure.withLock { $0 = $0 ?? error } }
    var noted: SQLError? { failure.withLock { $0 } }
}

/// Threads a scan runs on, at the caller's own priority.
enum Workers {
    /// Runs `body(0)` on the calling thread and `body(1)`… on threads of their own, and
    /// returns when all have.
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchSemaphore(value: 0)
        for index in 1..<max(1, count) {
            let thread = Thread {
                body(index)
                done.signal()
            }
            thread.name = "csvfreeze sql \(index)"
            thread.start()
        }
        body(0)
        for _ in 1..<max(1, count) { done.wait() }
    }
}

/// Where a cursor takes its rows from, a batch at a time.
protocol BatchSource: AnyObject {
    /// The next batch, nil when there are no more rows; throws when the scan failed or was
    /// cancelled.
    func next() throws(SQLError) -> RowBatch?
}

/// Collects rows into batches.
struct BatchSink: RowSink {
    let width: Int
    var batches: [RowBatch] = []
    private var current: RowBatch

    init(width: Int) {
        self.width = width
        current = RowBatch(width: width)
    }

    mutating func row(record: Int, offset: Int64, cells: UnsafePointer<UnsafeRawBufferPointer>) {
        if current.isFull {
            batches.append(current)
            current = RowBatch(width: width)
        }
        let batch = current
        let row = batch.appendRow(record: record)
        for slot in 0..<width { row[slot] = batch.cell(cells[slot]) }
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
    /// What the workers and the cursor share, under the condition's lock.
    private final class Shared: @unchecked Sendable {
        // @unchecked: every property is read and written with `condition` locked.
        let condition = NSCondition()
        var nextPiece = 0
        var delivered = 0
        /// Pieces in all, once a worker has found the end.
        var pieceCount = Int.max
        var results: [Int: [RowBatch]] = [:]
        var failure: SQLError?
        var stopped = false
        var running = 0
    }

    private let shared = Shared()
    private var pending: [RowBatch] = []
    private var pendingIndex = 0
    /// Runs the scan on the caller's thread instead (an input of one piece).
    private var inline: (() -> ([RowBatch], SQLError?))?
    private var isInline = false

    init(input: ScanInput, readers: RecordReaders, request: ScanRequest, workers: Int, control: QueryControl) {
        let source = PieceSource(readers: readers, records: request.records, limit: request.pieceBytes)
        let read: @Sendable (RecordFields, PieceSource.Item) -> ([RowBatch], SQLError?) = { fields, item in
            var sink = BatchSink(width: request.columns.count)
            fields.read(item, into: &sink, isCancelled: { control.isCancelled })
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
        shared.running = count
        for worker in 0..<count {
            let thread = Thread {
                let fields = RecordFields(input: input, request: request, bufferSize: Int(request.pieceBytes))
                let isStopped = { control.isCancelled || shared.condition.withLock { shared.stopped } }
                while true {
                    shared.condition.lock()
                    while !shared.stopped && shared.nextPiece < shared.pieceCount && shared.nextPiece >= shared.delivered + window {
                        shared.condition.wait()
                    }
                    if shared.stopped || shared.nextPiece >= shared.pieceCount || control.isCancelled {
                        shared.condition.unlock()
                        break
                    }
                    let index = shared.nextPiece
                    shared.nextPiece += 1
                    shared.condition.unlock()
                    guard let item = source.item(index, isCancelled: isStopped) else {
                        if !isStopped() {
                            shared.condition.withLock {
                                shared.pieceCount = min(shared.pieceCount, index)
                                shared.condition.broadcast()
                            }
                        }
                        break
                    }
                    let (batches, failure) = read(fields, item)
                    shared.condition.lock()
                    shared.results[index] = batches
                    if let failure, shared.failure == nil { shared.failure = failure }
                    shared.condition.broadcast()
                    shared.condition.unlock()
                    if failure != nil { break }
                }
                shared.condition.lock()
                shared.running -= 1
                shared.condition.broadcast()
                shared.condition.unlock()
            }
            thread.name = "csvfreeze sql \(worker)"
            thread.start()
        }
    }

    deinit { stop() }

    /// Stops the workers and waits until they have.
    func stop() {
        shared.condition.lock()
        shared.stopped = true
        shared.condition.broadcast()
        while shared.running > 0 { shared.condition.wait() }
        shared.results = [:]
        shared.condition.unlock()
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
            shared.condition.lock()
            while shared.results[shared.delivered] == nil && shared.failure == nil && shared.running > 0
                    && shared.delivered < shared.pieceCount {
                shared.condition.wait()
            }
            if let failure = shared.failure {
                shared.condition.unlock()
                throw failure
            }
            guard let batches = shared.results.removeValue(forKey: shared.delivered) else {
                // No such piece: the input ended there, or the workers stopped.
                let ended = shared.delivered >= shared.pieceCount
                shared.condition.unlock()
                if ended { return nil }
                throw .cancelled
            }
            shared.delivered += 1
            shared.condition.broadcast()
            shared.condition.unlock()
            pending = batches
            pendingIndex = 0
        }
    }
}
