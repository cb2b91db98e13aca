import Testing
@testable import Viewer

/// The help screen's key lines line up, however wide the screen: every key in its column,
/// every description (and its wrapped continuation) in the one after it.
@Suite("Help screen alignment", .timeLimit(.minutes(30)))
struct HelpAlignmentTests {
    /// Every key label the help screen lists.
    static let labels = KeyMap.bindings.map(\.label) + KeyMap.pagerBindings.map(\.label)
        + (Panes.sheetKeys + Panes.promptKeys).map(\.0)

    /// The leading spaces of a line.
    func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }

    /// The lines of the key lists: those of headings (and their wrapped rest) left out.
    func keyListLines(_ lines: [String]) -> [String] {
        var inHeading = false
        var result: [String] = []
        for line in lines {
            if line.isEmpty || Self.labels.contains(where: { line.hasPrefix("  " + $0) }) { inHeading = false }
            if let first = line.first, first != " " { inHeading = true }
            if !inHeading && !line.isEmpty { result.append(line) }
        }
        return result
    }

    @Test("with room for both columns, keys start at 2 and descriptions at one column, continuations too",
          arguments: [200, 100, 80, 72, 60, 54])
    func wide(width: Int) throws {
        let lines = HelpPage.lines(Panes.helpText, width: width)
        let keyLines = lines.filter { line in Self.labels.contains { line.hasPrefix("  " + $0 + "  ") } }
        #expect(keyLines.count >= Self.labels.count)
        let column = try #require(keyLines.first.map(HelpPage.descriptionColumn(of:)))
        for line in keyLines {
            #expect(HelpPage.descriptionColumn(of: line) == column, "\(line)")
        }
        for line in keyListLines(lines) {
            // A key line, or a description's continuation under its column.
            #expect(indent(line) == 2 || indent(line) == column, "width \(width): \(line)")
        }
        for label in Self.labels {
            #expect(lines.contains { $0.hasPrefix("  " + label + "  ") }, "width \(width): \(label)")
        }
    }

    @Test("too narrow for two columns, each key stays at 2 and its description goes under it", arguments: [50, 40, 30])
    func narrow(width: Int) {
        let lines = HelpPage.lines(Panes.helpText, width: width)
        for line in keyListLines(lines) {
            #expect(indent(line) == 2 || indent(line) == 6 || indent(line) == HelpPage.descriptionColumn(of: "  " + KeyMap.bindings[0].label + "  x"),
                    "width \(width): \(line)")
        }
        for label in Self.labels {
            #expect(lines.contains { $0 == "  " + label || $0.hasPrefix("  " + label + "  ") }, "width \(width): \(label)")
        }
    }
}
