import CellStore
import TestSupport
import Testing
@testable import SQL

/// The tables against the parser itself, over random inputs cut into tiny pieces shared
/// out between two threads: every cell, the raw scan's prefilters and the grouping.
@Suite("SQL against the parser", .timeLimit(.minutes(30)))
struct SQLDifferentialTests {
    static let settings: [SQLSettings] = [SQLSettings(), .tiny(spreading: 512, gathering: 1024, pieceBytes: 64)]

    /// Inputs: well quoted (read raw), and hostile (malformed quotes: parsed after the first).
    static func input(_ seed: UInt64) -> [UInt8] {
        seed % 3 == 0 ? hostileCSV(length: 3000, seed: seed) : wellQuotedCSV(records: 400, seed: seed)
    }

    @Test("every cell, typed", arguments: 1...12, [0, 1])
    func everyCell(seed: UInt64, setting: Int) throws {
        let bytes = Self.input(seed)
        let reference = referenceRows(bytes)
        let width = max(1, reference.map(\.count).max() ?? 1)
        let db = try database(bytes: bytes, spacing: 16, settings: Self.settings[setting])
        let answer = try rows(db, "select rowid, * from t", batch: 97)
        let expected = reference.enumerated().map { index, row in [String(index + 1)] + (0..<width).map { rendered(row.field($0)) } }
        #expect(answer.count == expected.count)
        for (got, want) in zip(answer, expected) where got != want {
            Issue.record("seed \(seed): \(got) != \(want)")
            break
        }
        // One column in the middle: the fields after it are passed over unread.
        let second = try rows(db, "select rowid, \"column 2\" from t", batch: 97)
        #expect(second == expected.map { [$0[0], $0.count > 2 ? $0[2] : ""] }, "seed \(seed)")
    }

    @Test("equality and LIKE on a column find what the parser's cells hold", arguments: 1...12)
    func prefilters(seed: UInt64) throws {
        let bytes = Self.input(seed)
        let reference = referenceRows(bytes)
        for setting in Self.settings {
            let db = try database(bytes: bytes, spacing: 16, settings: setting)
            for text in ["Nairobi", "nairobi", "a,b", "say \"hi\"", "line\nbreak", "Nairobi, KE", "007", "bc"] {
                let quoted = text.replacingOccurrences(of: "'", with: "''")
                let answer = try rows(db, "select rowid from t where \"column 2\" = '\(quoted)'").map { Int($0[0])! }
                let expected = reference.indices.filter { index in
                    let cell = reference[index].field(1)
                    return rendered(cell) == text && Array(cell).withUnsafeBytes { SQLTyping.type($0).kind } == .text
                }.map { $0 + 1 }
                #expect(answer == expected, "seed \(seed), = '\(text)'")
            }
            for pattern in ["%AIR%", "nai%", "%\"hi%", "%K_%", "b%"] {
                let answer = try rows(db, "select rowid from t where \"column 2\" like '\(pattern)'").map { Int($0[0])! }
                let expected = reference.indices.filter { index in
                    likes(rendered(reference[index].field(1)), pattern) && !reference[index].field(1).isEmpty
                }.map { $0 + 1 }
                #expect(answer == expected, "seed \(seed), like '\(pattern)'")
            }
        }
    }

    @Test("GROUP BY gives each SQL value's rows, in SQLite's order", arguments: 1...8, [0, 1])
    func grouping(seed: UInt64, setting: Int) throws {
        let bytes = Self.input(seed)
        let reference = referenceRows(bytes)
        let db = try database(bytes: bytes, spacing: 16, settings: Self.settings[setting])
        let answer = try rows(db, "select \"column 1\", count(*), min(rowid) from t group by \"column 1\"")
        // The reference: SQL values of the first column, NULL < numbers < text (bytes).
        var groups: [String: (order: (Int, Double, [UInt8]), count: Int, first: Int)] = [:]
        for (index, row) in reference.enumerated() {
            let cell = Array(row.field(0))
            let (kind, bits) = cell.withUnsafeBytes { SQLTyping.type($0) }
            let value: (Int, Double, [UInt8])
            switch kind {
            case .null: value = (0, 0, [])
            case .integer: value = (1, Double(Int64(bitPattern: bits)), [])
            case .real: value = (1, Double(bitPattern: bits), [])
            case .text: value = (2, 0, cell)
            }
            let key = "\(value.0)|\(value.1)|\(value.2)"
            var entry = groups[key] ?? (value, 0, index + 1)
            entry.count += 1
            groups[key] = entry
        }
        let expected = groups.values.sorted { a, b in
            if a.order.0 != b.order.0 { return a.order.0 < b.order.0 }
            if a.order.1 != b.order.1 { return a.order.1 < b.order.1 }
            return a.order.2.lexicographicallyPrecedes(b.order.2)
        }
        #expect(answer.map { [$0[1], $0[2]] } == expected.map { [String($0.count), String($0.first)] }, "seed \(seed)")
    }

    /// SQLite's LIKE: % any run, _ one character, ASCII letters without case.
    func likes(_ text: String, _ pattern: String) -> Bool {
        func fold(_ scalars: String.UnicodeScalarView) -> [Unicode.Scalar] {
            scalars.map { $0.isASCII ? Unicode.Scalar(UInt8(ascii: $0) | (("A"..."Z").contains($0) ? 0x20 : 0)) : $0 }
        }
        let subject = fold(text.unicodeScalars), wanted = fold(pattern.unicodeScalars)
        func match(_ s: Int, _ p: Int) -> Bool {
            if p == wanted.count { return s == subject.count }
            if wanted[p] == "%" { return (s...subject.count).contains { match($0, p + 1) } }
            guard s < subject.count else { return false }
            return (wanted[p] == "_" || wanted[p] == subject[s]) && match(s + 1, p + 1)
        }
        return match(0, 0)
    }
}
