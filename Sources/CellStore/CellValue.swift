#if canImport(Glibc)
import Glibc
#endif

/// A number as a cell writes it: what `CellValue.number(_:)` reads.
package struct CellNumber: Sendable, Equatable {
    /// A minus sign was written (`-0` is negative zero, equal to zero).
    package var isNegative: Bool
    /// The value as the nearest Double, correctly rounded: ±infinity past Double's range
    /// (`1e400`), 0 below it; a percentage is read in hundredths (`50%` is 0.5).
    package var value: Double
    /// Neither a decimal point, an exponent nor a percent sign: a whole number as written.
    package var isInteger: Bool
    /// Written with a trailing `%`.
    package var isPercent: Bool
    /// The value, when it is a whole number of at most 18 digits (exact, and compared fast).
    package var small: Int64?
    /// Where the digits before the point are in the cell (thousands separators among them).
    package var integerDigits: Range<Int>
    /// Where the digits after the point are in the cell.
    package var fractionDigits: Range<Int>
    /// The written exponent (`e-3` is -3), less 2 for a percentage; clamped to ±10^9.
    package var exponent: Int
}

/// The one reading of a cell as a number or an instant, shared by the sort's keys, the
/// summary's kinds, ranges and means, and the screen's alignment, so they cannot disagree.
///
/// A number is `[+-][currency][+-]digits[.digits][(e|E)[+-]digits][%]`: a digit before or
/// after the point; thousands separators only in groups of three after a first group of
/// one to three digits (`1,234.5`); no leading zero before another digit (`007` and
/// `01234` are codes, not numbers); a currency sign of `$`, `€`, `£` or `¥`; a trailing `%`
/// reads as hundredths. An instant is an ISO 8601 date, optionally with a time and a zone
/// (see `instant(_:)`). Spaces around a value are ignored (`a, 12, 13` has numbers).
package enum CellValue {
    /// The cell as a number, or nil.
    /// - Complexity: one pass over the cell, no allocation unless the value needs `strtod`
    ///   (more than 19 significant digits, or an exponent past 22).
    package static func number(_ cell: UnsafeRawBufferPointer) -> CellNumber? {
        var start = 0, end = cell.count
        while start < end && cell[start] == 0x20 { start += 1 }
        while end > start && cell[end - 1] == 0x20 { end -= 1 }
        guard start < end else { return nil }
        // Cheap refusals first: most text starts with a letter.
        let lead = cell[start]
        guard isDigit(lead) || lead == 0x2D || lead == 0x2B || lead == 0x2E || lead == 0x24 || lead == 0xE2 || lead == 0xC2 else {
            return nil
        }
        var isPercent = false
        if cell[end - 1] == 0x25 { isPercent = true; end -= 1 }
        var index = start
        var isNegative = false
        var signed = false
        func sign() {
            if !signed && index < end && (cell[index] == 0x2D || cell[index] == 0x2B) {
                isNegative = cell[index] == 0x2D
                signed = true
                index += 1
            }
        }
        sign()
        let currency = currencyLength(cell, at: index, end: end)
        if currency > 0 {
            index += currency
            sign()
        }
        // The integer part: digits, with commas between groups of three.
        let integerStart = index
        var integerCount = 0
        var firstGroup = 0
        var sinceComma = -1
        var firstDigit: UInt8 = 0
        while index < end {
            let byte = cell[index]
            if isDigit(byte) {
                if integerCount == 0 { firstDigit = byte }
                integerCount += 1
                if sinceComma >= 0 { sinceComma += 1 } else { firstGroup += 1 }
            } else if byte == 0x2C {
                guard integerCount > 0, firstGroup <= 3, sinceComma == -1 || sinceComma == 3 else { return nil }
                sinceComma = 0
            } else {
                break
            }
            index += 1
        }
        if sinceComma >= 0 && sinceComma != 3 { return nil }
        let integerEnd = index
        if integerCount > 1 && firstDigit == 0x30 { return nil }   // 007: a code, not a number
        var fractionStart = index, fractionEnd = index
        var hasPoint = false
        if index < end && cell[index] == 0x2E {
            hasPoint = true
            index += 1
            fractionStart = index
            while index < end && isDigit(cell[index]) { index += 1 }
            fractionEnd = index
        }
        guard integerCount + (fractionEnd - fractionStart) > 0 else { return nil }
        var exponent = 0
        var hasExponent = false
        if index < end && (cell[index] == 0x65 || cell[index] == 0x45) {
            hasExponent = true
            index += 1
            var exponentNegative = false
            if index < end && (cell[index] == 0x2B || cell[index] == 0x2D) {
                exponentNegative = cell[index] == 0x2D
                index += 1
            }
            let exponentStart = index
            while index < end && isDigit(cell[index]) {
                exponent = min(exponent * 10 + Int(cell[index] - 0x30), 1_000_000_000)
                index += 1
            }
            guard index > exponentStart else { return nil }
            if exponentNegative { exponent = -exponent }
        }
        guard index == end else { return nil }
        if isPercent { exponent -= 2 }
        let isInteger = !hasPoint && !hasExponent && !isPercent
        var small: Int64?
        if isInteger && integerCount <= 18 {
            var whole: Int64 = 0
            for position in integerStart..<integerEnd where cell[position] != 0x2C {
                whole = whole * 10 + Int64(cell[position] - 0x30)
            }
            small = isNegative ? -whole : whole
        }
        var number = CellNumber(isNegative: isNegative, value: 0, isInteger: isInteger, isPercent: isPercent, small: small,
                                integerDigits: integerStart..<integerEnd, fractionDigits: fractionStart..<fractionEnd,
                                exponent: exponent)
        number.value = small.map(Double.init) ?? value(of: number, in: cell)
        return number
    }

    /// The cell as a number, or nil.
    package static func number(_ cell: ArraySlice<UInt8>) -> CellNumber? {
        cell.withUnsafeBytes { number($0) }
    }

    /// True when the cell reads as a number (the screen right-aligns it).
    package static func isNumber(_ cell: ArraySlice<UInt8>) -> Bool {
        guard let first = cell.first, first < 0x41 || first >= 0x80 else { return false }
        return number(cell) != nil
    }

    /// The significant digits of `number` (read from `cell`) and the power of ten of the
    /// first one: the value is ±0.d1d2d3… × 10^power. No digits: zero.
    package static func significand(of number: CellNumber, in cell: UnsafeRawBufferPointer) -> (digits: [UInt8], power: Int) {
        var digits: [UInt8] = []
        var integerDigits = 0
        var leadingZeros = 0
        for position in number.integerDigits where cell[position] != 0x2C {
            let byte = cell[position]
            if digits.isEmpty && byte == 0x30 { continue }
            digits.append(byte)
            integerDigits += 1
        }
        for position in number.fractionDigits {
            let byte = cell[position]
            if digits.isEmpty && byte == 0x30 {
                leadingZeros += 1
                continue
            }
            digits.append(byte)
        }
        while digits.last == 0x30 { digits.removeLast() }
        guard !digits.isEmpty else { return ([], 0) }
        return (digits, (integerDigits > 0 ? integerDigits : -leadingZeros) + number.exponent)
    }

    /// The value, correctly rounded: exactly from up to 19 digits and a power of ten up to
    /// 22 (Clinger's fast path), else by `strtod` over the digits and the exponent.
    private static func value(of number: CellNumber, in cell: UnsafeRawBufferPointer) -> Double {
        var mantissa: UInt64 = 0
        var significant = 0
        var exact = true
        var scale = number.exponent
        for position in number.integerDigits where cell[position] != 0x2C {
            if significant < 19 {
                mantissa = mantissa * 10 + UInt64(cell[position] - 0x30)
                if mantissa > 0 { significant += 1 }
            } else {
                scale += 1
                if cell[position] != 0x30 { exact = false }
            }
        }
        for position in number.fractionDigits {
            if significant < 19 {
                mantissa = mantissa * 10 + UInt64(cell[position] - 0x30)
                if mantissa > 0 { significant += 1 }
                scale -= 1
            } else if cell[position] != 0x30 {
                exact = false
            }
        }
        var magnitude: Double
        if exact && mantissa < 1 << 53 && abs(scale) <= 22 {
            let power = powersOfTen[abs(scale)]
            magnitude = scale < 0 ? Double(mantissa) / power : Double(mantissa) * power
        } else {
            // Rare: many digits or a large exponent. The digits, then `e` and the power.
            let exponentText = Array("e\(number.exponent - number.fractionDigits.count)".utf8)
            let length = number.integerDigits.count + number.fractionDigits.count + exponentText.count + 1
            magnitude = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length) { text in
                var at = 0
                for position in number.integerDigits where cell[position] != 0x2C {
                    text[at] = CChar(bitPattern: cell[position])
                    at += 1
                }
                for position in number.fractionDigits {
                    text[at] = CChar(bitPattern: cell[position])
                    at += 1
                }
                for byte in exponentText {
                    text[at] = CChar(bitPattern: byte)
                    at += 1
                }
                text[at] = 0
                return strtod(text.baseAddress!, nil)
            }
        }
        return number.isNegative ? -magnitude : magnitude
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    @inline(__always) private static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// The length of a currency sign at `index` ($, €, £, ¥), or 0.
    private static func currencyLength(_ cell: UnsafeRawBufferPointer, at index: Int, end: Int) -> Int {
        guard index < end else { return 0 }
        switch cell[index] {
        case 0x24: return 1
        case 0xE2: return index + 3 <= end && cell[index + 1] == 0x82 && cell[index + 2] == 0xAC ? 3 : 0   // €
        case 0xC2: return index + 2 <= end && (cell[index + 1] == 0xA3 || cell[index + 1] == 0xA5) ? 2 : 0   // £ ¥
        default: return 0
        }
    }

    // MARK: Instants

    /// Seconds since 1970 (UTC) named by an ISO 8601 date, or a date and a time, or nil:
    /// `YYYY-MM-DD`, optionally `T` or a space and `hh:mm`, `:ss`, `.fraction` (or
    /// `,fraction`), and `Z` or an offset `±hh`, `±hh:mm` or `±hhmm`. Months 1–12, days
    /// 1–31, hours 0–23, minutes 0–59, seconds 0–60; a date alone is its midnight in UTC,
    /// a time without a zone is read as UTC.
    package static func instant(_ cell: UnsafeRawBufferPointer) -> Double? {
        var index = 0
        var count = cell.count
        while index < count && cell[index] == 0x20 { index += 1 }
        while count > index && cell[count - 1] == 0x20 { count -= 1 }
        guard count - index >= 10, isDigit(cell[index]) else { return nil }
        func digits(_ n: Int) -> Int? {
            guard index + n <= count else { return nil }
            var value = 0
            for offset in 0..<n {
                let byte = cell[index + offset]
                guard isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += n
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < count && cell[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), take(0x2D), let month = digits(2), take(0x2D), let day = digits(2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86400
        guard index < count else { return seconds }
        guard take(0x54) || take(0x20), let hour = digits(2), take(0x3A), let minute = digits(2), hour <= 23, minute <= 59 else {
            return nil
        }
        seconds += Double(hour * 3600 + minute * 60)
        if take(0x3A) {
            guard let second = digits(2), second <= 60 else { return nil }
            seconds += Double(second)
            if take(0x2E) || take(0x2C) {
                var scale = 0.1, any = false
                while index < count, isDigit(cell[index]) {
                    seconds += Double(cell[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        guard index < count else { return seconds }
        if take(0x5A) { return index == count ? seconds : nil }
        let sign: Double = take(0x2B) ? 1 : take(0x2D) ? -1 : 0
        guard sign != 0, let offsetHours = digits(2), offsetHours <= 23 else { return nil }
        var offsetMinutes = 0
        if index < count {
            _ = take(0x3A)
            guard let minutes = digits(2), minutes <= 59, index == count else { return nil }
            offsetMinutes = minutes
        }
        return seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60)
    }

    /// The cell as an instant, or nil.
    package static func instant(_ cell: ArraySlice<UInt8>) -> Double? {
        cell.withUnsafeBytes { instant($0) }
    }

    /// Days month `month` has in year `year` (Gregorian): 2024-02-30 is no date, not March 1.
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }
}
