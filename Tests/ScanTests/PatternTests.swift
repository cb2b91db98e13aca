import Scan
import Testing

@Suite("Search patterns (PCRE2)", .timeLimit(.minutes(30)))
struct PatternTests {
    func matcher(_ text: String) throws -> PatternMatcher {
        PatternMatcher(try SearchPattern(text: text).compile())
    }

    @Test("smart case folds every script; a capital outside an escape makes case matter", arguments: [
        ("zürich", "ZÜRICH", true), ("ZÜRICH", "zürich", false), ("élodie", "Élodie", true), ("Élodie", "élodie", false),
        ("σοφία", "ΣΟΦΊΑ", true), ("\\d+x", "12X", true), ("\\Dx", "aX", true), ("\\p{Lu}x", "AX", true),
        ("\\p{Lu}X", "Ax", false), ("straße", "STRASSE", false),
    ])
    func smartCase(pattern: String, cell: String, matches: Bool) throws {
        #expect(try matcher(pattern).matches(ArraySlice(cell.utf8)) == matches)
    }

    @Test("PCRE2 syntax; ^ and $ are a cell's edges", arguments: [
        ("colou?r", ["Colour", "color", "colr"], [true, true, false]),
        ("^Oslo$", ["Oslo", "Oslo Fjord", "oslo", "Oslo\n"], [true, false, false, false]),
        ("^oslo$", ["OSLO", "Oslo Fjord"], [true, false]),
        ("a|b", ["A|B", "xx", "b"], [true, false, true]),
        ("\\bcat\\b", ["a cat", "concat", "cat."], [true, false, true]),
        ("(?<=\\$)\\d+", ["$12", "12"], [true, false]),
        ("\"", ["say \"hi\"", "none"], [true, false]),
        ("", ["", "x"], [true, true]),
    ] as [(String, [String], [Bool])])
    func syntax(pattern: String, cells: [String], expected: [Bool]) throws {
        let matcher = try matcher(pattern)
        #expect(cells.map { matcher.matches(ArraySlice($0.utf8)) } == expected)
    }

    @Test("invalid UTF-8 never fails a match or traps")
    func invalidUTF8() throws {
        let matcher = try matcher("é+")
        #expect(matcher.matches([0xFF, 0xC3, 0xA9, 0xC3][...]))
        #expect(!matcher.matches([0xC3, 0xFF, 0xA9][...]))
        #expect(try self.matcher(".").matches([0xFF, 0xFE][...]) == false)
    }

    @Test("a bad pattern says where it is wrong, in characters", arguments: [
        ("([", 3, "missing terminating ]"), ("é(", 3, "missing closing parenthesis"), ("a{2,1}", 6, "numbers out of order"),
    ])
    func invalid(pattern: String, position: Int, reason: String) {
        #expect {
            _ = try SearchPattern(text: pattern).compile()
        } throws: { error in
            guard let error = error as? PatternError else { return false }
            return error.position == position && error.reason.contains(reason)
                && error.description.hasPrefix("invalid pattern at character \(position): ")
        }
    }

    @Test("a pathological pattern gives up on a cell instead of hanging")
    func bounded() throws {
        let matcher = try matcher("(a+)+$")
        let cell = Array(repeating: UInt8(ascii: "a"), count: 5000) + [UInt8(ascii: "!")]
        #expect(matcher.matches(cell[...]) == false)
    }
}
