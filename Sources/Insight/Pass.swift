import CellStore
import Foundation
import Scan
import Synchronization

/// One pass over an input's records, its pieces shared out between the cores: each share
/// feeds a sink of its own, in input order, and the sinks come back in that order (the
/// first holds the earliest records).
struct Pass: Sendable {
    let input: ScanInput
    let columns: Range<Int>
    let filter: RecordFilter
    /// Bytes read in one piece (a longer record is parsed).
    var pieceLimit: Int64 = 1 << 21
    /// Threads a pass may use.
    var workers = max(1, min(2, ProcessInfo.processInfo.activeProcessorCount))
    /// Inputs smaller than this are read on one thread (starting one costs more).
    var minimumSharedBytes: Int64 = 8 << 20

    /// Bytes the pass reads.
    var byteCount: Int64 { pieces.reduce(0) { $0 + $1.byteCount } }

    var pieces: [ScanInput.Piece] {
        input.pieces(for: filter.first..<Int.max, limit: pieceLimit, raw: true)
    }

    /// Runs the pass: `make(share)` makes each share's sink, `afterPiece` sees it after
    /// each piece (to publish partial results). Nil when cancelled.
    func run<Sink: CellSink & Sendable>(control: ScanControl, make: @escaping @Sendable (Int) -> Sink,
                                        afterPiece: @escaping @Sendable (Int, inout Sink) -> Void = { _, _ in }) -> [Sink]? {
        let pieces = self.pieces
        let total = pieces.reduce(Int64(0)) { $0 + $1.byteCount }
        let shares = workers > 1 && total >= minimumSharedBytes ? Pass.split(pieces, into: workers) : [pieces]
        let results = Mutex<[Sink?]>(Array(repeating: nil, count: shares.count))
        BackgroundScan<Int>.runConcurrently(shares.count) { share in
            let reader = FieldReader(input: input, columns: columns, filter: filter, bufferSize: Int(pieceLimit))
            reader.isCancelled = { control.isCancelled }
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

    /// `pieces` in `count` runs of about equal bytes, in order.
    static func split(_ pieces: [ScanInput.Piece], into count: Int) -> [[ScanInput.Piece]] {
        let total = pieces.reduce(Int64(0)) { $0 + $1.byteCount }
        var shares: [[ScanInput.Piece]] = [[]]
        var done: Int64 = 0
        for piece in pieces {
            if done >= total * Int64(shares.count) / Int64(count) && shares.count < count && !shares[shares.count - 1].isEmpty {
                shares.append([])
            }
            shares[shares.count - 1].append(piece)
            done += piece.byteCount
        }
        return shares
    }
}

/// Partial results a running pass publishes for its owner, one slot per share.
final class Board<Value: Sendable>: Sendable {
    private let slots: Mutex<[Value?]>
    private let published: Mutex<[Double]>

    init(shares: Int = 2) {
        slots = Mutex(Array(repeating: nil, count: shares))
        published = Mutex(Array(repeating: Date().timeIntervalSinceReferenceDate, count: shares))
    }

    /// True about every quarter of a second for each share (it publishes then).
    func isDue(share: Int) -> Bool {
        let now = Date().timeIntervalSinceReferenceDate
        return published.withLock { times in
            guard share < times.count, now - times[share] >= 0.25 else { return false }
            times[share] = now
            return true
        }
    }

    func publish(_ value: Value, share: Int) {
        slots.withLock { if share < $0.count { $0[share] = value } }
    }

    var values: [Value] { slots.withLock { $0.compactMap { $0 } } }
}
