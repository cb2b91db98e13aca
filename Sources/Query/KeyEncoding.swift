import Foundation

/// Turns a cell into bytes that compare, byte by byte (`memcmp`), the way the column's kind
/// orders cells: what a sort extracts, stores and spills.
///
/// A key starts with a class byte: numbers and dates (1) before text (2) before empty
/// cells (0xFF, last in both directions: the comparer puts them last). A number or date is
/// 8 bytes that order as the value does; text is case-folded, with each run of ASCII digits
/// written as its length and its digits (leading zeros dropped), so runs compare as numbers.
/// Text keys hold no zero byte, so a shorter key that is a prefix of a longer one sorts
/// first whether or not it is padded with zeros.
enum KeyEncoding {
    static let valueClass: UInt8 = 1
    static let textClass: UInt8 = 2
    static let emptyClass: UInt8 = 0xFF
    /// Text keys are cut at this many bytes: cells that agree that far tie (file order).
    static let textLimit = 4096

    /// Appends the key of `cell` for a column of `kind` to `key`.
    static func append(_ cell: UnsafeRawBufferPointer, kind: ColumnKind, to key: inout [UInt8]) {
        if cell.isEmpty {
            key.append(emptyClass)
            return
        }
        switch kind {
        case .number:
            if let value = number(cell) { return appendValue(value, to: &key) }
        case .date:
            if let value = instant(cell) { return appendValue(value, to: &key) }
        case .text: break
        }
        key.append(textClass)
        appendText(cell, to: &key)
    }

    static func appendValue(_ value: Double, to key: inout [UInt8]) {
        key.append(valueClass)
        let value = value == 0 ? 0 : value   // -0 is 0
        // IEEE order: flip the sign bit of positives, every bit of negatives.
        let bits = value.bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift))) }
    }

    /// Case-folded text with digit runs made to compare as numbers.
    static func appendText(_ cell: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        let start = key.count
        if cell.contains(where: { $0 >= 0x80 }) {
            let folded = Array(String(decoding: cell, as: UTF8.self).lowercased().utf8)
            folded.withUnsafeBytes { appendFolded($0, to: &key) }
        } else {
            appendFolded(cell, to: &key)
        }
        if key.count - start > textLimit { key.removeSubrange((start + textLimit)...) }
    }

    private static func appendFolded(_ text: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            if byte >= 0x30 && byte <= 0x39 {
                var end = index
                while end < count && text[end] >= 0x30 && text[end] <= 0x39 { end += 1 }
                var first = index
                while first < end - 1 && text[first] == 0x30 { first += 1 }
                // 0x30 keeps digits where a digit sorts among other characters; then the
                // run's length (in pieces of at most 250) and its digits.
                var length = end - first
                key.append(0x30)
                while length > 250 { key.append(0xFC); length -= 250 }
                key.append(UInt8(length + 1))
                for digit in first..<end { key.append(text[digit]) }
                index = end
                continue
            }
            if byte >= 0x41 && byte <= 0x5A {
                key.append(byte + 0x20)
            } else if byte <= 1 {
                key.append(1)   // no zero byte in a text key
                key.append(byte + 1)
            } else {
                key.append(byte)
            }
            index += 1
        }
    }

    // MARK: Numbers

    /// The value of a number cell, or nil: `-1,234.5`, `1e-3`, `12%`, `$5`, `-€3.20`,
    /// `£1,000`, with spaces around.
    static func number(_ cell: UnsafeRawBufferPointer) -> Double? {
        var start = 0, end = cell.count
        while start < end && cell[start] == 0x20 { start += 1 }
        while end > start && cell[end - 1] == 0x20 { end -= 1 }
        guard start < end else { return nil }
        var negative = false
        var percent = false
        if cell[end - 1] == UInt8(ascii: "%") { percent = true; end -= 1 }
        func sign() {
            if start < end && (cell[start] == UInt8(ascii: "-") || cell[start] == UInt8(ascii: "+")) {
                negative = cell[start] == UInt8(ascii: "-")
                start += 1
            }
        }
        sign()
        let currency = currencyLength(cell, at: start, end: end)
        if currency > 0 {
            start += currency
            if !negative { sign() }
        }
        // Digits with commas between groups of three, a point, an exponent. Up to 19
        // digits are gathered as an integer; the value is then exact or rounded once
        // (Clinger's fast path), else strtod reads the digits.
        var mantissa: UInt64 = 0
        var significant = 0       // digits in the mantissa, leading zeros not counted
        var dropped = 0           // integer digits past the mantissa's 19
        var index = start
        var integerDigits = 0, sinceComma = -1
        func take(_ byte: UInt8, fraction: Bool) -> Int {
            if significant < 19 {
                mantissa = mantissa * 10 + UInt64(byte - 0x30)
                if mantissa > 0 { significant += 1 }
                return fraction ? -1 : 0
            }
            return fraction ? 0 : 1
        }
        var scale = 0             // the decimal exponent of the mantissa
        while index < end {
            let byte = cell[index]
            if byte >= 0x30 && byte <= 0x39 {
                integerDigits += 1
                dropped += take(byte, fraction: false)
                if sinceComma >= 0 { sinceComma += 1 }
            } else if byte == UInt8(ascii: ",") {
                guard integerDigits > 0, sinceComma == -1 || sinceComma == 3, !(sinceComma == -1 && integerDigits > 3) else { return nil }
                sinceComma = 0
            } else {
                break
            }
            index += 1
        }
        if sinceComma >= 0 && sinceComma != 3 { return nil }
        scale += dropped
        var fractionDigits = 0
        var exact = true
        if index < end && cell[index] == UInt8(ascii: ".") {
            index += 1
            while index < end && cell[index] >= 0x30 && cell[index] <= 0x39 {
                let step = take(cell[index], fraction: true)
                if step == 0 && cell[index] != 0x30 { exact = false }
                scale += step
                index += 1
                fractionDigits += 1
            }
        }
        guard integerDigits + fractionDigits > 0 else { return nil }
        if index < end && (cell[index] == UInt8(ascii: "e") || cell[index] == UInt8(ascii: "E")) {
            index += 1
            var exponentSign = 1
            if index < end && (cell[index] == UInt8(ascii: "-") || cell[index] == UInt8(ascii: "+")) {
                exponentSign = cell[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
            }
            var exponent = 0, exponentDigits = 0
            while index < end && cell[index] >= 0x30 && cell[index] <= 0x39 {
                exponent = min(exponent * 10 + Int(cell[index] - 0x30), 100_000)
                index += 1
                exponentDigits += 1
            }
            guard exponentDigits > 0 else { return nil }
            scale += exponentSign * exponent
        }
        guard index == end else { return nil }
        var value: Double
        if exact && dropped == 0 && mantissa < 1 << 53 && abs(scale) <= 22 {
            let power = powersOfTen[abs(scale)]
            value = scale < 0 ? Double(mantissa) / power : Double(mantissa) * power
        } else {
            // Rare: many digits or a large exponent.
            var text = ""
            for byte in cell[start..<end] where byte != UInt8(ascii: ",") { text.unicodeScalars.append(Unicode.Scalar(byte)) }
            guard let parsed = Double(text) else { return nil }
            value = parsed
        }
        guard value.isFinite else { return nil }
        if percent { value /= 100 }
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// The length of a currency sign at `index` ($, €, £, ¥), or 0.
    private static func currencyLength(_ cell: UnsafeRawBufferPointer, at index: Int, end: Int) -> Int {
        guard index < end else { return 0 }
        if cell[index] == UInt8(ascii: "$") { return 1 }
        for sign in currencySigns where index + sign.count <= end {
            if (0..<sign.count).allSatisfy({ cell[index + $0] == sign[$0] }) { return sign.count }
        }
        return 0
    }

    private static let currencySigns: [[UInt8]] = [Array("€".utf8), Array("£".utf8), Array("¥".utf8)]

    // MARK: Dates

    /// Seconds since 1970 (UTC) named by an ISO 8601 date or date and time, or nil:
    /// `2024-01-31`, `2024-01-31T08:30`, `2024-01-31 08:30:15.25`, with `Z` or `+02:00`.
    static func instant(_ cell: UnsafeRawBufferPointer) -> Double? {
        var index = 0
        let count = cell.count
        func digits(_ n: Int) -> Int? {
            guard index + n <= count else { return nil }
            var value = 0
            for offset in 0..<n {
                let byte = cell[index + offset]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
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
        guard let year = digits(4), take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")),
              let day = digits(2), (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86400
        guard index < count else { return seconds }
        guard take(UInt8(ascii: "T")) || take(UInt8(ascii: " ")),
              let hour = digits(2), take(UInt8(ascii: ":")), let minute = digits(2), hour < 25, minute < 60 else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if take(UInt8(ascii: ":")) {
            guard let second = digits(2), second <= 60 else { return nil }
            seconds += Double(second)
            if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
                var scale = 0.1, any = false
                while index < count, cell[index] >= 0x30 && cell[index] <= 0x39 {
                    seconds += Double(cell[index] - 0x30) * scale
                    scale /= 10; index += 1; any = true
                }
                guard any else { return nil }
            }
        }
        guard index < count else { return seconds }
        if take(UInt8(ascii: "Z")) { return index == count ? seconds : nil }
        let sign: Double = take(UInt8(ascii: "+")) ? 1 : take(UInt8(ascii: "-")) ? -1 : 0
        guard sign != 0, let offsetHours = digits(2) else { return nil }
        _ = take(UInt8(ascii: ":"))
        let offsetMinutes = index < count ? digits(2) : 0
        guard let offsetMinutes, index == count else { return nil }
        return seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }
}
