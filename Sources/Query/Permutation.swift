import Synchronization
import Table

/// A view's records in order, appended by one thread and read by another: in memory up
/// to a small budget, then in a temporary file read by window, so it costs the same
/// memory for a thousand rows as for a billion.
final class Permutation: Sendable {
    private struct State {
        var memory: [Int64] = []
        var file: SpillFile?
        /// An order kept from an earlier session, read from its file.
        var stored: StoredPairs?
        var count = 0
    }

    private let state = Mutex(State())
    /// Entries kept in memory before the list moves to a file.
    let memoryLimit: Int

    init(memoryLimit: Int = 1 << 17) { self.memoryLimit = memoryLimit }

    /// An order read from a session's file, complete.
    init(stored: StoredPairs) {
        memoryLimit = 1 << 17
        state.withLock {
            $0.stored = stored
            $0.count = stored.count
        }
    }

    var count: Int { state.withLock { $0.count } }

    /// Appends entries (record, offset pairs, flattened).
    func append(_ pairs: [Int64]) throws(QueryError) {
        try state.withLock { (state) throws(QueryError) in
            if state.file == nil && state.memory.count + pairs.count <= memoryLimit * 2 {
                state.memory.append(contentsOf: pairs)
            } else {
                if state.file == nil {
                    let file = try SpillFile()
                    try file.append(state.memory)
                    state.memory = []
                    state.file = file
                }
                try state.file?.append(pairs)
            }
            state.count += pairs.count / 2
        }
    }

    /// The records at `range` (clamped).
    func records(in range: Range<Int>) -> [RecordRef] {
        state.withLock { state in
            let wanted = range.clamped(to: 0..<state.count)
            guard !wanted.isEmpty else { return [] }
            var pairs = [Int64](repeating: 0, count: wanted.count * 2)
            if let stored = state.stored {
                pairs = stored.pairs(in: wanted)
            } else if let file = state.file {
                _ = pairs.withUnsafeMutableBytes { file.read(at: Int64(wanted.lowerBound) * 16, into: $0) }
            } else {
                pairs = Array(state.memory[(wanted.lowerBound * 2)..<(wanted.upperBound * 2)])
            }
            // A negative offset: rows with no bytes behind them (a sheet's).
            return (0..<wanted.count).map { RecordRef(record: Int(pairs[2 * $0]), offset: pairs[2 * $0 + 1] < 0 ? nil : pairs[2 * $0 + 1]) }
        }
    }
}
