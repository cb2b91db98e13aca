#if canImport(Glibc)
import Glibc
#endif
import CellStore

/// The width of a fine bin of `ValueBins`: a power of ten for numbers; for instants a
/// power of ten of seconds, then a minute, ten minutes, an hour, six hours, a day, a
/// calendar month, and powers of ten of calendar years.
///
/// Each level's bins are unions of the level's before it (a month is whole days, an hour
/// six ten-minute bins), so coarsening moves whole counts and they stay exact; and every
/// round width a histogram shows (`BinWidth`) is a union of bins of some level.
package struct BinScale: Sendable, Hashable, Comparable {
    /// Numbers: the bins are 10^level wide. Instants: see `isTime`.
    package var level: Int
    /// Instants (seconds since 1970, UTC): levels up to 1 are 10^level seconds, 2…6 the
    /// fixed units of `fixedUnits`, 7 a calendar month, 8 and on 10^(level − 8) years.
    package var isTime: Bool

    package init(level: Int, isTime: Bool) {
        self.level = level
        self.isTime = isTime
    }

    package static func < (a: BinScale, b: BinScale) -> Bool { a.level < b.level }

    /// Seconds in the bins of time levels 2…6.
    static let fixedUnits: [Int64] = [60, 600, 3600, 21_600, 86_400]
    static let monthLevel = 7
    static let firstYearLevel = 8

    /// The next coarser level.
    var coarser: BinScale { BinScale(level: level + 1, isTime: isTime) }

    /// The bin's width in seconds, when fixed (time levels up to a day; nil for months,
    /// years, and decimal levels below a second).
    var fixedSeconds: Int64? {
        guard isTime else { return nil }
        if level >= 0 && level <= 1 { return level == 0 ? 1 : 10 }
        if level >= 2 && level <= 6 { return Self.fixedUnits[level - 2] }
        return nil
    }

    /// True for the levels where bins are 10^level of the value (numbers; seconds up to 10).
    var isDecimal: Bool { !isTime || level <= 1 }

    /// The first level for a column whose first value is `value`: as fine as a double
    /// near it tells values apart (indices stay below 2^50, so bounds are exact doubles).
    static func first(for value: Double, isTime: Bool) -> BinScale {
        guard value != 0 else { return BinScale(level: isTime ? 0 : -300, isTime: isTime) }
        let magnitude = Int(floorLog10(abs(value)))
        if isTime { return BinScale(level: min(0, max(-9, magnitude - 14)), isTime: true) }
        return BinScale(level: max(-320, magnitude - 14), isTime: false)
    }

    // MARK: Indices

    /// The bin `value` falls in: bins are half-open, [start(i), start(i + 1)). Nil when
    /// the index would pass ±2^50 (the scale is too fine for the value).
    @inline(__always)
    func index(of value: Double) -> Int64? {
        if isDecimal {
            let estimate = level >= 0 ? value / BinScale.power(level) : BinScale.scaled(value, up: -level)
            guard abs(estimate) < 1.0e15 else { return nil }
            var index = Int64(estimate.rounded(.down))
            // The division may round across a bound: the bounds decide, exactly.
            if value < start(of: index) {
                index -= 1
            } else if value >= start(of: index + 1) {
                index += 1
            }
            return index
        }
        if let unit = fixedSeconds {
            // An instant is within years 0000–9999: far below where `index * unit` overflows.
            guard abs(value) < 1.0e13 else { return nil }
            let estimate = (value / Double(unit)).rounded(.down)
            var index = Int64(estimate)
            if value < Double(index * unit) {
                index -= 1
            } else if value >= Double((index + 1) * unit) {
                index += 1
            }
            return index
        }
        guard abs(value) < 1.0e13 else { return nil }
        let day = Int64((value / 86_400).rounded(.down))
        let (year, month, _) = BinScale.civil(fromDays: day)
        if level == BinScale.monthLevel { return year * 12 + month - 1 }
        return BinScale.floorDivide(year, BinScale.integerPower(level - BinScale.firstYearLevel))
    }

    /// Where bin `index` starts: the double nearest the round value (for numbers, the
    /// decimal index × 10^level, correctly rounded, so `0.3` read from a cell is at the
    /// start of the bin that starts at 0.3, never the end of the one before).
    @inline(__always)
    func start(of index: Int64) -> Double {
        if isDecimal {
            if level >= 0 && level <= 22 { return Double(index) * BinScale.power(level) }
            if level < 0 && level >= -22 { return Double(index) / BinScale.power(-level) }
            return strtod("\(index)e\(level)", nil)
        }
        if let unit = fixedSeconds { return Double(index * unit) }
        if level == BinScale.monthLevel {
            let year = BinScale.floorDivide(index, 12)
            return Double(CellValue.daysFromCivil(year: Int(year), month: Int(index - year * 12) + 1, day: 1)) * 86_400
        }
        let year = index * BinScale.integerPower(level - BinScale.firstYearLevel)
        return Double(CellValue.daysFromCivil(year: Int(year), month: 1, day: 1)) * 86_400
    }

    /// The index at `coarser` of fine bin `index` of this scale (a union: exact).
    func index(_ index: Int64, at coarser: BinScale) -> Int64 {
        if isDecimal && coarser.isDecimal {
            return BinScale.floorDivide(index, BinScale.integerPower(coarser.level - level))
        }
        return coarser.index(of: start(of: index)) ?? index
    }

    // MARK: Arithmetic

    private static let powers: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// 10^exponent as a double (exact up to 22).
    @inline(__always)
    static func power(_ exponent: Int) -> Double {
        exponent <= 22 ? powers[exponent] : pow(10, Double(exponent))
    }

    /// value × 10^exponent, for a bin's index: past 10^308, where 10^exponent is no double
    /// (bins finer than 10^-308, for values near the least doubles), in steps of 10^300.
    /// Each step rounds once: the estimate is off by far less than a bin, and the bounds
    /// decide (see `index(of:)`).
    static func scaled(_ value: Double, up exponent: Int) -> Double {
        var result = value, left = exponent
        while left > 300 {
            result *= 1e300
            left -= 300
        }
        return result * power(left)
    }

    /// 10^exponent as an integer (saturated past 10^18).
    static func integerPower(_ exponent: Int) -> Int64 {
        var result: Int64 = 1
        for _ in 0..<max(0, min(18, exponent)) { result *= 10 }
        return exponent > 18 ? Int64.max / 4 : result
    }

    /// ⌊a / b⌋ for b > 0 (Swift's `/` rounds towards zero).
    @inline(__always)
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && a < 0) ? quotient - 1 : quotient
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Hinnant's algorithm,
    /// the inverse of `CellValue.daysFromCivil`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// ⌊log10(x)⌋ for a finite x > 0 (from the exponent, corrected by the powers).
@inline(__always)
func floorLog10(_ x: Double) -> Int {
    var guess = Int((Double(x.exponent) * 0.301_029_995_663_981_2).rounded(.down))
    if x >= pow(10, Double(guess + 1)) { guess += 1 }
    if x < pow(10, Double(guess)) { guess -= 1 }
    return guess
}
