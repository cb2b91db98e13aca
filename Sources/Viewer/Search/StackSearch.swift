import CellStore
import Scan
import Synchronization
import Table

/// A search through stacked tables (`StackRows`), each table's own input searched as a
/// table alone is (in its raw bytes, see `CellSearch`), in order, its records numbered as
/// the stack numbers them: as fast as searching the tables one by one, and with the same
/// matches in the same order.
///
/// A table is opened when the search reaches it, on the search's thread (one no one holds
/// is indexed there), and kept only until the search moves on to the next.
struct StackSearch: RecordFinder {
    /// A table of the stack.
    struct Part: Sendable {
        /// The stack's record of the table's first, and its records in the stack.
        var start: Int
        var count: Int
        /// The table's search, made on the calling thread (its work stopped when `control`
        /// is cancelled); nil when it cannot be read.
        var make: @Sendable (_ control: ScanControl) -> CellSearch?
    }

    let parts: [Part]
    /// Progress counts in `units` for the whole stack, each table its share by records
    /// (its bytes are known only once it is opened).
    static let units: Int64 = 1 << 30
    private let recordCount: Int
    private let last = LastSearch()

    /// The stack `stack` as it is now, searched for `pattern` (in input column `column`
    /// only, when given).
    init(stack: StackRows, pattern: CompiledPattern, column: Int?) {
        parts = stack.searchParts().map { part in
            let count = part.count, rows = part.rows, input = part.input
            return Part(start: part.start, count: part.count) { control in
                guard let (reader, progress) = input({ work, stop in control.running(work, stoppedBy: stop) }) else {
                    // No index to search: its rows, cell by cell, as its own reader reads them.
                    let snapshot = RowSnapshot(count: count, columnCount: 0) { range in rows(range) }
                    return CellSearch(rows: snapshot, pattern: pattern, column: column)
                }
                return CellSearch(input: ScanInput(reader: reader, progress: progress), pattern: pattern, column: column)
            }
        }
        recordCount = parts.last.map { $0.start + $0.count } ?? 0
    }

    func find(in range: Range<Int>, forward: Bool, control: ScanControl,
              choose: @escaping @Sendable (_ record: Int, _ columns: [Int]) -> Int?) -> CellSearch.Hit? {
        for (index, part) in (forward ? Array(parts.enumerated()) : parts.enumerated().reversed()) {
            let wanted = range.clamped(to: part.start..<(part.start + part.count))
            guard !wanted.isEmpty else { continue }
            if control.isCancelled { return nil }
            let worth = Int64(Double(Self.units) * Double(wanted.count) / Double(max(1, recordCount)))
            guard let search = last.search(for: index, making: { part.make(control) }) else {
                control.advance(by: worth)   // a table that cannot be read any more is passed over
                continue
            }
            if control.isCancelled { return nil }
            let start = part.start
            let local = (wanted.lowerBound - start)..<(wanted.upperBound - start)
            let bytes = search.progressTotal(of: local)
            let hit = search.find(in: local, forward: forward, control: control.part(total: bytes, worth: worth)) { record, columns in
                choose(record + start, columns)
            }
            if let hit { return CellSearch.Hit(record: hit.record + start, column: hit.column) }
        }
        return nil
    }
}

/// The search of the table searched last, kept for the search's next pass over it (the
/// part after a wrap), so a table is opened once.
private final class LastSearch: Sendable {
    private let kept = Mutex<(index: Int, search: CellSearch)?>(nil)

    func search(for index: Int, making make: () -> CellSearch?) -> CellSearch? {
        if let kept = kept.withLock({ $0 }), kept.index == index { return kept.search }
        kept.withLock { $0 = nil }
        guard let search = make() else { return nil }
        kept.withLock { $0 = (index, search) }
        return search
    }
}
