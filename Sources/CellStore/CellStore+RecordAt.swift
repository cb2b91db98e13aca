import Dispatch
import Synchronization

/// Single records read from where they start: the rows of a sorted or filtered view, which
/// lie anywhere in the input, cost one record's parse each instead of a block's.
struct RecordCache {
    /// Rows kept, and bytes they may hold (cells are bounded, so this bounds memory).
    let capacity = 4096
    let budget = 16 << 20
    private var rows: [Int: (row: Row, lastUse: Int)] = [:]
    private var clock = 0
    private var bytes = 0

    mutating func row(_ record: Int) -> Row? {
        guard let entry = rows[record] else { return nil }
        clock += 1
        rows[record] = (entry.row, clock)
        return entry.row
    }

    mutating func insert(_ row: Row, for record: Int) {
        clock += 1
        if let old = rows.updateValue((row, clock), forKey: record) { bytes -= old.row.memoryCost }
        bytes += row.memoryCost
        // Evicts the oldest half at once, so eviction costs O(1) per insert on average.
        if rows.count > capacity || bytes > budget {
            let keep = rows.sorted { $0.value.lastUse > $1.value.lastUse }.prefix(rows.count / 2)
            rows = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
            bytes = rows.values.reduce(0) { $0 + $1.row.memoryCost }
        }
    }
}

extension CellStore {
    /// Record `index`, read from `offset` (where it starts) when that is known: no block
    /// around it is parsed. Without an offset, as `row(_:)`.
    ///
    /// - Complexity: one record's bytes when not cached.
    package func row(_ index: Int, at offset: Int64?) -> Row? {
        guard let offset else { return row(index) }
        return rows(startingAt: [(index, offset)])[index]
    }

    /// Records read from where they start (`record`, `offset` pairs, best in input order),
    /// by record number. Through gzip's access points each costs inflating up to a
    /// megabyte, so there they are shared out between two threads.
    ///
    /// - Complexity: one record's bytes for each that is not cached.
    package func rows(startingAt places: [(record: Int, offset: Int64)]) -> [Int: Row] {
        var found: [Int: Row] = [:]
        var missing: [(record: Int, offset: Int64)] = []
        for place in places where found[place.record] == nil {
            if let row = singleRecords.row(place.record) { found[place.record] = row } else { missing.append(place) }
        }
        guard !missing.isEmpty, let dialect else { return found }
        // A reader with no checkpoints: reading from an offset needs none, and copying
        // the index for every record would cost more than the record.
        let (end, isFinal) = loader.shared.withLock { ($0.available, $0.progress.isComplete) }
        let reader = RecordReader(source: loader.source, checkpoints: [], dialect: dialect, end: end, isFinal: isFinal,
                                  wellQuotedRecords: 0)
        let wanted = missing
        let shares = wanted.count > 1 && loader.source is GzipSource ? 2 : 1
        let read = Mutex<[Int: Row]>([:])
        DispatchQueue.concurrentPerform(iterations: shares) { share in
            // Halves in input order, so each thread's reads go forward.
            let part = wanted[(wanted.count * share / shares)..<(wanted.count * (share + 1) / shares)]
            for place in part {
                guard let row = reader.record(place.record, at: place.offset) else { continue }
                read.withLock { $0[place.record] = row }
            }
        }
        for (record, row) in read.withLock({ $0 }) {
            singleRecords.insert(row, for: record)
            found[record] = row
        }
        return found
    }
}
