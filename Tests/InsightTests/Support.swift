import CellStore
@testable import Insight
import Scan

/// Collects every cell a pass reads, per column, in order.
struct CollectingSink: CellSink, Sendable {
    var cells: [[UInt8]] = []
    var records: [Int] = []
    mutating func cell(_ bytes: UnsafeRawBufferPointer, column: Int, record: Int) {
        cells.append(Array(bytes))
        records.append(record)
    }
    /// A long value: its start, then its whole length as text.
    mutating func longCell(_ value: LongValue, column: Int, record: Int) {
        cells.append(value.prefix + Array("…\(value.length)".utf8))
        records.append(record)
    }
}

/// A pass over `bytes` (comma-separated) with small pieces, shared between two threads.
func smallPass(_ bytes: [UInt8], columns: Range<Int>, first: Int = 0, pieceLimit: Int64 = 64,
               spacing: Int64 = 16) -> (Pass, CellStore) {
    let store = CellStore(bytes: bytes, delimiter: UInt8(ascii: ","), checkpointSpacing: spacing)
    var pass = Pass(input: ScanInput(store: store)!, columns: columns, filter: RecordFilter(first: first))
    pass.pieceLimit = pieceLimit
    pass.workers = 2
    pass.minimumSharedBytes = 0
    return (pass, store)
}

/// The reference: every record as the parser reads it.
func referenceRows(_ bytes: [UInt8]) -> [Row] {
    (try? RecordParser.records(in: bytes, dialect: Dialect(delimiter: UInt8(ascii: ",")))) ?? []
}
