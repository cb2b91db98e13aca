/// A round width for a histogram's bins: 1, 2 or 5 × 10^k for numbers; for instants
/// seconds, minutes and hours that divide a day, days, weeks from Monday, months that
/// divide a year, and 1, 2 or 5 × 10^k years. Bins start at whole multiples (of the width,
/// from 0 or 1970; weeks on Mondays; months and years on January).
package enum BinWidth: Sendable, Equatable {
    /// mantissa × 10^exponent (of seconds, for instants below a minute).
    case decimal(mantissa: Int64, exponent: Int)
    /// A fixed number of seconds: minutes, hours, a day.
    case seconds(Int64)
    case weeks
    case months(Int64)
    case years(Int64)

    /// The widths that can be drawn from fine bins of `scale`, narrowest first (a width is
    /// only offered when it is a union of whole fine bins, so its counts are exact).
    static func candidates(over scale: BinScale) -> [BinWidth] {
        var result: [BinWidth] = []
        if !scale.isTime {
            for exponent in scale.level...(scale.level + 330) {
                for mantissa: Int64 in [1, 2, 5] { result.append(.decimal(mantissa: mantissa, exponent: exponent)) }
            }
            return result
        }
        if scale.level <= 6 {
            // Fine bins of seconds (nil: below a second, where any whole second is a union).
            let unit = scale.fixedSeconds
            if scale.level < 0 {
                for exponent in scale.level..<0 {
                    for mantissa: Int64 in [1, 2, 5] { result.append(.decimal(mantissa: mantissa, exponent: exponent)) }
                }
            }
            for seconds: Int64 in [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400]
            where unit.map({ seconds % $0 == 0 }) ?? true {
                result.append(seconds < 60 ? .decimal(mantissa: seconds, exponent: 0) : .seconds(seconds))
            }
            result.append(.weeks)
        }
        if scale.level <= BinScale.monthLevel {
            for months: Int64 in [1, 2, 3, 6] { result.append(.months(months)) }
        }
        let finestYears = scale.level >= BinScale.firstYearLevel ? BinScale.integerPower(scale.level - BinScale.firstYearLevel) : 1
        var power: Int64 = 1
        while power <= 1_000_000_000 {
            for mantissa: Int64 in [1, 2, 5] where (mantissa * power) % finestYears == 0 { result.append(.years(mantissa * power)) }
            power *= 10
        }
        return result
    }

    /// True when the width is a whole number of units: of 1 for numbers, of a day for
    /// instants (the widths a column of whole values is binned in).
    func isWhole(isTime: Bool) -> Bool {
        switch self {
        case .decimal(_, let exponent): return !isTime && exponent >= 0
        case .seconds(let seconds): return seconds % 86_400 == 0
        case .weeks, .months, .years: return true
        }
    }

    /// The display bin that fine bin `index` of `scale` falls in (exact: integer arithmetic
    /// on the fine bin's start).
    func bin(ofFine index: Int64, scale: BinScale) -> Int64 {
        switch self {
        case .decimal(let mantissa, let exponent):
            guard scale.isDecimal else { return BinScale.floorDivide(Self.secondsFloor(scale.start(of: index)), mantissa) }
            // Both counted in 10^low: the fine bin's start over the display width.
            let low = min(exponent, scale.level)
            return BinScale.floorDivide(index * BinScale.integerPower(scale.level - low),
                                        max(1, mantissa * BinScale.integerPower(exponent - low)))
        case .seconds(let seconds):
            return BinScale.floorDivide(Self.secondsFloor(scale.start(of: index)), seconds)
        case .weeks:
            return BinScale.floorDivide(BinScale.floorDivide(Self.secondsFloor(scale.start(of: index)), 86_400) + 3, 7)
        case .months(let months):
            let day = BinScale.floorDivide(Self.secondsFloor(scale.start(of: index)), 86_400)
            let (year, month, _) = BinScale.civil(fromDays: day)
            return BinScale.floorDivide(year * 12 + month - 1, months)
        case .years(let years):
            let day = BinScale.floorDivide(Self.secondsFloor(scale.start(of: index)), 86_400)
            return BinScale.floorDivide(BinScale.civil(fromDays: day).year, years)
        }
    }

    private static func secondsFloor(_ value: Double) -> Int64 { Int64(value.rounded(.down)) }

    /// Where display bin `bin` starts: the double nearest its round bound.
    package func start(of bin: Int64, isTime: Bool) -> Double {
        switch self {
        case .decimal(let mantissa, let exponent):
            return BinScale(level: exponent, isTime: false).start(of: bin * mantissa)
        case .seconds(let seconds):
            return Double(bin * seconds)
        case .weeks:
            return Double(bin * 7 - 3) * 86_400
        case .months(let months):
            let index = bin * months
            let year = BinScale.floorDivide(index, 12)
            return Double(CellValueDays.days(year: year, month: index - year * 12 + 1)) * 86_400
        case .years(let years):
            return Double(CellValueDays.days(year: bin * years, month: 1)) * 86_400
        }
    }

    /// Display bin `bin`'s start as text: a number exactly as its decimal (`0.3`, `-1500`),
    /// an instant in ISO 8601 (a date when the width is whole days).
    package func text(of bin: Int64, isTime: Bool) -> String {
        if case .decimal(let mantissa, let exponent) = self, !isTime {
            return Self.decimalText(bin * mantissa, exponent: exponent)
        }
        return ValueText.instant(start(of: bin, isTime: isTime))
    }

    /// `digits × 10^exponent` written out in decimal (scientific past 21 digits).
    static func decimalText(_ digits: Int64, exponent: Int) -> String {
        if digits == 0 { return "0" }
        let sign = digits < 0 ? "-" : ""
        var body = String(digits.magnitude)
        if exponent >= 0 {
            if body.count + exponent > 21 { return sign + Self.scientific(body, exponent: exponent) }
            return sign + body + String(repeating: "0", count: exponent)
        }
        let places = -exponent
        if places > 21 { return sign + Self.scientific(body, exponent: exponent) }
        if body.count <= places { body = String(repeating: "0", count: places - body.count + 1) + body }
        var integer = String(body.prefix(body.count - places))
        var fraction = String(body.suffix(places))
        while fraction.hasSuffix("0") { fraction.removeLast() }
        if integer.isEmpty { integer = "0" }
        return sign + integer + (fraction.isEmpty ? "" : "." + fraction)
    }

    private static func scientific(_ body: String, exponent: Int) -> String {
        var mantissa = body
        while mantissa.count > 1 && mantissa.hasSuffix("0") { mantissa.removeLast() }
        let power = exponent + body.count - 1
        let head = String(mantissa.prefix(1)), tail = String(mantissa.dropFirst())
        return head + (tail.isEmpty ? "" : "." + tail) + "e\(power)"
    }

    /// The width in words, for a note: `5`, `0.25`… (`2 hours`, `1 month`).
    package func name(isTime: Bool) -> String {
        switch self {
        case .decimal(let mantissa, let exponent):
            let text = Self.decimalText(mantissa, exponent: exponent)
            return isTime ? text + (text == "1" ? " second" : " seconds") : text
        case .seconds(let seconds):
            if seconds % 86_400 == 0 { return Self.plural(seconds / 86_400, "day") }
            if seconds % 3600 == 0 { return Self.plural(seconds / 3600, "hour") }
            return Self.plural(seconds / 60, "minute")
        case .weeks: return "1 week"
        case .months(let months): return Self.plural(months, "month")
        case .years(let years): return Self.plural(years, "year")
        }
    }

    private static func plural(_ count: Int64, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}

/// Days from 1970 to the first of a month, for years past what `Int` days need care with.
enum CellValueDays {
    static func days(year: Int64, month: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
