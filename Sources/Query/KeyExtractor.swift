import CellStore
import CLibCSV

/// Reads records from raw bytes without parsing every cell, keeping only the cells of the
/// key columns: the pass a sort makes over the whole input.
///
/// It follows the parser's rules exactly (as `RecordScanner` does, and tests hold it to the
/// parser): nothing trimmed; CR, LF and CRLF end a record; a blank line is a record of one
/// empty cell; a quote opens a quoted field only as a field's first byte; text after a
/// closing quote is appended up to the next delimiter or line end; an unclosed quote runs
/// to the end. A key cell is kept up to `cellLimit` bytes (keys are cut shorter anyway).
struct KeyExtractor {
    private enum State: UInt8 { case rowNotBegun, fieldNotBegun, unquoted, quoted, quoteInQuoted }

    let delimiter: UInt8
    let quote: UInt8
    /// For each column (up to the last key column), its slot in `cells`, or -1.
    private let slots: [Int]
    /// The kept cells of the record being read, one per key column.
    private(set) var cells: [[UInt8]]
    static let cellLimit = 8192
    private var state = State.rowNotBegun
    private var lastTerminator: UInt8 = 0
    private var column = 0
    private var slot = -1
    /// The next record's number and where it starts.
    private(set) var record: Int
    private var recordStart: Int64

    init(dialect: Dialect, columns: [Int], firstRecord: Int, at offset: Int64) {
        delimiter = dialect.delimiter
        quote = dialect.quote
        var slots = [Int](repeating: -1, count: (columns.max() ?? 0) + 1)
        for (index, column) in columns.enumerated() where slots[column] < 0 { slots[column] = index }
        self.slots = slots
        cells = Array(repeating: [], count: columns.count)
        record = firstRecord
        recordStart = offset
        slot = slots.isEmpty ? -1 : slots[0]
    }

    /// Scans `buffer`, which starts at byte `position` of the input, calling
    /// `ended(record, start, cells)` at each record's end.
    ///
    /// Quoted stretches are skipped with a vector search for the quote, and once a record
    /// is past its last key column, its unquoted fields are skipped in bulk through their
    /// delimiters (the scanner's SSE2 helpers).
    mutating func scan(_ buffer: UnsafeRawBufferPointer, at position: Int64,
                       ended: (Int, Int64, inout KeyExtractor) -> Void) {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var index = 0
        let count = buffer.count
        let delimiter = self.delimiter, quote = self.quote
        let lastKeyColumn = slots.count - 1
        while index < count {
            switch state {
            case .unquoted:
                if slot < 0 && column > lastKeyColumn {
                    // Past the key columns: whole unquoted fields at once.
                    var added = 0
                    var afterDelimiter: Int32 = 0
                    index += cf_scan_unquoted(base + index, count - index, delimiter, quote, &added, &afterDelimiter)
                    column += added
                    guard index < count else {
                        if afterDelimiter != 0 { state = .fieldNotBegun }
                        break
                    }
                    let byte = base[index]
                    index += 1
                    if byte == 0x0A || byte == 0x0D {
                        endRecord(byte, at: position + Int64(index), ended: ended)
                    } else if afterDelimiter != 0 {
                        state = .quoted   // a quote that starts a field
                    }
                    continue
                }
                let start = index
                while index < count {
                    let byte = base[index]
                    if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
                    index += 1
                }
                if slot >= 0 { keep(base, start, index) }
                guard index < count else { break }
                let byte = base[index]
                index += 1
                if byte == delimiter {
                    nextField()
                    state = .fieldNotBegun
                } else {
                    endRecord(byte, at: position + Int64(index), ended: ended)
                }
            case .quoted:
                let length = cf_find_byte(base + index, count - index, quote)
                if slot >= 0 { keep(base, index, index + length) }
                index += length
                guard index < count else { break }
                index += 1
                state = .quoteInQuoted
            case .quoteInQuoted:
                let byte = base[index]
                index += 1
                if byte == quote {
                    if slot >= 0 { keep(byte) }
                    state = .quoted
                } else if byte == delimiter {
                    nextField()
                    state = .fieldNotBegun
                } else if byte == 0x0A || byte == 0x0D {
                    endRecord(byte, at: position + Int64(index), ended: ended)
                } else {
                    if slot >= 0 { keep(byte) }
                    state = .unquoted
                }
            case .rowNotBegun, .fieldNotBegun:
                let byte = base[index]
                index += 1
                if byte == 0x0A || byte == 0x0D {
                    if state == .rowNotBegun && byte == 0x0A && lastTerminator == 0x0D {
                        lastTerminator = 0x0A   // the LF of a CRLF ends nothing
                        recordStart = position + Int64(index)
                    } else {
                        endRecord(byte, at: position + Int64(index), ended: ended)
                    }
                } else if byte == delimiter {
                    nextField()
                    state = .fieldNotBegun
                } else if byte == quote {
                    state = .quoted
                } else {
                    if slot >= 0 { keep(byte) }
                    state = .unquoted
                }
            }
        }
    }

    /// Ends the input: a record still open is complete.
    mutating func finish(ended: (Int, Int64, inout KeyExtractor) -> Void) {
        if state != .rowNotBegun { endRecord(0, at: recordStart, ended: ended) }
    }

    @inline(__always) private mutating func keep(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) {
        let room = Self.cellLimit - cells[slot].count
        guard room > 0, end > start else { return }
        cells[slot].append(contentsOf: UnsafeBufferPointer(start: base + start, count: min(room, end - start)))
    }

    @inline(__always) private mutating func keep(_ byte: UInt8) {
        if cells[slot].count < Self.cellLimit { cells[slot].append(byte) }
    }

    @inline(__always) private mutating func nextField() {
        column += 1
        slot = column < slots.count ? slots[column] : -1
    }

    private mutating func endRecord(_ terminator: UInt8, at next: Int64, ended: (Int, Int64, inout KeyExtractor) -> Void) {
        let number = record, start = recordStart
        ended(number, start, &self)
        for index in cells.indices { cells[index].removeAll(keepingCapacity: true) }
        record += 1
        recordStart = next
        lastTerminator = terminator
        state = .rowNotBegun
        column = 0
        slot = slots.isEmpty ? -1 : slots[0]
    }
}
