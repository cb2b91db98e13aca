import CellStore

/// What a column holds, judged from its filled cells.
package enum ValueKind: String, Sendable, CaseIterable {
    /// No filled cell.
    case empty
    /// Whole numbers: an optional sign and digits, without leading zeros (`007` is text),
    /// thousands separators and a currency sign allowed (`$1,200`).
    case integer
    /// Numbers with a decimal point, an exponent or a percent sign (`1.5`, `-.5`, `2e10`,
    /// `12%`), and integers.
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

/// A number as written in a cell: its value.
struct ExactNumber: Sendable, Equatable {
    /// The nearest Double (correctly rounded, as `CellValue.number` reads it).
    var value: Double
}

/// Reads cells: their kind, numbers and instants, through `CellValue`, the reading
/// the sort and the screen share.
enum CellReader {
    /// What a filled cell holds.
    struct Reading {
        var kind: ValueKind
        var number: ExactNumber?
        /// Seconds since 1970 (UTC), for a date/time.
        var instant: Double?
    }

    /// The kind of a filled cell, and its number or instant when it is one.
    /// A plain decimal (`-12`, `426294.207`) is read by `QuickNumber`, which answers as
    /// `CellValue.number` does, in one short loop; a cell it is unsure of by the general reader.
    @inline(__always)
    static func classify(_ bytes: UnsafeRawBufferPointer) -> Reading {
        switch QuickNumber.read(bytes) {
        case .number(let value, let isInteger):
            return Reading(kind: isInteger ? .integer : .decimal, number: ExactNumber(value: value))
        case .notNumber:
            break
        case .unsure:
            if let (kind, number) = number(bytes) { return Reading(kind: kind, number: number) }
        }
        return classifyNotNumber(bytes)
    }

    /// `classify` of a cell that is not a number.
    static func classifyNotNumber(_ bytes: UnsafeRawBufferPointer) -> Reading {
        if let instant = CellValue.instant(bytes) { return Reading(kind: .dateTime, instant: instant) }
        if isBoolean(bytes) { return Reading(kind: .boolean) }
        return Reading(kind: .text)
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// The cell as a number (`CellValue.number`): integer when written without a point, an
    /// exponent or a percent sign, else decimal.
    static func number(_ bytes: UnsafeRawBufferPointer) -> (ValueKind, ExactNumber)? {
        guard let reading = CellValue.number(bytes) else { return nil }
        return (reading.isInteger ? .integer : .decimal, ExactNumber(value: reading.value))
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

