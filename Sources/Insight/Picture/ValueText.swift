/// Numbers and instants as pictures, histograms and quantiles write them.
package enum ValueText {
    /// A number: a whole one without a point (`12`, not `12.0`), others as Swift writes a
    /// double in the fewest digits that read back the same (`0.1`, `1e-07`).
    package static func number(_ value: Double) -> String {
        if value.isNaN { return "" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// An instant (seconds since 1970, UTC) in ISO 8601: the date alone at midnight, else
    /// with the time to the minute, and the seconds and their fraction when there are any,
    /// and `Z`.
    package static func instant(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "" }
        let day = Int64((seconds / 86_400).rounded(.down))
        let (year, month, dayOfMonth) = BinScale.civil(fromDays: day)
        let date = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(dayOfMonth, 2)
        let rest = seconds - Double(day) * 86_400
        if rest == 0 { return date }
        let whole = Int64(rest.rounded(.down))
        var text = date + "T" + pad(whole / 3600, 2) + ":" + pad(whole / 60 % 60, 2)
        let fraction = rest - Double(whole)
        if whole % 60 != 0 || fraction > 0 { text += ":" + pad(whole % 60, 2) }
        if fraction > 0 {
            var digits = String(Int64((fraction * 1e9).rounded()))
            digits = String(repeating: "0", count: max(0, 9 - digits.count)) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }

    /// A value of a column's kind: an instant for times, else a number.
    package static func value(_ value: Double, isTime: Bool) -> String {
        isTime ? instant(value) : number(value)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
