import CellStore
import TestSupport
import Testing
@testable import SQL

/// The tables against the parser itself, over random inputs cut into tiny pieces shared
/// out between two threads: every cell, the raw scan's prefilters and the grouping.
@Suite("SQL against the parser", .timeLimit(.minutes(30)))
struct SQLDifferentialTests {
    static let settings: [SQLSettings] = [SQLSettings(), .tiny(spreading: 512, gathering: 1024, pieceBytes: 64)]

    /// Inputs: well quoted (read raw), hostile (malformed quotes: parsed after the first),
    /// and of number columns.
    static func input(_ seed: UInt64) -> [UInt8] {
        switch seed % 4 {
        case 0: hostileCSV(length: 3000, seed: seed)
        case 1: numericCSV(records: 400, seed: seed)
        default: wellQuotedCSV(records: 400, seed: seed)
        }
    }

    @Test("every cell, typed", arguments: 1...12, [0, 1])
    func everyCell(seed: UInt64, setting: Int) throws {
        let bytes = Self.input(seed)
        let reference = referenceRows(bytes)
        let width = max(1, reference.map(\.count).max() ?? 1)
        let db = try database(bytes: bytes, spacing: 16, settings: Self.settings[setting])
        let types = try columnTypes(db)
        #expect(types.count == width)
        let answer = try rows(db, "select rowid, * from t", batch: 97)
        let expected = reference.enumerated().map { index, row in
            [String(index + 1)] + (0..<width).map { rendered(row.field($0), isNumber: types[$0].isNumber) }
        }
        #expect(answer.count == expected.count)
        for (got, want) in zip(answer, expected) where got != want {
            Issue.record("seed \(seed): \(got) != \(want)")
            break
        }
        // One column in the middle: the fields after it are passed over unread.
        let second = try rows(db, "select rowid, \"column 2\" from t", batch: 97)
        #expect(second == expected.map { [$0[0], $0.count > 2 ? $0[2] : ""] }, "seed \(seed)")
    }

    /// Conditions on the second column, against a constant, a pattern, a list.
    static let conditions = [
        "= 'Nairobi'", "= 'nairobi'", "= 'a,b'", "= 'say \"hi\"'", "= 'line\nbreak'", "= 'Nairobi, KE'", "= '007'", "= 'bc'",
        "= 'N/A'", "= '1e400'", "= 'x'", "= '1'", "= ' 7 '", "= '7'", "= '1,000'", "= '1000'", "= '$5'", "= '5'",
        "= '12345678901234567890'", "= '1.10'", "= '2.5'", "= ''", "= 1", "= 7", "= 1.0", "= 1e3", "= 1000", "= 2.5",
        "= 0.12", "= 5", "= -3", "= 9223372036854775807", "= 1.2345678901234567e19", "= -0.0", "= 0",
        "like '%AIR%'", "like 'nai%'", "like '%\"hi%'", "like '%K_%'", "like 'b%'", "like '%/%'", "like '1e4%'",
        "like '1%'", "like '%.1%'", "glob '1*'", "glob '*,*'", "glob '[0-9]*'",
        "in ('007', '1', 'x', 7, 2.5)", "in (select \"column 1\" from t where rowid < 40)", "is null", "is not null",
    ]

    @Test("equality, LIKE, GLOB, IN and joins on a column find what SQLite finds testing every row itself", arguments: 1...12)
    func prefilters(seed: UInt64) throws {
        let bytes = Self.input(seed)
        var alone = SQLSettings()
        alone.takesConstraints = false
        let reference = try database(bytes: bytes, spacing: 16, settings: alone)
        for setting in Self.settings {
            let db = try database(bytes: bytes, spacing: 16, settings: setting)
            for condition in Self.conditions {
                let query = "select rowid from t where \"column 2\" \(condition)"
                #expect(try rows(db, query) == rows(reference, query), "seed \(seed): \(query)")
            }
            // A join and IN through the column's index, a column of either type on each side.
            for query in ["select a.rowid, b.rowid from t a join t b on a.\"column 2\" = b.\"column 1\" order by 1, 2",
                          "select a.rowid, b.rowid from t a join t b on a.\"column 1\" = b.\"column 2\" order by 1, 2",
                          "select rowid from t where \"column 2\" in (select \"column 3\" from t) order by 1",
                          "select rowid from t where \"column 1\" in (select \"column 2\" || '' from t) order by 1"] {
                #expect(try rows(db, query) == rows(reference, query), "seed \(seed): \(query)")
            }
        }
    }

    @Test("GROUP BY gives each SQL value's rows, in SQLite's order", arguments: 1...8, [0, 1])
    func grouping(seed: UInt64, setting: Int) throws {
        let bytes = Self.input(seed)
        let reference = referenceRows(bytes)
        let db = try database(bytes: bytes, spacing: 16, settings: Self.settings[setting])
        let isNumber = try columnTypes(db)[0].isNumber
        let answer = try rows(db, "select \"column 1\", count(*), min(rowid) from t group by \"column 1\"")
        // The reference: SQL values of the first column, NULL < numbers < text (bytes).
        var groups: [String: (order: (Int, Double, [UInt8]), count: Int, first: Int)] = [:]
        for (index, row) in reference.enumerated() {
            let cell = Array(row.field(0))
            let (kind, bits) = cell.withUnsafeBytes { SQLTyping.type($0, isNumber: isNumber) }
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
}
