extension CellValue {
    /// The most significant digits a computed number is written with: a Double holds 15
    /// decimal digits exactly (`DBL_DIG`), so a 16th or 17th is arithmetic's noise.
    static let shownDigits = 15

    /// A computed number (a mean, a deviation, an SQL real) as text: Swift's shortest form
    /// that reads back as the same Double, unless that needs more than 15 significant
    /// digits; then those 15, rounded, as SQLite prints a real. So the mean of 0.1, 0.2 and
    /// 0.3 is `0.2`, not `0.19999999999999998`. A whole number keeps `.0` (`1.0`, so it
    /// still reads as a real), and the form stays Swift's (`1e-05`, `1.5e+20`, `inf`, `nan`).
    /// Pure text work on Swift's digits, so the locale's decimal comma never leaks in.
    package static func text(of value: Double) -> String {
        let shortest = "\(value)"
        guard value.isFinite else { return shortest }
        var text = Substring(shortest)
        let sign = text.first == "-" ? "-" : ""
        if !sign.isEmpty { text = text.dropFirst() }
        var exponent: Int?
        if let e = text.firstIndex(of: "e") {
            exponent = Int(text[text.index(after: e)...])
            text = text[..<e]
        }
        let point = text.firstIndex(of: ".")
        let whole = point.map { text[..<$0] } ?? text
        let fraction = point.map { text[text.index(after: $0)...] } ?? ""
        var digits = (whole + fraction).map { Int($0.asciiValue ?? 48) - 48 }
        var pointAt = whole.count   // digits before the decimal point
        guard let first = digits.firstIndex(where: { $0 != 0 }) else { return shortest }
        let last = digits.lastIndex(where: { $0 != 0 }) ?? first
        guard last - first + 1 > shownDigits else { return shortest }
        // Round to 15 significant digits, half up on the decimal digits.
        let roundsUp = digits[first + shownDigits] >= 5
        digits.removeSubrange((first + shownDigits)...)
        if roundsUp {
            var index = digits.count - 1
            while index >= 0 && digits[index] == 9 {
                digits[index] = 0
                index -= 1
            }
            if index >= 0 {
                digits[index] += 1
            } else {
                digits.insert(1, at: 0)
                pointAt += 1
            }
        }
        while digits.count > pointAt && digits.last == 0 { digits.removeLast() }
        func written(_ range: ArraySlice<Int>) -> String { String(range.map { Character(Unicode.Scalar(UInt8(48 + $0))) }) }
        if var exponent {
            // One digit before the point, as Swift writes it; a carry may have made two.
            if pointAt > 1 {
                exponent += pointAt - 1
                pointAt = 1
                while digits.count > 1 && digits.last == 0 { digits.removeLast() }
            }
            let mantissa = written(digits[..<pointAt]) + (digits.count > pointAt ? "." + written(digits[pointAt...]) : "")
            let magnitude = String(abs(exponent))
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (magnitude.count < 2 ? "0" : "") + magnitude
        }
        while digits.count < pointAt { digits.append(0) }
        let integer = written(digits[..<pointAt])
        let decimals = digits.count > pointAt ? written(digits[pointAt...]) : "0"
        return sign + (integer.isEmpty ? "0" : integer) + "." + decimals
    }
}
