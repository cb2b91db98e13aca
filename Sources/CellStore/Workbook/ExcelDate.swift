/// What a cell's number format says its number is: a date, a time of day, both, or a
/// duration (`[h]:mm:ss`). A number with none of these is shown as Excel stores it.
enum DateKind: Sendable, Equatable {
    case date
    case time
    case dateTime
    case duration

    /// The kind of Excel's built-in number format `id` (ECMA-376 18.8.30), if a date or time.
    static func builtIn(_ id: Int) -> DateKind? {
        switch id {
        case 14...17: return .date
        case 18...21, 45, 47: return .time
        case 22: return .dateTime
        case 46: return .duration
        default: return nil
        }
    }

    /// The kind a format code (`yyyy-mm-dd`, `h:mm AM/PM`, `[h]:mm:ss`, `0.00`) shows,
    /// judged from its first section: its y, m, d, h and s outside quotes, escapes and
    /// brackets (`[h]` in brackets is elapsed time; `[Red]`, `[$-409]` say nothing).
    /// An `m` is a month unless an h or s is there too.
    static func of(formatCode code: String) -> DateKind? {
        var hasYearOrDay = false, hasMonth = false, hasHourOrSecond = false, isElapsed = false
        var characters = code.lowercased().makeIterator()
        scan: while let character = characters.next() {
            switch character {
            case ";": break scan
            case "\"":
                while let next = characters.next(), next != "\"" {}
            case "\\", "_", "*":
                _ = characters.next()
            case "[":
                var inside = ""
                while let next = characters.next(), next != "]" { inside.append(next) }
                if !inside.isEmpty, inside.allSatisfy({ $0 == "h" || $0 == "m" || $0 == "s" }) {
                    isElapsed = true
                    hasHourOrSecond = true
                }
            case "y", "d": hasYearOrDay = true
            case "m": hasMonth = true
            case "h", "s": hasHourOrSecond = true
            default: break
            }
        }
        let hasDate = hasYearOrDay || (hasMonth && !hasHourOrSecond)
        if hasDate && hasHourOrSecond { return .dateTime }
        if hasDate { return .date }
        if hasHourOrSecond { return isElapsed ? .duration : .time }
        return nil
    }
}

/// Excel's serial dates as ISO 8601: the days since 1899-12-30 (1900 system) or since
/// 1904-01-01 (1904 system), the fraction the time of day. The 1900 system counts a
/// 29 February 1900 that never was (serial 60, kept from Lotus 1-2-3): it is shown as
/// Excel shows it, `1900-02-29`, and serials below it are one day later than the count
/// from 1899-12-30 says.
enum ExcelDate {
    /// Milliseconds in a day: times are rounded to the millisecond, as Excel keeps them.
    static let dayMilliseconds: Int64 = 86_400_000

    /// `serial` as the kind says: `YYYY-MM-DD`, `HH:MM:SS`, `YYYY-MM-DDTHH:MM:SS` (with
    /// `.mmm` when there are milliseconds). A date with a time of day, or a time past one
    /// day, is shown whole (nothing of the number is dropped). Nil when the serial is no
    /// date Excel shows (below 0, past 9999-12-31): the number is then shown as stored.
    static func text(serial: Double, kind: DateKind, uses1904: Bool) -> String? {
        guard serial.isFinite, serial >= 0, serial < 2_958_466 else { return nil }
        let total = Int64((serial * Double(dayMilliseconds)).rounded())
        let days = total / dayMilliseconds, milliseconds = total % dayMilliseconds
        if kind == .duration {
            let hours = total / 3_600_000
            return (hours < 10 ? "0" : "") + String(hours) + clock(total % 3_600_000, hours: false)
        }
        if kind == .time && days == 0 { return clock(milliseconds, hours: true) }
        let date: String
        if uses1904 {
            date = civil(daysSince1970: days - 24_107)
        } else if days == 60 {
            date = "1900-02-29"
        } else if days == 0 {
            // Excel shows "1900-01-00": no date; the time of day alone when there is one.
            if kind == .date { return nil }
            return clock(milliseconds, hours: true)
        } else {
            date = civil(daysSince1970: days - (days < 60 ? 25_568 : 25_569))
        }
        if kind == .date && milliseconds == 0 { return date }
        return date + "T" + clock(milliseconds, hours: true)
    }

    /// `HH:MM:SS` (or `:MM:SS` without hours) of `milliseconds` into a day, `.mmm` when
    /// there are any.
    static func clock(_ milliseconds: Int64, hours: Bool) -> String {
        let seconds = milliseconds / 1000, fraction = milliseconds % 1000
        func two(_ value: Int64) -> String { value < 10 ? "0" + String(value) : String(value) }
        var text = hours ? two(seconds / 3600) : ""
        text += ":" + two(seconds / 60 % 60) + ":" + two(seconds % 60)
        if fraction > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: 3 - digits.count) + digits
        }
        return text
    }

    /// The proleptic Gregorian date `days` after 1970-01-01, as `YYYY-MM-DD`
    /// (Howard Hinnant's civil_from_days).
    static func civil(daysSince1970 days: Int64) -> String {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }
}
