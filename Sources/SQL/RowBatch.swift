import CellStore
#if canImport(Glibc)
import Glibc
#endif

/// What one cell is for SQL: SQLite's storage classes that a cell can take.
enum SQLKind: UInt8 {
    case null = 0, integer, real, text
}

/// A typed cell in a batch: 16 bytes, no reference counting.
struct SQLCell {
    /// An integer's or a Double's bit pattern, or where a text starts in the batch's bytes.
    var bits: UInt64
    /// A text's length in bytes.
    var length: Int32
    var kind: SQLKind

    static let null = SQLCell(bits: 0, length: 0, kind: .null)

    var integer: Int64 { Int64(bitPattern: bits) }
    var real: Double { Double(bitPattern: bits) }
}

/// How a cell becomes an SQL value: the one place that decides, so that a new way of
/// reading numbers is taken up here alone.
///
/// Empty is NULL (in CSV made from JSON, an empty cell written `""` is text:
/// `emptyText`). In a text column (`SQLColumnType.text`) every other cell is text, as
/// written. In a number column a cell that reads as a number (`CellValue.number`, the
/// reading the summary and the sort share, spaces around it allowed) is one: an integer
/// when written whole and within 64 bits, else a real; a number SQL cannot hold as
/// written (an integer past 64 bits, `1e400`, `1e-400`) and anything else stays text, as
/// written.
enum SQLTyping {
    /// Where an empty cell that is text, not NULL, is handed over: a JSON `""` (written
    /// `""` in the CSV made from JSON, whose empty cells without quotes are null). No
    /// byte is read there (the count is 0); no real buffer starts at it (page zero).
    @inline(__always)
    static var emptyText: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: 16), count: 0) }

    /// The kind and bits of the cell written `bytes` in a column of the type `isNumber`
    /// says (text: kind only, the caller keeps the bytes).
    @inline(__always)
    static func type(_ bytes: UnsafeRawBufferPointer, isNumber: Bool) -> (kind: SQLKind, bits: UInt64) {
        guard !bytes.isEmpty else { return bytes.baseAddress == emptyText.baseAddress ? (.text, 0) : (.null, 0) }
        guard isNumber else { return (.text, 0) }
        if let plain = plainDecimal(bytes) { return plain }
        return number(bytes)
    }

    /// The cell `bytes` as a number column types it.
    @inline(__always)
    static func number(_ bytes: UnsafeRawBufferPointer) -> (kind: SQLKind, bits: UInt64) {
        guard !bytes.isEmpty else { return bytes.baseAddress == emptyText.baseAddress ? (.text, 0) : (.null, 0) }
        if let plain = plainDecimal(bytes) { return plain }
        guard let number = CellValue.number(bytes) else { return (.text, 0) }
        if number.isInteger {
            if let small = number.small { return (.integer, UInt64(bitPattern: small)) }
            if let wide = wholeNumber(number, in: bytes) { return (.integer, UInt64(bitPattern: wide)) }
            return (.text, 0)   // past 64 bits: a Double would change its digits
        }
        let value = number.value
        // Past a Double's range, or so small that it reads as 0: not the number written.
        guard value.isFinite, value != 0 || !hasNonzeroDigit(number, in: bytes) else { return (.text, 0) }
        return (.real, value.bitPattern)
    }

    /// Powers of ten a Double holds exactly.
    static let powersOfTen: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// The common forms, `-12`, `3.50`, `.5`, read without the general reading's copy and
    /// `strtod`, to the same value: at most 18 digits, a Double's exact significand divided
    /// by an exact power of ten (one correctly rounded division, as `strtod` rounds). Nil
    /// for anything else (the general reading decides, a leading zero included).
    @inline(__always)
    static func plainDecimal(_ bytes: UnsafeRawBufferPointer) -> (kind: SQLKind, bits: UInt64)? {
        let count = bytes.count
        var index = 0
        var negative = false
        let first = bytes[0]
        if first == 0x2D || first == 0x2B {
            negative = first == 0x2D
            index = 1
        }
        let integerStart = index
        var significand: UInt64 = 0
        while index < count {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { break }
            significand = significand &* 10 &+ UInt64(digit)
            index += 1
        }
        let integerDigits = index - integerStart
        guard integerDigits <= 18, integerDigits <= 1 || bytes[integerStart] != 0x30 else { return nil }
        if index == count {
            guard integerDigits > 0 else { return nil }
            let value = Int64(significand)
            return (.integer, UInt64(bitPattern: negative ? -value : value))
        }
        guard bytes[index] == 0x2E else { return nil }
        index += 1
        let fractionStart = index
        while index < count {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { return nil }
            significand = significand &* 10 &+ UInt64(digit)
            index += 1
        }
        let fractionDigits = index - fractionStart
        guard integerDigits + fractionDigits > 0, integerDigits + fractionDigits <= 18, significand <= 1 << 53 else { return nil }
        let value = Double(significand) / powersOfTen[fractionDigits]
        return (.real, (negative ? -value : value).bitPattern)
    }

    /// An integer of 19 digits or more (thousands separators apart) that still fits 64
    /// bits: the summary's reading keeps 18 exactly.
    static func wholeNumber(_ number: CellNumber, in bytes: UnsafeRawBufferPointer) -> Int64? {
        var magnitude: UInt64 = 0
        for index in number.integerDigits where bytes[index] != 0x2C {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(bytes[index] &- 0x30))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        if number.isNegative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The number a text column's cell becomes when SQLite gives it numeric affinity (a
    /// comparison with a number column): spaces around it, a sign, digits with at most
    /// one point, an exponent (`007`, ` 5 `, `5.`, `1e3`, not `$5` or `1,000`); an integer
    /// when written whole and within 64 bits. A lookup index keys such cells by it.
    static func looseNumber(_ bytes: UnsafeRawBufferPointer) -> (kind: SQLKind, bits: UInt64)? {
        var start = 0, end = bytes.count
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte &- 0x09 < 5 }
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        var index = start
        if index < end && (bytes[index] == 0x2B || bytes[index] == 0x2D) { index += 1 }
        var digits = 0
        var magnitude: UInt64 = 0
        var fits = true
        while index < end && bytes[index] &- 0x30 < 10 {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(bytes[index] &- 0x30))
            if overflow || carry { fits = false }
            magnitude = sum
            digits += 1
            index += 1
        }
        var isWhole = true
        if index < end && bytes[index] == 0x2E {
            isWhole = false
            index += 1
            while index < end && bytes[index] &- 0x30 < 10 {
                digits += 1
                index += 1
            }
        }
        guard digits > 0 else { return nil }
        if index < end && (bytes[index] == 0x65 || bytes[index] == 0x45) {
            isWhole = false
            index += 1
            if index < end && (bytes[index] == 0x2B || bytes[index] == 0x2D) { index += 1 }
            let exponentStart = index
            while index < end && bytes[index] &- 0x30 < 10 { index += 1 }
            guard index > exponentStart else { return nil }
        }
        guard index == end else { return nil }
        let negative = bytes[start] == 0x2D
        if isWhole && fits {
            if negative && magnitude <= UInt64(Int64.max) + 1 { return (.integer, 0 &- magnitude) }
            if !negative && magnitude <= UInt64(Int64.max) { return (.integer, magnitude) }
        }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: end - start + 1) { text in
            for offset in 0..<(end - start) { text[offset] = CChar(bitPattern: bytes[start + offset]) }
            text[end - start] = 0
            return strtod(text.baseAddress!, nil)
        }
        return (.real, value.bitPattern)
    }

    /// True when a digit of `number` (read from `bytes`) is not 0.
    static func hasNonzeroDigit(_ number: CellNumber, in bytes: UnsafeRawBufferPointer) -> Bool {
        number.integerDigits.contains { bytes[$0] &- 0x31 < 9 } || number.fractionDigits.contains { bytes[$0] &- 0x31 < 9 }
    }
}

/// Rows of typed cells, made on a feed's thread and read by a cursor on SQLite's.
///
/// The cells of row `r` are `cells[r * width ..< (r + 1) * width]`, one per column the
/// query reads (its slots); a text's bytes lie in `text`. Plain pointers, not arrays: a
/// class's array property would pay an exclusivity check on every cell.
final class RowBatch: @unchecked Sendable {
    // @unchecked, and why it is safe: the memory is written only through `appendRow`,
    // `cell` and `storeText`, by the one thread that made the batch (a `BatchSink`, a
    // `RunEmitter`, `LookupSource.joined`), before it is handed over; handing over is
    // putting it in a `Handoff` (`RowFeed`) or a `BoundedQueue` (`GroupFeed`), whose lock orders every write
    // before the reader's first read, or returning it on the same thread (`LookupSource`).
    // The filler drops its reference as it hands the batch over (`BatchSink.finish`,
    // `RunEmitter.flushFull`) and nothing writes to a batch after that: the cursor only
    // reads (`TableCursor.column`, `bytes(of:)`). The pointers are freed in `deinit` alone.
    // Raw pointers, not arrays, because the cursor reads every cell through them (the
    // reason this is the one `@unchecked` class in the module).
    let width: Int
    let capacity: Int
    private(set) var count = 0
    /// Each row's record number in the input.
    let records: UnsafeMutablePointer<Int>
    let cells: UnsafeMutablePointer<SQLCell>
    private(set) var text: UnsafeMutablePointer<UInt8>
    private(set) var textCount = 0
    private var textCapacity: Int

    /// Rows a batch holds at most; fewer when its text grows past `textLimit`.
    static let rows = 2048
    static let textLimit = 1 << 20

    init(width: Int, capacity: Int = RowBatch.rows) {
        self.width = width
        self.capacity = max(1, capacity)
        records = .allocate(capacity: self.capacity)
        cells = .allocate(capacity: self.capacity * max(1, width))
        textCapacity = 4096
        text = .allocate(capacity: textCapacity)
    }

    deinit {
        records.deallocate()
        cells.deallocate()
        text.deallocate()
    }

    /// True when no more rows fit.
    var isFull: Bool { count >= capacity || textCount >= RowBatch.textLimit }

    /// Starts a row for `record`; its cells are to be set before the next one starts.
    /// Returns where they go.
    @inline(__always)
    func appendRow(record: Int) -> UnsafeMutablePointer<SQLCell> {
        records[count] = record
        let row = cells + count * width
        count += 1
        return row
    }

    /// The cell for `bytes` in a column of the type `isNumber` says, typed; a text's bytes
    /// are copied into the batch.
    @inline(__always)
    func cell(_ bytes: UnsafeRawBufferPointer, isNumber: Bool) -> SQLCell {
        let (kind, bits) = SQLTyping.type(bytes, isNumber: isNumber)
        guard kind == .text else { return SQLCell(bits: bits, length: 0, kind: kind) }
        return SQLCell(bits: UInt64(storeText(bytes)), length: Int32(bytes.count), kind: .text)
    }

    /// Copies `bytes` into the batch; returns where they start.
    func storeText(_ bytes: UnsafeRawBufferPointer) -> Int {
        if textCount + bytes.count > textCapacity {
            var capacity = textCapacity * 2
            while capacity < textCount + bytes.count { capacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: text, count: textCount)
            text.deallocate()
            text = grown
            textCapacity = capacity
        }
        let start = textCount
        if let base = bytes.baseAddress, bytes.count > 0 {
            (text + start).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        }
        textCount += bytes.count
        return start
    }

    /// The bytes of text cell `cell`.
    @inline(__always)
    func bytes(of cell: SQLCell) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: text + Int(cell.bits), count: Int(cell.length))
    }
}
