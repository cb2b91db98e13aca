/// Where a record starts, when it is known: a sort or a filter notes it as it passes, so
/// the rows of a view in any order are read one record each, never a block each.
public struct RecordRef: Sendable, Hashable, Comparable {
    /// The record's number in the input, header records included.
    package var record: Int
    /// The offset of its first byte in the input, or nil when unknown.
    package var offset: Int64?

    package init(record: Int, offset: Int64? = nil) {
        self.record = record
        self.offset = offset
    }

    public static func < (lhs: RecordRef, rhs: RecordRef) -> Bool { lhs.record < rhs.record }
}

import CellStore
import Synchronization

/// The data records a view shows, in its order: what a filter or a sort makes.
///
/// It is read on the UI thread. One that a background scan fills grows while the scan
/// runs (`count` rises, `isComplete` turns true) and guards its own state.
public protocol RecordSequence: AnyObject, Sendable {
    /// View rows known so far.
    var count: Int { get }
    /// True once no more rows will come.
    var isComplete: Bool { get }
    /// Published when rows come and when the sequence completes: a pass over the view
    /// (a count over a filter's rows) waits on it rather than polling.
    var changes: ChangeSignal { get }
    /// The records of view rows `range` (clamped to `count`), in view order.
    func records(in range: Range<Int>) -> [RecordRef]
    /// The view row that shows `record`, or nil when it is not in the view (yet).
    func index(of record: Int) -> Int?
    /// Where `record` would show if it were in the view: the first view row after its
    /// place in the view's order (`count` when none follows so far); nil when the sequence
    /// cannot tell (the default).
    func index(following record: Int) -> Int?
    /// The edits spliced into the bytes the sequence was made from: its records' offsets
    /// are offsets of those bytes (`RecordPatch.id` 0: the file's own).
    var patch: RecordPatch { get }
}

extension RecordSequence {
    public func index(following record: Int) -> Int? { nil }
    public var patch: RecordPatch { .empty }

    /// The record of view row `index` (which must be below `count`).
    package func record(at index: Int) -> Int { records(in: index..<(index + 1)).first?.record ?? -1 }
}

/// A sequence's records without their offsets: what is read through bytes other than
/// those the sequence was made from (edits made since), which finds each record anew.
package final class RecordsWithoutOffsets: RecordSequence {
    package let base: any RecordSequence

    package init(_ base: any RecordSequence) { self.base = base }

    package var count: Int { base.count }
    package var isComplete: Bool { base.isComplete }
    package var changes: ChangeSignal { base.changes }
    package func records(in range: Range<Int>) -> [RecordRef] {
        base.records(in: range).map { RecordRef(record: $0.record) }
    }
    package func index(of record: Int) -> Int? { base.index(of: record) }
    package func index(following record: Int) -> Int? { base.index(following: record) }
}

/// The records of a view, as a list in memory: for small views and for tests.
package final class RecordList: RecordSequence {
    private let refs: [RecordRef]
    /// Each record's row, made on the first `index(of:)` (from any thread: a pass may ask).
    private let positions = Mutex<[Int: Int]?>(nil)
    /// Never published: the list is complete from the start.
    package let changes = ChangeSignal()

    package init(_ records: [Int]) { refs = records.map { RecordRef(record: $0) } }
    package init(refs: [RecordRef]) { self.refs = refs }

    package var count: Int { refs.count }
    package var isComplete: Bool { true }
    package func records(in range: Range<Int>) -> [RecordRef] {
        Array(refs[range.clamped(to: 0..<refs.count)])
    }
    package func index(of record: Int) -> Int? {
        positions.withLock { positions in
            if positions == nil {
                var made: [Int: Int] = [:]
                for (index, ref) in refs.enumerated() { made[ref.record] = index }
                positions = made
            }
            return positions?[record]
        }
    }
}
