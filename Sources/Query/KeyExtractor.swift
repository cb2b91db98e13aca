import CellStore

/// Reads records from raw bytes without parsing every cell, keeping only the cells of the
/// key columns: the pass a sort makes over the whole input.
///
/// The field kernel reads the bytes by the parser's rules; this is its visitor, which
/// keeps each key cell up to `cellLimit` bytes (keys are cut shorter anyway). Past the
/// last key column the kernel skips to the record's end in bulk.
struct KeyExtractor {
    static let cellLimit = 8192

    /// What the visitor keeps between buffers.
    private struct Keys {
        /// For each column (up to the last key column), its slot in `cells`, or -1.
        var slots: [Int]
        /// The kept cells of the record being read, one per key column.
        var cells: [[UInt8]]
        /// The next record's number and where it starts.
        var record: Int
        var recordStart: Int64
    }

    private var kernel: FieldKernel
    private var keys: Keys
    /// The next record's number.
    var record: Int { keys.record }

    init(dialect: Dialect, columns: [Int], firstRecord: Int, at offset: Int64, bulk: FieldKernel.Bulk = .best) {
        kernel = FieldKernel(dialect: dialect, bulk: bulk)
        var slots = [Int](repeating: -1, count: (columns.max() ?? 0) + 1)
        for (index, column) in columns.enumerated() where slots[column] < 0 { slots[column] = index }
        keys = Keys(slots: slots, cells: Array(repeating: [], count: columns.count), record: firstRecord, recordStart: offset)
    }

    /// The kernel's visitor over one buffer.
    private struct Visitor: FieldVisitor {
        var keys: Keys
        let position: Int64
        let ended: (Int, Int64, [[UInt8]]) -> Void

        var lastWantedColumn: Int { keys.slots.count - 1 }
        func wants(_ column: Int) -> Bool { keys.slots[column] >= 0 }

        mutating func cell(_ column: Int, _ bytes: UnsafeRawBufferPointer) {
            let slot = keys.slots[column]
            let room = KeyExtractor.cellLimit - keys.cells[slot].count
            guard room > 0 else { return }
            keys.cells[slot].append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(room)))
        }

        mutating func recordEnded(at end: Int, terminator: UInt8, fields: Int) -> Bool {
            ended(keys.record, keys.recordStart, keys.cells)
            for index in keys.cells.indices { keys.cells[index].removeAll(keepingCapacity: true) }
            keys.record += 1
            keys.recordStart = position + Int64(end)
            return true
        }

        mutating func lineFeedAfterCR(at end: Int) {
            keys.recordStart = position + Int64(end)
        }

        mutating func problem(_ kind: FieldKernel.Problem, at offset: Int64, index: Int) -> Bool { true }
    }

    /// Scans `buffer`, which starts at byte `position` of the input, calling
    /// `ended(record, start, cells)` at each record's end with the key cells, in the order
    /// of the key columns.
    mutating func scan(_ buffer: UnsafeRawBufferPointer, at position: Int64, ended: (Int, Int64, [[UInt8]]) -> Void) {
        withoutActuallyEscaping(ended) { ended in
            var visitor = Visitor(keys: takeKeys(), position: position, ended: ended)
            kernel.scan(buffer, at: position, into: &visitor)
            keys = visitor.keys
        }
    }

    /// Ends the input: a record still open is complete.
    mutating func finish(ended: (Int, Int64, [[UInt8]]) -> Void) {
        withoutActuallyEscaping(ended) { ended in
            var visitor = Visitor(keys: takeKeys(), position: 0, ended: ended)
            kernel.finish(into: &visitor)
            keys = visitor.keys
        }
    }

    /// The visitor's state, moved out (so its arrays stay uniquely held, and grow in place).
    private mutating func takeKeys() -> Keys {
        var taken = Keys(slots: [], cells: [], record: 0, recordStart: 0)
        swap(&taken, &keys)
        return taken
    }
}
