import CellStore

/// Hashes each record's cells from raw bytes, without making rows: the pass a diff makes
/// over each input. It is a visitor of the field kernel (`FieldVisitor`), so it reads
/// records exactly as the parser does, and the field kernel's differential suite holds it
/// to the plain rules.
///
/// A cell's hash is of its value (quotes removed), so the same value quoted or not, or
/// under another delimiter, hashes alike. A record's hash combines its cells of the
/// columns both tables have, in one order for both (`Plan.slots`); a cell a short record
/// lacks is empty. Key cells are kept up to `keyLimit` bytes, with the whole value's hash
/// beside them. Past the last column the plan uses, the kernel skips to the record's end
/// in bulk.
struct RecordHasher: FieldVisitor {
    /// What to do with each column of the input.
    struct Plan: Sendable {
        /// For each column, its place in the record's hash, or -1 (not in both tables).
        var slots: [Int]
        var slotCount: Int
        /// For each column, its place among the key's columns, or -1.
        var keys: [Int]
        var keyCount: Int
        /// For each column, true when a value in it is news (a column only the new table has).
        var flags: [Bool]
        /// The last column with a slot, a key place or a flag (-1: none).
        var lastUsedColumn: Int

        init(slots: [Int], keys: [Int] = [], flags: [Bool] = []) {
            self.slots = slots
            slotCount = (slots.max() ?? -1) + 1
            self.keys = keys
            keyCount = (keys.max() ?? -1) + 1
            self.flags = flags
            let used = max(slots.lastIndex { $0 >= 0 } ?? -1, keys.lastIndex { $0 >= 0 } ?? -1, flags.lastIndex(of: true) ?? -1)
            lastUsedColumn = used
        }
    }

    static let keyLimit = 4096

    private let plan: Plan
    private var kernel: FieldKernel
    /// Where the buffer being scanned starts in the input.
    private var position: Int64 = 0
    /// Told each record's end while a scan runs (nil between scans).
    private var ended: ((Int, Int64, inout RecordHasher) -> Bool)?
    private var isStopped = false
    /// The column being read, and what the plan does with it.
    private var column = 0
    private var slot = -1
    private var keySlot = -1
    private var flag = false
    private var field = StreamHash()
    private var fieldLength = 0
    /// The cells' hashes of the record being read, by slot.
    private var cells: [UInt64]
    /// The key's cells of the record being read (their first `keyLimit` bytes), their whole
    /// lengths and hashes.
    private(set) var keyCells: [[UInt8]]
    private(set) var keyLengths: [Int]
    private(set) var keyHashes: [UInt64]
    /// True when the record has a value in a column marked in `Plan.flags`.
    private(set) var hasFlaggedValue = false
    /// The next record's number and where it starts.
    private(set) var record: Int
    private var recordStart: Int64

    /// A hasher from record `firstRecord`, which starts at `offset` (`bulk`: the kernel's
    /// bulk scan, which tests compare).
    init(dialect: Dialect, plan: Plan, firstRecord: Int, at offset: Int64, bulk: FieldKernel.Bulk = .best) {
        self.plan = plan
        kernel = FieldKernel(dialect: dialect, bulk: bulk)
        cells = Array(repeating: StreamHash.empty, count: plan.slotCount)
        keyCells = Array(repeating: [], count: plan.keyCount)
        keyLengths = Array(repeating: 0, count: plan.keyCount)
        keyHashes = Array(repeating: StreamHash.empty, count: plan.keyCount)
        record = firstRecord
        recordStart = offset
        startColumn(0)
    }

    /// The hash of the record just ended (valid inside `ended`).
    var recordHash: UInt64 {
        var hash: UInt64 = 0x27D4_EB2F_1656_67C5
        for cell in cells { hash = StreamHash.combine(hash, cell) }
        return hash
    }

    /// Scans `buffer`, which starts at byte `position` of the input, calling
    /// `ended(record, start, hasher)` at each record's end; false when `ended` said stop
    /// (the rest of the buffer is not read).
    mutating func scan(_ buffer: UnsafeRawBufferPointer, at position: Int64,
                       ended: (Int, Int64, inout RecordHasher) -> Bool) -> Bool {
        withoutActuallyEscaping(ended) { ended in
            self.ended = ended
            self.position = position
            isStopped = false
            var kernel = self.kernel
            kernel.scan(buffer, at: position, into: &self)
            self.kernel = kernel
            self.ended = nil
            return !isStopped
        }
    }

    /// Ends the input: a record still open is complete.
    mutating func finish(ended: (Int, Int64, inout RecordHasher) -> Bool) {
        withoutActuallyEscaping(ended) { ended in
            self.ended = ended
            var kernel = self.kernel
            kernel.finish(into: &self)
            self.kernel = kernel
            self.ended = nil
        }
    }

    // MARK: The kernel's visitor

    var lastWantedColumn: Int { plan.lastUsedColumn }

    /// Asked of the column being read only.
    func wants(_ column: Int) -> Bool { slot >= 0 || keySlot >= 0 || flag }

    mutating func cell(_ column: Int, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let count = bytes.count
        fieldLength += count
        field.add(base, count)
        if keySlot >= 0 {
            let room = RecordHasher.keyLimit - keyCells[keySlot].count
            if room > 0 { keyCells[keySlot].append(contentsOf: UnsafeBufferPointer(start: base, count: min(room, count))) }
        }
    }

    mutating func fieldEnded(_ column: Int, at index: Int) -> Bool {
        endField()
        return true
    }

    mutating func recordEnded(at end: Int, terminator: UInt8, fields: Int) -> Bool {
        endField()
        let number = record, start = recordStart
        var goesOn = true
        if let ended { goesOn = ended(number, start, &self) }
        for index in cells.indices { cells[index] = StreamHash.empty }
        for index in keyCells.indices {
            keyCells[index].removeAll(keepingCapacity: true)
            keyLengths[index] = 0
            keyHashes[index] = StreamHash.empty
        }
        hasFlaggedValue = false
        record += 1
        if terminator != 0 { recordStart = position + Int64(end) }
        startColumn(0)
        if !goesOn { isStopped = true }
        return goesOn
    }

    mutating func lineFeedAfterCR(at end: Int) {
        recordStart = position + Int64(end)   // the LF of a CRLF ends nothing
    }

    /// Quoting problems are read by the rules, as the parser reads them.
    mutating func problem(_ kind: FieldKernel.Problem, at offset: Int64, index: Int) -> Bool { true }

    // MARK: Fields

    @inline(__always) private mutating func startColumn(_ column: Int) {
        self.column = column
        slot = column < plan.slots.count ? plan.slots[column] : -1
        keySlot = column < plan.keys.count ? plan.keys[column] : -1
        flag = column < plan.flags.count ? plan.flags[column] : false
        field = StreamHash()
        fieldLength = 0
    }

    /// Ends the field being read; the next one is in column `column + 1`.
    @inline(__always) private mutating func endField() {
        if fieldLength > 0 {
            let hash = field.finish()
            if slot >= 0 { cells[slot] = hash }
            if keySlot >= 0 {
                keyLengths[keySlot] = fieldLength
                keyHashes[keySlot] = hash
            }
            if flag { hasFlaggedValue = true }
        }
        startColumn(column + 1)
    }
}
