import CellStore
@testable import Insight
import Scan

/// Random well-quoted CSV: fields plain or quoted (with doubled quotes, delimiters and
/// line breaks inside), records ended by LF, CRLF or CR, blank lines and ragged rows, so
/// that the index vouches for it and the raw-byte reader is used.
func wellQuotedCSV(records: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    let plain: [String] = ["a", "bc", "", "1", "2.5", "-3", "é", "中文", "x y", "2024-01-02", "true", "7"]
    let quoted: [String] = ["\"\"", "\"a,b\"", "\"say \"\"hi\"\"\"", "\"line\nbreak\"", "\"cr\r\nlf\"", "\"\"\"\"", "\"1\""]
    let ends = ["\n", "\r\n", "\r"]
    var text = ""
    for _ in 0..<records {
        let roll = generator.next() % 20
        if roll == 0 {
            text += ends[Int(generator.next() % 3)]   // a blank line
            continue
        }
        let fields = 1 + Int(generator.next() % 5)
        var cells: [String] = []
        for _ in 0..<fields {
            cells.append(generator.next() % 3 == 0 ? quoted[Int(generator.next() % UInt64(quoted.count))]
                         : plain[Int(generator.next() % UInt64(plain.count))])
        }
        text += cells.joined(separator: ",") + ends[Int(generator.next() % 3)]
    }
    if generator.next() % 2 == 0, !text.isEmpty { text.removeLast() }   // sometimes no final line end
    return Array(text.utf8)
}

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
