import CellStore

/// The band's first look at a cell: most cells of a large file are plain decimals
/// (`-12`, `426294.207`) or plainly not numbers (`alpha`, `2024-2-27`), and those are read
/// here in one short loop without `CellValue.number`'s general reader (thousands
/// separators, currency, exponents, percentages, spaces). Anything else is `unsure` and
/// goes to `CellValue.number`, so the answer is always the one it gives.
///
/// A plain decimal has at most 15 digits (its mantissa is below 2^53) and so at most 15
/// after the point: its value is the mantissa, a double exactly, divided by a power of
/// ten, a double exactly, rounded once: the correctly rounded value `CellValue` reads
/// (which also rounds once, the same quotient, with the same sign rules).
enum QuickNumber {
    case number(Double, isInteger: Bool)
    case notNumber
    case unsure

    @inline(__always)
    static func read(_ cell: UnsafeRawBufferPointer) -> QuickNumber {
        let count = cell.count
        guard count > 0, let base = cell.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .unsure }
        let lead = base[0]
        // `CellValue.number`'s cheap refusal, at any length (a space may lead a number: it
        // is unsure).
        guard lead &- 0x30 < 10 || lead == 0x2D || lead == 0x2B || lead == 0x2E || lead == 0x24 || lead == 0xE2
              || lead == 0xC2 || lead == 0x20 else { return .notNumber }
        guard count <= 17 else { return .unsure }
        var index = 0
        let isNegative = lead == 0x2D
        if isNegative { index = 1 }
        let integerStart = index
        var mantissa: UInt64 = 0
        while index < count, base[index] &- 0x30 < 10 {
            mantissa = mantissa &* 10 &+ UInt64(base[index] &- 0x30)
            index += 1
        }
        let integerCount = index - integerStart
        // A dash after digits (`2024-2-27`): the number grammar has nothing there.
        if index < count && base[index] == 0x2D && integerCount > 0 { return .notNumber }
        var fractionCount = 0
        var hasPoint = false
        if index < count && base[index] == 0x2E {
            hasPoint = true
            index += 1
            while index < count, base[index] &- 0x30 < 10 {
                mantissa = mantissa &* 10 &+ UInt64(base[index] &- 0x30)
                index += 1
                fractionCount += 1
            }
        }
        // Anything else (an exponent, a separator, a sign or space more, `007`): unsure.
        guard index == count, integerCount + fractionCount > 0, integerCount + fractionCount <= 15,
              !(integerCount > 1 && base[integerStart] == 0x30) else { return .unsure }
        if !hasPoint {
            // As `CellValue`: a whole number's value is its signed integer (`-0` is 0).
            let whole = Int64(mantissa)
            return .number(Double(isNegative ? -whole : whole), isInteger: true)
        }
        let magnitude = Double(mantissa) / powers[fractionCount]
        return .number(isNegative ? -magnitude : magnitude, isInteger: false)
    }

    /// 10^0 … 10^15, exact.
    private static let powers: [Double] = (0...15).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }
}
