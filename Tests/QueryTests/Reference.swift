import CellStore
import Foundation
@testable import Query

/// The sort's rules written out plainly, on strings: the reference the sort is held to.
enum Reference {
    /// A number as a person reads one: spaces, a sign, a currency sign, thousands commas,
    /// a trailing percent.
    static func number(_ text: String) -> Double? {
        var body = text.trimmingCharacters(in: .init(charactersIn: " "))
        var scale = 1.0
        if body.hasSuffix("%") { body.removeLast(); scale = 0.01 }
        var negative = false
        for _ in 0..<2 {
            if body.hasPrefix("-") { negative = true; body.removeFirst() } else if body.hasPrefix("+") { body.removeFirst() }
            for sign in ["$", "€", "£", "¥"] where body.hasPrefix(sign) { body.removeFirst() }
        }
        let integer = body.prefix { $0 != "." && $0 != "e" && $0 != "E" }
        if integer.contains(",") {
            let groups = integer.split(separator: ",", omittingEmptySubsequences: false)
            guard groups.count > 1, (1...3).contains(groups[0].count), groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return nil }
        }
        body = body.replacingOccurrences(of: ",", with: "")
        guard !body.isEmpty, body.first!.isNumber || body.first == ".", body.allSatisfy({ "0123456789.eE+-".contains($0) }),
              let value = Double(body), value.isFinite else { return nil }
        return (negative ? -value : value) * scale
    }

    /// Compares two cells of a column of `kind`; empty cells last whatever `descending`.
    static func compare(_ a: String, _ b: String, kind: ColumnKind, descending: Bool) -> Int {
        if a.isEmpty || b.isEmpty { return a.isEmpty == b.isEmpty ? 0 : (a.isEmpty ? 1 : -1) }
        func value(_ text: String) -> Double? {
            switch kind {
            case .number: return number(text)
            case .date: return KeyEncodingProbe.instant(text)
            case .text: return nil
            }
        }
        let va = value(a), vb = value(b)
        // Values before text that fails to read as one.
        if (va == nil) != (vb == nil) { return va != nil ? -1 : 1 }
        let order: Int
        if let va, let vb { order = va < vb ? -1 : va > vb ? 1 : 0 } else { order = natural(a, b) }
        return descending ? -order : order
    }

    /// Natural order, case ignored: runs of digits compare as numbers.
    static func natural(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased().utf8), y = Array(b.lowercased().utf8)
        var i = 0, j = 0
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                var ei = i, ej = j
                while ei < x.count && isDigit(x[ei]) { ei += 1 }
                while ej < y.count && isDigit(y[ej]) { ej += 1 }
                let da = x[i..<ei].drop { $0 == 0x30 }, db = y[j..<ej].drop { $0 == 0x30 }
                if da.count != db.count { return da.count < db.count ? -1 : 1 }
                if !da.elementsEqual(db) { return da.lexicographicallyPrecedes(db) ? -1 : 1 }
                i = ei; j = ej
                continue
            }
            if x[i] != y[j] { return x[i] < y[j] ? -1 : 1 }
            i += 1; j += 1
        }
        return (x.count - i) - (y.count - j) < 0 ? -1 : (x.count - i) == (y.count - j) ? 0 : 1
    }

    /// The data records of `rows` sorted by `keys` (stable), as record numbers.
    static func sorted(_ rows: [[String]], headerRows: Int, keys: [SortKey], kinds: [ColumnKind]) -> [Int] {
        let data = Array(headerRows..<rows.count)
        return data.sorted { r, s in
            for (index, key) in keys.enumerated() {
                let a = key.column < rows[r].count ? rows[r][key.column] : ""
                let b = key.column < rows[s].count ? rows[s][key.column] : ""
                let order = compare(a, b, kind: kinds[index], descending: key.descending)
                if order != 0 { return order < 0 }
            }
            return r < s
        }
    }
}

/// The date reader, through its public face (dates have one reading; what the reference
/// checks is the order around it).
enum KeyEncodingProbe {
    static func instant(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { KeyEncoding.instant($0) }
    }
}
