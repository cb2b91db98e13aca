import CellStore
import Foundation
@testable import Scan
import Testing

/// The raw-byte search that lets a filter keep nothing without an index: it must find a
/// literal wherever the parser gives a cell holding it, however badly the input is quoted.
@Suite("Raw absence of a literal", .timeLimit(.minutes(30)))
struct RawAbsenceTests {
    /// Bytes that make quoting go wrong in every way the field rules know, and text to find.
    static let pieces: [[UInt8]] = ["\"", "\"\"", ",", "\n", "\r\n", "\r", "ab", "c", "k", "K", "s", "S", "é", "x\"y",
                                    "\u{212A}", "\u{017F}", "a\"b", "\"ab\"cd", "\"a,\"b"].map { Array($0.utf8) } + [[0xFF], [0xE2, 0x22, 0x84, 0xAA]]

    static func input(_ generator: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<(1 + Int(generator.next() % 60)) { bytes += pieces[Int(generator.next() % UInt64(pieces.count))] }
        return bytes
    }

    /// A literal to look for: a stretch of a parsed cell (quotes left out), or a random one.
    static func literal(_ cells: [[UInt8]], _ generator: inout SeededGenerator) -> String {
        let words = ["abc", "bc", "ab", "sk", "kS", "xy", "cab", "a,b", "é", "Ké", "zzq", "b\nc", "c\rs"]
        let filled = cells.filter { !$0.isEmpty }
        if generator.next() % 2 == 0, !filled.isEmpty {
            let cell = filled[Int(generator.next() % UInt64(filled.count))].filter { $0 != 0x22 }
            let text = String(decoding: cell, as: UTF8.self).filter { $0 != "\u{FFFD}" }
            let scalars = Array(text.unicodeScalars)
            if !scalars.isEmpty {
                let start = Int(generator.next() % UInt64(scalars.count))
                let length = 1 + Int(generator.next() % UInt64(min(4, scalars.count - start)))
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[start..<(start + length)])
                return String(view)
            }
        }
        return words[Int(generator.next() % UInt64(words.count))]
    }

    @Test("a literal in any parsed cell is found in the raw bytes, at every buffer size; none found means no cell has it")
    func soundAndExact() throws {
        var generator = SeededGenerator(seed: 41)
        let dialect = Dialect(delimiter: 0x2C)
        var absent = 0, found = 0
        for _ in 0..<1500 {
            let bytes = Self.input(&generator)
            let cells = try RecordParser.records(in: bytes, dialect: dialect).flatMap { row in (0..<row.count).map { Array(row.field($0)) } }
            var text = Self.literal(cells, &generator)
            // Conditions on its ends, as a user writes them.
            let edges = [("", ""), ("^", ""), ("", "$"), ("^", "$"), ("\\b", "\\b")][Int(generator.next() % 5)]
            text = edges.0 + text + edges.1
            let pattern = try SearchPattern(text: text).compile()
            guard let search = RawAbsence(pattern: text, ignoresCase: pattern.ignoresCase, quote: 0x22) else { continue }
            let matcher = PatternMatcher(pattern)
            let inSomeCell = cells.contains { matcher.matches($0[...]) }
            // The same literal as one PCRE2 pattern over the whole input: the reference.
            let reference = PatternMatcher(search.pattern)
            let referenceFinding = bytes.withUnsafeBytes { reference.firstMatch(in: $0) }
            let inRawBytes = referenceFinding != .none
            for size in [16, 64, 4096] {
                let finding = search.search(MemorySource(bytes), from: 0, to: Int64(bytes.count), size: size)
                if inSomeCell || inRawBytes { #expect(finding != .absent, "'\(text)' in \(bytes) (buffer \(size))") }
                // No occurrence starts before a candidate's offset.
                if case .candidate(let offset) = finding, case .match(let range) = referenceFinding {
                    #expect(offset <= Int64(range.lowerBound), "'\(text)' in \(bytes) (buffer \(size))")
                }
                // A small buffer may give up on a long run of quotes, never a large one.
                if size == 4096 && !inRawBytes { #expect(finding == .absent, "'\(text)' in \(bytes): \(finding)") }
            }
            // Parts searched on threads of their own, cut anywhere: the same answer.
            let parted = search.search(MemorySource(bytes), from: 0, to: Int64(bytes.count), workers: 3, size: 64, minimumShared: 0,
                                       overlap: 24)
            if inRawBytes { #expect(parted != .absent, "'\(text)' in \(bytes) in parts") }
            if case .candidate(let offset) = parted, case .match(let range) = referenceFinding {
                #expect(offset <= Int64(range.lowerBound), "'\(text)' in \(bytes) in parts")
            }
            if inRawBytes { found += 1 } else { absent += 1 }
        }
        #expect(absent > 200 && found > 200)
    }

    @Test("only literals without the quote are searched; an escaped punctuation mark is a literal")
    func literalsOnly() {
        #expect(RawAbsence(pattern: "zzqqxx", ignoresCase: true, quote: 0x22) != nil)
        #expect(RawAbsence(pattern: "a\\.b", ignoresCase: true, quote: 0x22) != nil)
        #expect(RawAbsence(pattern: "Zürich", ignoresCase: false, quote: 0x22) != nil)
        #expect(RawAbsence(pattern: "zürich", ignoresCase: true, quote: 0x22) == nil)
        #expect(RawAbsence(pattern: "a\"b", ignoresCase: true, quote: 0x22) == nil)
        #expect(RawAbsence(pattern: "a\"b", ignoresCase: true, quote: nil) != nil)
        // Conditions on the literal's ends only narrow where it matches.
        for pattern in ["^ab", "ab$", "\\bab\\b", "^ab$", "\\Aab\\z", "a\\$", "\\^a"] {
            #expect(RawAbsence(pattern: pattern, ignoresCase: true, quote: 0x22) != nil, "\(pattern)")
        }
        for pattern in ["a.b", "a^b", "a$b", "^$", "\\b", "a|b", "a+", "\\d", "(ab)", "[ab]", "a{2}", "a\\bb", ""] {
            #expect(RawAbsence(pattern: pattern, ignoresCase: true, quote: 0x22) == nil, "\(pattern)")
        }
    }

    /// The search spells out the only characters outside ASCII that match an ASCII letter
    /// with case ignored; this holds it to the PCRE2 linked.
    @Test("with case ignored, ASCII letters match only the KELVIN SIGN and the LONG S outside ASCII")
    func caseFolding() throws {
        let pattern = try CompiledPattern("^[a-z]$", ignoresCase: true)
        let matcher = PatternMatcher(pattern)
        var matched: [UInt32] = []
        for value in UInt32(0x80)..<0x20000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if matcher.matches(Array(String(scalar).utf8)[...]) { matched.append(value) }
        }
        #expect(matched == [0x017F, 0x212A])
    }
}
