import CellStore
import CFieldScan

/// Reads records from raw bytes and hashes each one's cells, without making rows: the pass
/// a diff makes over each input.
///
/// It follows the parser's rules exactly, as the sort's key reader does (nothing trimmed;
/// CR, LF and CRLF end a record; a blank line is a record of one empty cell; a quote opens
/// a quoted field only as a field's first byte, and inside one a doubled quote is one
/// quote; text after a closing quote joins the field up to the next delimiter or line end;
/// an unclosed quote runs to the end), and tests hold it to the parser. A cell's hash is
/// of its value (quotes removed), so the same value quoted or not, or under another
/// delimiter, hashes alike. A record's hash combines its cells of the columns both tables
/// have, in one order for both (`Plan.slots`); a cell a short record lacks is empty.
/// Key cells are kept up to `keyLimit` bytes, with the whole value's hash beside them.
struct RecordHasher {
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

        init(slots: [Int], keys: [Int] = [], flags: [Bool] = []) {
            self.slots = slots
            slotCount = (slots.max() ?? -1) + 1
            self.keys = keys
            keyCount = (keys.max() ?? -1) + 1
            self.flags = flags
        }
    }

    private enum State: UInt8 { case rowNotBegun, fieldNotBegun, unquoted, quoted, quoteInQuoted }

    static let keyLimit = 4096

    let delimiter: UInt8
    let quote: UInt8
    private let plan: Plan
    private var state = State.rowNotBegun
    private var lastTerminator: UInt8 = 0
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

    init(dialect: Dialect, plan: Plan, firstRecord: Int, at offset: Int64) {
        delimiter = dialect.delimiter
        quote = dialect.quote
        self.plan = plan
        cells = Array(repeating: StreamHash.empty, count: plan.slotCount)
        keyCells = Array(repeating: [], count: plan.keyCount)
        keyLengths = Array(repeating: 0, count: plan.keyCount)
        keyHashes = Array(repeating: StreamHash.empty, count: plan.keyCount)
        record = firstRecord
        recordStart = offset
        startColumn(0)
    }

    @inline(__always) private mutating func startColumn(_ column: Int) {
        self.column = column
        slot = column < plan.slots.count ? plan.slots[column] : -1
        keySlot = column < plan.keys.count ? plan.keys[column] : -1
        flag = column < plan.flags.count ? plan.flags[column] : false
        field = StreamHash()
        fieldLength = 0
    }

    @inline(__always) private mutating func take(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) {
        guard end > start else { return }
        fieldLength += end - start
        guard slot >= 0 || keySlot >= 0 else { return }
        field.add(base + start, end - start)
        if keySlot >= 0 {
            let room = RecordHasher.keyLimit - keyCells[keySlot].count
            if room > 0 { keyCells[keySlot].append(contentsOf: UnsafeBufferPointer(start: base + start, count: min(room, end - start))) }
        }
    }

    @inline(__always) private mutating func take(_ byte: UInt8) {
        withUnsafePointer(to: byte) { take($0, 0, 1) }
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

    /// The hash of the record just ended (valid inside `ended`).
    var recordHash: UInt64 {
        var hash: UInt64 = 0x27D4_EB2F_1656_67C5
        for cell in cells { hash = StreamHash.combine(hash, cell) }
        return hash
    }

    /// Scans `buffer`, which starts at byte `position` of the input, calling
    /// `ended(record, start, hasher)` at each record's end.
    mutating func scan(_ buffer: UnsafeRawBufferPointer, at position: Int64,
                       ended: (Int, Int64, inout RecordHasher) -> Bool) -> Bool {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        var index = 0
        let count = buffer.count
        let delimiter = self.delimiter, quote = self.quote
        while index < count {
            switch state {
            case .unquoted:
                // A quote inside an unquoted field is data: only the delimiter and line ends stop.
                let start = index
                index += cf_find_special(base + index, count - index, delimiter, delimiter)
                take(base, start, index)
                guard index < count else { break }
                let byte = base[index]
                index += 1
                if byte == delimiter {
                    endField()
                    state = .fieldNotBegun
                } else if !endRecord(byte, at: position + Int64(index), ended: ended) {
                    return false
                }
            case .quoted:
                let length = cf_find_byte(base + index, count - index, quote)
                take(base, index, index + length)
                index += length
                guard index < count else { break }
                index += 1
                state = .quoteInQuoted
            case .quoteInQuoted:
                let byte = base[index]
                index += 1
                if byte == quote {
                    take(byte)
                    state = .quoted
                } else if byte == delimiter {
                    endField()
                    state = .fieldNotBegun
                } else if byte == 0x0A || byte == 0x0D {
                    if !endRecord(byte, at: position + Int64(index), ended: ended) { return false }
                } else {
                    take(byte)
                    state = .unquoted
                }
            case .rowNotBegun, .fieldNotBegun:
                let byte = base[index]
                index += 1
                if byte == 0x0A || byte == 0x0D {
                    if state == .rowNotBegun && byte == 0x0A && lastTerminator == 0x0D {
                        lastTerminator = 0x0A   // the LF of a CRLF ends nothing
                        recordStart = position + Int64(index)
                    } else if !endRecord(byte, at: position + Int64(index), ended: ended) {
                        return false
                    }
                } else if byte == delimiter {
                    endField()
                    state = .fieldNotBegun
                } else if byte == quote {
                    state = .quoted
                } else {
                    take(byte)
                    state = .unquoted
                }
            }
        }
        return true
    }

    /// Ends the input: a record still open is complete.
    mutating func finish(ended: (Int, Int64, inout RecordHasher) -> Bool) {
        if state != .rowNotBegun { _ = endRecord(0, at: recordStart, ended: ended) }
    }

    private mutating func endRecord(_ terminator: UInt8, at next: Int64,
                                    ended: (Int, Int64, inout RecordHasher) -> Bool) -> Bool {
        endField()
        let number = record, start = recordStart
        let goesOn = ended(number, start, &self)
        for index in cells.indices { cells[index] = StreamHash.empty }
        for index in keyCells.indices {
            keyCells[index].removeAll(keepingCapacity: true)
            keyLengths[index] = 0
            keyHashes[index] = StreamHash.empty
        }
        hasFlaggedValue = false
        record += 1
        recordStart = next
        lastTerminator = terminator
        state = .rowNotBegun
        startColumn(0)
        return goesOn
    }
}
