import Dispatch
import Synchronization

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
            if let row = singleRecords.value(at: place.record) { found[place.record] = row } else { missing.append(place) }
        }
        guard !missing.isEmpty, let dialect else { return found }
        // A reader with no checkpoints: reading from an offset needs none, and copying
        // the index for every record would cost more than the record.
        let (end, isFinal) = loader.shared.withLock { ($0.available, $0.progress.isComplete) }
        let reader = RecordReader(source: loader.source, checkpoints: [], dialect: dialect, end: end, isFinal: isFinal,
                                  wellQuotedRecords: 0, firstBlankRecord: .max)
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
            singleRecords.insert(row, at: record)
            found[record] = row
        }
        return found
    }
}
