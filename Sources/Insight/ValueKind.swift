/// What a column holds, judged from its filled cells.
public enum ValueKind: String, Sendable, CaseIterable {
    /// No filled cell.
    case empty
    /// Whole numbers: an optional sign and digits, without leading zeros (`007` is text).
    case integer
    /// Numbers with a decimal point or an exponent (`1.5`, `-.5`, `2e10`), and integers.
    case decimal
    /// ISO 8601 dates, with or without a time and a zone (`2024-03-01`, `2024-03-01T12:30:00Z`).
    case dateTime = "date/time"
    /// `true`/`false` or `yes`/`no`, in any case.
    case boolean
    /// Anything else, or a mix of kinds.
    case text

    /// One bit per kind, for a set of the kinds seen.
    var bit: UInt8 {
        switch self {
        case .empty: 0
        case .integer: 1
        case .decimal: 2
        case .dateTime: 4
        case .boolean: 8
        case .text: 16
        }
    }

    /// The kind of a column whose filled cells are of the kinds in `seen`.
    static func of(_ seen: UInt8) -> ValueKind {
        switch seen {
        case 0: .empty
        case 1: .integer
        case 2, 3: .decimal
        case 4: .dateTime
        case 8: .boolean
        default: .text
        }
    }
}

/// A number as written in a cell, read exactly: its sign, its significant digits and the
/// power of ten of the first one. Nothing is rounded, so comparisons are exact.
struct ExactNumber: Sendable, Equatable {
    var negative: Bool
    /// Significant digits (no leading or trailing zeros; empty for zero), as ASCII bytes.
    var digits: [UInt8]
    /// The value is 0.d1d2d3… × 10^exponent.
    var exponent: Int
    /// The value when it is an integer of at most 18 digits (the common case, compared fast).
    var small: Int64?
    /// The nearest Double (correctly rounded: exact for `small`, else `strtod`).
    var value: Double

    /// -1, 0 or 1 as the number written `bytes` is below, equal to or above the one written
    /// `other`: by their Doubles when those differ (rounding never reverses an order), else
    /// by their digits.
    static func order(_ bytes: UnsafeRawBufferPointer, _ number: ExactNumber, _ other: [UInt8], _ otherNumber: ExactNumber) -> Int {
        if let a = number.small, let b = otherNumber.small { return a < b ? -1 : a > b ? 1 : 0 }
        if number.value != otherNumber.value { return number.value < otherNumber.value ? -1 : 1 }
        guard let exact = CellReader.number(bytes)?.1,
              let otherExact = other.withUnsafeBytes({ CellReader.number($0)?.1 }) else { return 0 }
        return exact.compare(otherExact)
    }

    /// -1, 0 or 1 as `self` is below, equal to or above `other`.
    func compare(_ other: ExactNumber) -> Int {
        if let a = small, let b = other.small { return a < b ? -1 : a > b ? 1 : 0 }
        let zero = digits.isEmpty, otherZero = other.digits.isEmpty
        if zero && otherZero { return 0 }
        let sign = zero ? 0 : negative ? -1 : 1
        let otherSign = otherZero ? 0 : other.negative ? -1 : 1
        if sign != otherSign { return sign < otherSign ? -1 : 1 }
        var magnitude: Int
        if exponent != other.exponent {
            magnitude = exponent < other.exponent ? -1 : 1
        } else {
            magnitude = 0
            for (a, b) in zip(digits, other.digits) where a != b {
                magnitude = a < b ? -1 : 1
                break
            }
            if magnitude == 0 && digits.count != other.digits.count { magnitude = digits.count < other.digits.count ? -1 : 1 }
        }
        return sign < 0 ? -magnitude : magnitude
    }
}

/// Reads cells: their kind, and numbers exactly.
enum CellReader {
    /// The kind of a filled cell, and its number when it is one.
    static func classify(_ bytes: UnsafeRawBufferPointer) -> (ValueKind, ExactNumber?) {
        if let number = number(bytes, keepsDigits: false) { return number }
        if isDateTime(bytes) { return (.dateTime, nil) }
        if isBoolean(bytes) { return (.boolean, nil) }
        return (.text, nil)
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// The cell as a number: as `plainNumber` reads it, or written with thousands
    /// separators (`1,234.5`), a trailing `%` (`12%` is 12) or a leading currency sign
    /// (`$5`, `-€3.20`), the forms a sort reads as numbers too.
    static func number(_ bytes: UnsafeRawBufferPointer, keepsDigits: Bool = true) -> (ValueKind, ExactNumber)? {
        if let plain = plainNumber(bytes, keepsDigits: keepsDigits) { return plain }
        guard let bare = bareNumber(bytes) else { return nil }
        return bare.withUnsafeBytes { plainNumber($0, keepsDigits: keepsDigits) }
    }

    /// Currency signs a number may start with: $, €, £, ¥.
    private static let currencies: [[UInt8]] = [[0x24], [0xE2, 0x82, 0xAC], [0xC2, 0xA3], [0xC2, 0xA5]]

    /// `bytes` without its thousands separators, `%` and currency sign, when it has any of
    /// them and reads as a number once they are gone; else nil (cheaply, for text).
    static func bareNumber(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let first = bytes.first, let last = bytes.last else { return nil }
        let marked = last == 0x25 || first == 0x24 || first == 0xE2 || first == 0xC2 || first == 0x2D || first == 0x2B
            || isDigit(first)
        guard marked else { return nil }
        var body = Array(bytes)
        var changed = false
        if body.last == 0x25 { body.removeLast(); changed = true }
        var sign: [UInt8] = []
        func takeSign() {
            if sign.isEmpty, let byte = body.first, byte == 0x2D || byte == 0x2B { sign = [byte]; body.removeFirst() }
        }
        takeSign()
        for symbol in currencies where body.starts(with: symbol) {
            body.removeFirst(symbol.count)
            changed = true
            break
        }
        takeSign()
        guard let lead = body.first, isDigit(lead) else { return nil }
        if body.contains(0x2C) {
            let end = body.firstIndex { $0 == 0x2E || $0 == 0x65 || $0 == 0x45 } ?? body.count
            let groups = body[..<end].split(separator: 0x2C, omittingEmptySubsequences: false)
            guard groups.count > 1, (1...3).contains(groups[0].count), groups.dropFirst().allSatisfy({ $0.count == 3 }),
                  groups.allSatisfy({ $0.allSatisfy(isDigit) }) else { return nil }
            body = Array(groups.joined()) + Array(body[end...])
            changed = true
        }
        return changed ? sign + body : nil
    }

    /// The cell as a number: `[+-]digits[.digits][(e|E)[+-]digits]`, with a digit before
    /// or after the point, and no leading zero before another digit.
    /// Without `keepsDigits`, only what `ExactNumber.order` needs is kept (no allocation).
    static func plainNumber(_ bytes: UnsafeRawBufferPointer, keepsDigits: Bool = true) -> (ValueKind, ExactNumber)? {
        let count = bytes.count
        var index = 0
        var negative = false
        if index < count && (bytes[index] == 0x2B || bytes[index] == 0x2D) {
            negative = bytes[index] == 0x2D
            index += 1
        }
        let integerStart = index
        while index < count && isDigit(bytes[index]) { index += 1 }
        let integerEnd = index
        if integerEnd - integerStart > 1 && bytes[integerStart] == 0x30 { return nil }   // 007: a code, not a number
        var fractionStart = index, fractionEnd = index
        var isDecimal = false
        if index < count && bytes[index] == 0x2E {
            isDecimal = true
            index += 1
            fractionStart = index
            while index < count && isDigit(bytes[index]) { index += 1 }
            fractionEnd = index
        }
        guard integerEnd > integerStart || fractionEnd > fractionStart else { return nil }
        var exponent = 0
        if index < count && (bytes[index] == 0x65 || bytes[index] == 0x45) {
            isDecimal = true
            index += 1
            var exponentNegative = false
            if index < count && (bytes[index] == 0x2B || bytes[index] == 0x2D) {
                exponentNegative = bytes[index] == 0x2D
                index += 1
            }
            let exponentStart = index
            while index < count && isDigit(bytes[index]) {
                guard index - exponentStart < 9 else { return nil }   // beyond any real number's exponent
                exponent = exponent * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            guard index > exponentStart else { return nil }
            if exponentNegative { exponent = -exponent }
        }
        guard index == count else { return nil }
        var small: Int64?
        if !isDecimal && integerEnd - integerStart <= 18 {
            var value: Int64 = 0
            for position in integerStart..<integerEnd { value = value * 10 + Int64(bytes[position] - 0x30) }
            small = negative ? -value : value
        }
        if !keepsDigits {
            let value = small.map(Double.init) ?? strtod(bytes)
            return (isDecimal ? .decimal : .integer, ExactNumber(negative: negative, digits: [], exponent: 0, small: small, value: value))
        }
        // Significant digits: from the first non-zero digit to the last.
        var digits: [UInt8] = []
        var leadingZeros = 0
        var seenNonZero = false
        var integerDigits = 0
        for position in integerStart..<integerEnd {
            let byte = bytes[position]
            if !seenNonZero && byte == 0x30 { continue }
            seenNonZero = true
            digits.append(byte)
            integerDigits += 1
        }
        for position in fractionStart..<fractionEnd {
            let byte = bytes[position]
            if !seenNonZero && byte == 0x30 {
                leadingZeros += 1
                continue
            }
            seenNonZero = true
            digits.append(byte)
        }
        while digits.last == 0x30 { digits.removeLast() }
        let power = integerDigits > 0 ? integerDigits : -leadingZeros
        let exact = ExactNumber(negative: negative, digits: digits, exponent: digits.isEmpty ? 0 : power + exponent, small: small,
                                value: small.map(Double.init) ?? strtod(bytes))
        return (isDecimal ? .decimal : .integer, exact)
    }

    /// The number written `bytes` as the nearest Double (correctly rounded by `strtod`).
    static func strtod(_ bytes: UnsafeRawBufferPointer) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { text in
            for index in 0..<bytes.count { text[index] = CChar(bitPattern: bytes[index]) }
            text[bytes.count] = 0
            return Glibc.strtod(text.baseAddress!, nil)
        }
    }

    /// ISO 8601: `YYYY-MM-DD`, optionally `T` or a space and `hh:mm`, `:ss`, `.fraction`,
    /// and `Z` or an offset `±hh:mm` / `±hhmm` / `±hh`.
    static func isDateTime(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count >= 10, count <= 40 else { return false }
        func number(_ start: Int, _ length: Int) -> Int? {
            guard start + length <= count else { return nil }
            var value = 0
            for index in start..<(start + length) {
                guard isDigit(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard number(0, 4) != nil, bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D, let day = number(8, 2),
              (1...12).contains(month), (1...31).contains(day) else { return false }
        if count == 10 { return true }
        guard bytes[10] == 0x54 || bytes[10] == 0x20, let hour = number(11, 2), count > 13, bytes[13] == 0x3A,
              let minute = number(14, 2), hour <= 23, minute <= 59 else { return false }
        var index = 16
        if index < count && bytes[index] == 0x3A {
            guard let second = number(index + 1, 2), second <= 60 else { return false }
            index += 3
            if index < count && (bytes[index] == 0x2E || bytes[index] == 0x2C) {
                index += 1
                let start = index
                while index < count && isDigit(bytes[index]) { index += 1 }
                guard index > start else { return false }
            }
        }
        if index == count { return true }
        if bytes[index] == 0x5A { return index + 1 == count }
        guard bytes[index] == 0x2B || bytes[index] == 0x2D, let offsetHours = number(index + 1, 2), offsetHours <= 23 else { return false }
        index += 3
        if index == count { return true }
        if bytes[index] == 0x3A { index += 1 }
        guard let offsetMinutes = number(index, 2), offsetMinutes <= 59 else { return false }
        return index + 2 == count
    }

    /// `true`, `false`, `yes` or `no`, in any case.
    static func isBoolean(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 2, bytes.count <= 5 else { return false }
        var lowered: UInt64 = 0
        for byte in bytes { lowered = lowered << 8 | UInt64(byte | 0x20) }
        // "true", "false", "yes", "no" packed as big-endian words.
        return lowered == 0x7472_7565 || lowered == 0x66_616C_7365 || lowered == 0x79_6573 || lowered == 0x6E6F
    }

    /// Characters (Unicode scalars) in UTF-8 bytes: every byte that does not continue one.
    @inline(__always)
    static func characterCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        let count = bytes.count
        var continuations = 0
        var index = 0
        while index + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // Continuation bytes are 10xxxxxx: bit 7 set, bit 6 clear.
            continuations += ((word & ~(word << 1)) & 0x8080_8080_8080_8080).nonzeroBitCount
            index += 8
        }
        while index < count {
            if bytes[index] & 0xC0 == 0x80 { continuations += 1 }
            index += 1
        }
        return count - continuations
    }
}

#if canImport(Glibc)
import Glibc
#endif
