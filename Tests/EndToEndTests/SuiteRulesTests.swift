import Foundation
import Testing

/// The rules every test keeps, read from the sources under Tests/: each suite has a time
/// limit, so a test that hangs fails after it instead of stalling the whole run.
@Suite("Rules the tests keep", .timeLimit(.minutes(30)))
struct SuiteRulesTests {
    /// The attributes looked for, spelled in pieces so that this file's own code does not
    /// read as attributes.
    static let suiteAttribute = "@" + "Suite", testAttribute = "@" + "Test"

    /// What breaks the rules in one source file, a line each: a suite attribute without a
    /// time limit, a top-level type holding tests with no suite attribute (Swift Testing
    /// makes it a suite with no limit), a test outside any type without its own limit.
    static func violations(in source: String) -> [String] {
        var found: [String] = []
        let lines = source.components(separatedBy: "\n")
        for (index, line) in lines.enumerated() {
            // An attribute's arguments may go on over the lines below.
            func rest(from column: String.Index) -> Substring {
                (line[column...] + "\n" + lines[(index + 1)...].prefix(20).joined(separator: "\n"))[...]
            }
            // Every suite attribute, wherever it is, names a time limit.
            var searched = line.startIndex
            while let range = line.range(of: suiteAttribute, range: searched..<line.endIndex) {
                searched = range.upperBound
                let given = arguments(after: suiteAttribute, in: rest(from: range.lowerBound))
                if !given.contains(".timeLimit(") {
                    found.append("line \(index + 1): a suite with no time limit")
                } else if let minutes = minutes(in: given), minutes < 30 {
                    found.append("line \(index + 1): a suite limited to \(minutes) minutes: the clock starts when its tests are queued, so it is 30")
                }
            }
            // A test outside any type names its own.
            if line.hasPrefix(testAttribute) && !arguments(after: testAttribute, in: rest(from: line.startIndex)).contains(".timeLimit(") {
                found.append("line \(index + 1): a test outside a suite with no time limit")
            }
            // A top-level type that holds tests is a suite: it says so (and so its limit).
            guard line.first?.isWhitespace == false, let name = typeName(line) else { continue }
            let body = lines[index...].prefix { $0 != "}" }
            guard body.contains(where: { $0.contains(testAttribute) }) else { continue }
            var attributes = [line]
            var above = index - 1
            while above >= 0, !lines[above].isEmpty, !lines[above].hasPrefix("//"), !lines[above].hasPrefix("}") {
                attributes.append(lines[above])
                above -= 1
            }
            if !attributes.contains(where: { $0.contains(suiteAttribute) }) {
                found.append("line \(index + 1): \(name) holds tests but is not marked a suite, so it has no time limit")
            }
        }
        return found
    }

    /// The minutes of a `.timeLimit(.minutes(N))` among `arguments`, if it is written so.
    static func minutes(in arguments: String) -> Int? {
        guard let start = arguments.range(of: ".timeLimit(.minutes(") else { return nil }
        return Int(arguments[start.upperBound...].prefix { $0.isNumber })
    }

    /// The name a line declares at the top level (`struct X`, `final class X`, …), if any.
    static func typeName(_ line: String) -> String? {
        var words = line.split(separator: " ").map(String.init)
        // Attributes before the declaration on the same line (a suite's, say).
        while let first = words.first, first.hasPrefix("@") || first.hasPrefix(".") || first.hasSuffix(")") || first.hasSuffix(",") {
            words.removeFirst()
        }
        if words.first == "final" { words.removeFirst() }
        guard words.count >= 2, ["struct", "class", "enum", "actor"].contains(words[0]) else { return nil }
        return String(words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }

    /// The parenthesized arguments right after `attribute` at the start of `text` (empty
    /// when it has none), parentheses inside string literals skipped.
    static func arguments(after attribute: String, in text: Substring) -> String {
        let afterName = text.dropFirst(attribute.count)
        guard afterName.first == "(" else { return "" }
        var depth = 0, inString = false, escaped = false
        var end = afterName.startIndex
        for index in afterName.indices {
            let character = afterName[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "(" {
                depth += 1
            } else if character == ")" {
                depth -= 1
                if depth == 0 { end = afterName.index(after: index); break }
            }
        }
        return String(afterName[afterName.startIndex..<end])
    }

    @Test("every suite under Tests/ has a time limit, and no test runs outside one without its own")
    func everySuiteHasATimeLimit() throws {
        let root = Paths.package.appendingPathComponent("Tests")
        let files = (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "the test sources are where they were")
        var broken: [String] = []
        for file in files.sorted() {
            let source = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            broken += Self.violations(in: source).map { "Tests/\(file): \($0)" }
        }
        #expect(broken.isEmpty, "\(broken.joined(separator: "\n"))")
    }

    @Test("the reader of those rules finds each kind of breach, and passes what keeps them")
    func readerFindsBreaches() {
        let suite = Self.suiteAttribute, test = Self.testAttribute
        #expect(Self.violations(in: "\(suite)(\"a\")\nstruct A {\n    \(test) func x() {}\n}\n").count == 1)
        #expect(Self.violations(in: "\(suite)(\"a\", .serialized)\nstruct A {\n    \(test) func x() {}\n}\n").count == 1)
        #expect(Self.violations(in: "\(suite) struct A {\n    \(test) func x() {}\n}\n").count == 1)
        #expect(Self.violations(in: "/// A.\nstruct A {\n    \(test) func x() {}\n}\n").count == 1)
        #expect(Self.violations(in: "\(test) func x() {}\n").count == 1)
        #expect(Self.violations(in: "\(test)(\"x (y)\") func x() {}\n").count == 1)
        #expect(Self.violations(in: "\(suite)(\"a\", .timeLimit(.minutes(2)))\nstruct A {\n    \(test) func x() {}\n}\n").count == 1)
        let kept = """
            /// A.
            \(suite)("a (b) \\"c(\\"", .serialized, .timeLimit(.minutes(30)))
            struct A {
                struct Nested {
                    func v() {}
                }

                \(test)("x") func x() {}
            }

            \(suite)(
                .timeLimit(.minutes(45))
            )
            final class B {
                \(test) func y() {}
            }

            struct Helper {
                func z() {}
            }

            \(test)(.timeLimit(.minutes(1))) func w() {}
            """
        #expect(Self.violations(in: kept) == [])
    }
}
