import CellStore
import Scan
import Synchronization
import Table

/// One pass over an input's records, its pieces shared out between the cores: each share
/// feeds a sink of its own, in input order, and the sinks come back in that order (the
/// first holds the earliest records).
///
/// Rows that are not a file's (a sheet's) are read cell by cell from a snapshot, shared
/// out the same way, into the same sinks.
struct Pass: Sendable {
    /// What the pass reads.
    enum Source: Sendable {
        case bytes(ScanInput)
        case rows(RowSnapshot)
    }

    let source: Source
    let columns: Range<Int>
    var filter: RecordFilter
    /// Bytes read in one piece (a longer record is parsed).
    var pieceLimit: Int64 = 1 << 21
    /// Threads a pass may use.
    var workers = max(1, min(2, BackgroundThread.processorCount))
    /// Inputs smaller than this are read on one thread (starting one costs more).
    var minimumSharedBytes: Int64 = 8 << 20
    /// True when the sinks' columns are independent: a raw piece's cells may come column
    /// by column, a block of records at a time (`FieldReader.byColumn`).
    var byColumn = false

    init(input: ScanInput, columns: Range<Int>, filter: RecordFilter) {
        source = .bytes(input)
        self.columns = columns
        self.filter = filter
    }

    init(rows: RowSnapshot, columns: Range<Int>, filter: RecordFilter) {
        source = .rows(rows)
        self.columns = columns
        self.filter = filter
    }

    /// This pass over only `records` (a filter's or a sort's view), when given; nil when
    /// cancelled while the view's records were gathered.
    func restricted(to records: (any RecordSequence)?, control: ScanControl) -> Pass? {
        guard let records else { return self }
        guard let filter = RecordFilter.of(records, first: filter.first, control: control) else { return nil }
        var chosen = self
        chosen.filter = filter
        return chosen
    }

    /// The same pass (source, filter, pieces, threads) over columns `columns`.
    func over(columns: Range<Int>) -> Pass {
        var other: Pass
        switch source {
        case .bytes(let input): other = Pass(input: input, columns: columns, filter: filter)
        case .rows(let rows): other = Pass(rows: rows, columns: columns, filter: filter)
        }
        other.pieceLimit = pieceLimit
        other.workers = workers
        other.minimumSharedBytes = minimumSharedBytes
        other.byColumn = byColumn
        return other
    }

    /// What the pass reads, for its progress: bytes, or rows.
    var byteCount: Int64 {
        switch source {
        case .bytes: return pieces.reduce(0) { $0 + $1.byteCount }
        case .rows(let rows): return Int64(max(0, rows.count - filter.first))
        }
    }

    var pieces: [ScanInput.Piece] {
        guard case .bytes(let input) = source else { return [] }
        guard filter.first < filter.end else { return [] }
        return input.pieces(for: filter.first..<filter.end, limit: pieceLimit, raw: true)
    }

    /// Rows read between two looks at the cancel flag and two calls of `afterPiece`.
    static let rowsPerPiece = 1 << 16

    /// Runs the pass: `make(share)` makes each share's sink, `afterPiece` sees it after
    /// each piece (to publish partial results). Nil when cancelled.
    func run<Sink: CellSink & Sendable>(control: ScanControl, make: @escaping @Sendable (Int) -> Sink,
                                        afterPiece: @escaping @Sendable (Int, inout Sink) -> Void = { _, _ in }) -> [Sink]? {
        let input: ScanInput
        switch source {
        case .bytes(let bytes): input = bytes
        case .rows(let rows): return run(rows, control: control, make: make, afterPiece: afterPiece)
        }
        let pieces = self.pieces
        let total = pieces.reduce(Int64(0)) { $0 + $1.byteCount }
        let shares = workers > 1 && total >= minimumSharedBytes ? ScanInput.split(pieces, into: workers) : [pieces]
        let results = Mutex<[Sink?]>(Array(repeating: nil, count: shares.count))
        BackgroundScan<Int>.runConcurrently(shares.count) { share in
            let reader = FieldReader(input: input, columns: columns, filter: filter, bufferSize: Int(pieceLimit))
            reader.isCancelled = { control.isCancelled }
            reader.byColumn = byColumn
            var sink = make(share)
            for piece in shares[share] {
                if control.isCancelled { return }
                reader.read(piece, into: &sink)
                afterPiece(share, &sink)
                control.advance(by: piece.byteCount)
            }
            let done = sink
            results.withLock { $0[share] = done }
        }
        if control.isCancelled { return nil }
        let sinks = results.withLock { $0 }
        return sinks.contains { $0 == nil } ? nil : sinks.map { $0! }
    }

    /// `run` over rows: the data rows cut into one stretch per worker (when there are
    /// enough to be worth a thread), each cell of `columns` handed to the share's sink.
    private func run<Sink: CellSink & Sendable>(_ rows: RowSnapshot, control: ScanControl, make: @escaping @Sendable (Int) -> Sink,
                                                afterPiece: @escaping @Sendable (Int, inout Sink) -> Void) -> [Sink]? {
        let all = min(filter.first, rows.count)..<max(min(filter.first, rows.count), min(rows.count, filter.end))
        let count = workers > 1 && all.count >= Self.rowsPerPiece * 4 ? workers : 1
        let shares = (0..<count).map { share in
            (all.lowerBound + all.count * share / count)..<(all.lowerBound + all.count * (share + 1) / count)
        }
        let results = Mutex<[Sink?]>(Array(repeating: nil, count: shares.count))
        BackgroundScan<Int>.runConcurrently(shares.count) { share in
            var sink = make(share)
            var start = shares[share].lowerBound
            while start < shares[share].upperBound {
                if control.isCancelled { return }
                let end = min(shares[share].upperBound, start + Self.rowsPerPiece)
                for (offset, row) in rows.rows(in: start..<end).enumerated() where filter.accepts(start + offset) {
                    for column in columns {
                        row.field(column).withUnsafeBytes { sink.cell($0, column: column, record: start + offset) }
                    }
                }
                afterPiece(share, &sink)
                control.advance(by: Int64(end - start))
                start = end
            }
            let done = sink
            results.withLock { $0[share] = done }
        }
        if control.isCancelled { return nil }
        let sinks = results.withLock { $0 }
        return sinks.contains { $0 == nil } ? nil : sinks.map { $0! }
    }
}

/// Partial results a running pass publishes for its owner, one slot per share.
///
/// A share publishes after a piece when its owner has asked for fresher results since it
/// last did, and reading `values` asks: a pass whose partial results nobody reads copies
/// them once, and one on screen as often as the event loop looks (a sheet, at most four
/// times a second: `AppLoop.sheetInterval`). No clock is read here.
final class Board<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value?]>
    /// Per share: its owner asked for a fresher value than its slot holds.
    private let wanted: Mutex<[Bool]>
    /// Tells the owner a value was published.
    private let wake: @Sendable () -> Void

    init(shares: Int = 2, wake: @escaping @Sendable () -> Void = {}) {
        slots = Mutex(Array(repeating: nil, count: shares))
        wanted = Mutex(Array(repeating: true, count: shares))
        self.wake = wake
    }

    /// True when share `share` is to publish now (asked for since it last did).
    func isDue(share: Int) -> Bool {
        wanted.withLock { wanted in
            guard share < wanted.count, wanted[share] else { return false }
            wanted[share] = false
            return true
        }
    }

    func publish(_ value: Value, share: Int) {
        slots.withLock { if share < $0.count { $0[share] = value } }
        wake()
    }

    /// The values published so far; each share is asked for a fresher one.
    var values: [Value] {
        wanted.withLock { $0 = Array(repeating: true, count: $0.count) }
        return slots.withLock { $0.compactMap { $0 } }
    }
}

/// A pass known now, or one made once a file still being read is indexed to its end: a
/// sheet opened while its file loads counts the whole file with the raw pass the index
/// makes possible, as the command line does after the index, instead of parsing every
/// record the index has not reached yet (on one core, and again for a second pass).
struct PassPlan: Sendable {
    private enum Kind: Sendable {
        case ready(Pass)
        case whenIndexed(RecordReaders, columns: Range<Int>, filter: RecordFilter)
    }
    private let kind: Kind

    init(_ pass: Pass) { kind = .ready(pass) }

    /// The pass over every record of `readers`' input from `filter.first` on, once it is
    /// indexed to its end.
    init(whenIndexed readers: RecordReaders, columns: Range<Int>, filter: RecordFilter) {
        kind = .whenIndexed(readers, columns: columns, filter: filter)
    }

    /// Bytes the pass reads, as far as known now (for its progress).
    var byteCount: Int64 {
        switch kind {
        case .ready(let pass): return pass.byteCount
        case .whenIndexed(let readers, _, _):
            let progress = readers.progress
            return progress.totalBytes ?? progress.bytesRead
        }
    }

    /// The same plan over columns `columns`.
    func over(columns: Range<Int>) -> PassPlan {
        switch kind {
        case .ready(let pass): return PassPlan(pass.over(columns: columns))
        case .whenIndexed(let readers, _, let filter): return PassPlan(whenIndexed: readers, columns: columns, filter: filter)
        }
    }

    /// The pass, waiting (on the pass's thread) until the input is indexed; nil when the
    /// pass was cancelled meanwhile or the input holds nothing to read.
    func pass(control: ScanControl) -> Pass? {
        switch kind {
        case .ready(let pass): return pass
        case .whenIndexed(let readers, let columns, let filter):
            while true {
                let version = readers.changes.version
                let progress = readers.progress
                if progress.isComplete || progress.failure != nil { break }
                guard control.wait(for: readers.changes, past: version) else { return nil }
            }
            return ScanInput(readers: readers).map { Pass(input: $0, columns: columns, filter: filter) }
        }
    }
}
