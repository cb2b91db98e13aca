import CellStore
import Scan

/// An index of one column's values, made the first time a join or an `IN` asks a table
/// for the rows with a value: each record's value hash with where the record starts,
/// sorted by hash, so a lookup is a binary search and one record's parse per row found.
///
/// Values are hashed as SQL values (numbers by value, 1 and 1.0 alike; text by its
/// bytes; NULL never matches), so a hash finds every row SQLite would call equal among
/// values of the same kind; SQLite checks each row it is given again. A text cell that
/// SQLite reads as a number when a comparison has numeric affinity (`007` in a number
/// column, or a text column's against a number column) is hashed as that number: a
/// lookup tries a value's every form (`TableCursor.lookupKeys`).
/// - Complexity: building reads the column once (on two threads); 16 bytes per record.
final class LookupIndex: Sendable {
    private let entries: [(hash: UInt32, record: UInt32, offset: Int64)]
    /// Records the index has.
    var count: Int { entries.count }

    /// Reads column `column` of every record of `input` in `records`.
    init(input: SQLInput, column: Int, type: SQLColumnType, records: Range<Int>, settings: SQLSettings,
         control: QueryControl) throws(SQLError) {
        guard let scan = input.scan else { throw .engine("\(input.name): not readable") }
        var types = [SQLColumnType](repeating: .text, count: column + 1)
        types[column] = type
        var columnRequest = ScanRequest(columns: [column], types: types, records: records, headerRows: input.headerRows)
        columnRequest.pieceBytes = settings.pieceBytes
        let request = columnRequest
        let source = PieceSource(readers: input.readers, records: records, limit: request.pieceBytes, control: control)
        let count = source.isFinal && source.knownCount <= 1 ? 1 : max(1, settings.workers)
        let collected = Mutex<[[(hash: UInt32, record: UInt32, offset: Int64)]]>(Array(repeating: [], count: count))
        let failures = Mutex<SQLError?>(nil)
        let next = Atomic<Int>(0)
        Workers.run(count) { worker in
            let fields = RecordFields(input: scan, request: request, bufferSize: Int(request.pieceBytes))
            var sink = IndexSink(isNumber: type.isNumber)
            while !control.isCancelled {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard let item = source.item(index, isCancelled: { control.isCancelled }) else { break }
                fields.read(item, into: &sink, isCancelled: { control.isCancelled })
                control.noteRead(item.piece.byteCount)
                if let failure = fields.failure {
                    failures.withLock { $0 = $0 ?? failure }
                    break
                }
            }
            let entries = sink.entries
            collected.withLock { $0[worker] = entries }
        }
        if let failure = failures.withLock({ $0 }) { throw failure }
        if control.isCancelled { throw .cancelled }
        entries = collected.withLock { $0 }.flatMap { $0 }
            .sorted { $0.hash < $1.hash || ($0.hash == $1.hash && $0.record < $1.record) }
    }

    /// The records (and where they start, -1 when unknown) whose value may equal `key`
    /// (a value's key bytes, see `LookupIndex.key`), in input order.
    func records(forKey key: UnsafeRawBufferPointer) -> [(record: Int, offset: Int64)] {
        let hash = LookupIndex.hash(key)
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].hash < hash { low = middle + 1 } else { high = middle }
        }
        var found: [(record: Int, offset: Int64)] = []
        while low < entries.count && entries[low].hash == hash {
            found.append((Int(entries[low].record), entries[low].offset))
            low += 1
        }
        return found
    }

    static func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: Partitions.hash(key, seed: 0x10C4) >> 32)
    }

    /// The key bytes of an SQL value: as a group key has them (integers for whole
    /// numbers), nil for NULL, which equals nothing.
    static func key(kind: SQLKind, bits: UInt64, text: UnsafeRawBufferPointer) -> [UInt8]? {
        var key: [UInt8] = []
        switch kind {
        case .null: return nil
        case .integer:
            key.append(1)
            withUnsafeBytes(of: bits.littleEndian) { key.append(contentsOf: $0) }
        case .real:
            if let whole = Int64(exactly: Double(bitPattern: bits)) {
                key.append(1)
                withUnsafeBytes(of: UInt64(bitPattern: whole).littleEndian) { key.append(contentsOf: $0) }
            } else {
                key.append(2)
                withUnsafeBytes(of: bits.littleEndian) { key.append(contentsOf: $0) }
            }
        case .text:
            key.append(3)
            key.append(contentsOf: text)
        }
        return key
    }
}

/// Notes each record's value hash and start.
private struct IndexSink: RowSink {
    let isNumber: Bool
    var entries: [(hash: UInt32, record: UInt32, offset: Int64)] = []

    init(isNumber: Bool) { self.isNumber = isNumber }

    mutating func row(record: Int, offset: Int64, cells: UnsafePointer<UnsafeRawBufferPointer>) {
        let cell = cells[0]
        var (kind, bits) = SQLTyping.type(cell, isNumber: isNumber)
        // A comparison under numeric affinity reads a text as the number it spells, on
        // either side (`007` in a number column, or a text column's against a number).
        if kind == .text, let number = SQLTyping.looseNumber(cell) { (kind, bits) = number }
        guard let key = LookupIndex.key(kind: kind, bits: bits, text: cell) else { return }
        let hash = key.withUnsafeBytes { LookupIndex.hash($0) }
        entries.append((hash, UInt32(truncatingIfNeeded: record), offset))
    }
}

import Synchronization
