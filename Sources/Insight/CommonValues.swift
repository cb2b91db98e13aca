import CellStore
import Scan

/// The most common values of columns whose counts went past their budget, found the one
/// way both `--frequency` and `--summary` find them.
///
/// Past the budget a count keeps the most frequent values, each short of its true count
/// by at most `undercount`, and no value it dropped occurs more than `undercount` times
/// (see `ValueCounter`). A second pass counts the kept values again, exactly; those that
/// occur more often than `undercount` are listed: every value more frequent than any
/// value left out, with its true count.
enum CommonValues {
    /// For each column of `counters` (a merged count past its budget), the values that
    /// occur more often than any value its count left out, with their exact counts, most
    /// frequent first (ties in order of first appearance). Reads `pass`'s records again,
    /// only those columns; reads nothing when `counters` is empty. Nil when cancelled.
    static func recount(_ pass: Pass, counters: [Int: ValueCounter], control: ScanControl) -> [Int: [FrequencyRow]]? {
        guard let low = counters.keys.min(), let high = counters.keys.max() else { return [:] }
        let again = pass.over(columns: low..<(high + 1))
        var tables = [ValueTable?](repeating: nil, count: high - low + 1)
        for (column, counter) in counters { tables[column - low] = counter.candidates() }
        let start = tables
        guard let sinks = again.run(control: control, make: { _ in CandidateSink(first: low, tables: start) }) else { return nil }
        var result: [Int: [FrequencyRow]] = [:]
        for (column, counter) in counters {
            guard var table = sinks[0].tables[column - low] else { continue }
            for other in sinks.dropFirst() {
                if let theirs = other.tables[column - low] { table.addCounts(ofSameValues: theirs) }
            }
            let listed = table.top(table.count).filter { table.entries[$0].count > counter.undercount }
            result[column] = listed.map { table.row($0, total: counter.total) }
        }
        return result
    }
}

/// Counts only the values already in its tables (the second pass), one table per column
/// from `first` (nil: a column not counted again).
struct CandidateSink: CellSink, Sendable {
    let first: Int
    var tables: [ValueTable?]
    /// The hash of each column's cell announced by `willTake` (0: none, or 0: `cell`
    /// hashes again, the same), by column from `first`.
    var hashes: [UInt64]

    init(first: Int, tables: [ValueTable?]) {
        self.first = first
        self.tables = tables
        hashes = Array(repeating: 0, count: tables.count)
    }

    @inline(__always)
    mutating func willTake(_ bytes: UnsafeRawBufferPointer, column: Int) {
        let hash = valueHash(bytes)
        if tables[column - first]?.prefetch(hash: hash) != nil { hashes[column - first] = hash }
    }

    @inline(__always)
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) {
        let announced = hashes[column - first]
        if announced != 0 {
            hashes[column - first] = 0
            tables[column - first]?.add(bytes, hash: announced, record: record, inserts: false)
        } else {
            tables[column - first]?.add(bytes, hash: valueHash(bytes), record: record, inserts: false)
        }
    }

    mutating func longCell(_ value: LongValue, column: Int, record: Int) {
        value.key.withUnsafeBytes { _ = tables[column - first]?.add($0, hash: value.hash.0, record: record, inserts: false, isLong: true) }
    }
}
