import CellStore
import TestSupport
import Testing
@testable import SQL

/// Queries whose `=` is not byte equality (collations, numbers in other spellings, NULL):
/// the answer through the tables equals SQLite's own over the same tables when they take
/// no constraint (SQLite then tests every row itself, and no prefilter of ours touches it).
@Suite("SQL answers under collations and affinities", .timeLimit(.minutes(30)))
struct CollationTests {
    /// Seeded rows: case variants and spaces of a few cities, numbers spelt many ways, notes.
    static func csv(seed: UInt64) -> String {
        var generator = SeededGenerator(seed: seed)
        let cities = ["Oslo", "oslo", "OSLO", "Oslo   ", " Oslo", "oSLO ", "Bergen", "bergen", "", "Øslo", "øslo", "1", "1.0"]
        let numbers = ["1", "1.0", "01", "1e0", "+1", "1,234.5", "1234.5", "\"1,234.5\"", "", "007", "7", "-0", "0", "abc", "1 "]
        let notes = ["by the line", "on line", "LINE", "x", ""]
        var text = "city,num,note\n"
        for _ in 0..<300 {
            let pick = { (list: [String]) in list[Int(generator.next() % UInt64(list.count))] }
            text += [pick(cities), pick(numbers), pick(notes)].joined(separator: ",") + "\n"
        }
        return text
    }

    static let conditions = [
        "city = 'OSLO' collate nocase", "city collate nocase = 'OSLO'", "city = 'Oslo   ' collate rtrim",
        "city = ('OSLO' collate nocase)", "city = 'OSLO' collate nocase and note like '%line'",
        "city in ('OSLO' collate nocase, 'bergen')", "city in (select 'OSLO' collate nocase)",
        "city collate rtrim in ('Oslo', 'oSLO')", "city like 'oslo%' collate nocase", "city glob 'O*' collate nocase",
        "city = 'ØSLO' collate nocase", "city = 'Oslo' collate binary", "city = 'Oslo'", "+city = 'OSLO' collate nocase",
        "lower(city) = 'oslo'", "city = ''", "city = NULL", "city = 1", "city = '1.0'", "city = 1.0 collate nocase",
        "num = 1", "num = '1'", "num = 1.0", "num = '1.0'", "num = '01'", "num = 1e0", "num = 1234.5",
        "num = '1,234.5'", "num = '1234.5'", "num = 7", "num = '007'", "num = 0", "num = '1' collate nocase",
        "num = 'ABC' collate nocase", "num = '1' collate rtrim", "num like '1,234%'", "num like '%234.5'",
        "note = 'line' collate nocase", "note like '%LINE' and city = 'bergen' collate nocase",
    ]

    @Test("WHERE through the tables equals SQLite testing every row itself", arguments: 1...3)
    func conditions(seed: UInt64) throws {
        let db = try database([(name: "real", text: Self.csv(seed: seed))])
        var alone = SQLSettings()
        alone.takesConstraints = false
        let reference = try database([(name: "real", text: Self.csv(seed: seed))], settings: alone)
        for condition in Self.conditions {
            for query in ["select count(*) from {t} where \(condition)", "select rowid, city, num from {t} where \(condition) order by rowid"] {
                let answer = try rows(db, query.replacingOccurrences(of: "{t}", with: "t"))
                let expected = try rows(reference, query.replacingOccurrences(of: "{t}", with: "t"))
                #expect(answer == expected, "seed \(seed): \(query)")
            }
        }
        // Joins and groups under a collation.
        for query in ["select count(*) from {t} a join {t} b on a.city = b.city collate nocase",
                      "select count(*) from {t} a join {t} b on a.city collate rtrim = b.city",
                      "select city collate nocase, count(*) from {t} group by city collate nocase order by 1"] {
            let answer = try rows(db, query.replacingOccurrences(of: "{t}", with: "t"))
            let expected = try rows(reference, query.replacingOccurrences(of: "{t}", with: "t"))
            #expect(answer == expected, "seed \(seed): \(query)")
        }
    }
}
