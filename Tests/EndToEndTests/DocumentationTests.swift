import Foundation
import Testing

/// --help and the man page must cover every option and key; README is the front page that points to them.
@Suite("Documentation", .timeLimit(.minutes(30)))
struct DocumentationTests {
    static let options = ["--delimiter", "--quote", "--esc-delay", "--encoding", "--no-header", "--freeze-rows", "--freeze-cols", "--no-row-numbers",
                          "--preamble", "--no-preamble", "--bounce", "--no-mouse", "--no-indicators", "--debug-stats", "--follow", "--spool-limit",
                          "--echo", "--theme", "--print0", "--band", "--no-band", "--no-session", "--session", "--fresh", "--session-limit",
                          "--output", "--filter", "--filter-out", "--filter-column", "--filter-out-column", "--sort", "--columns", "--frequency", "--histogram", "--bins", "--summary", "--sql",
                          "--diff", "--key", "--context", "--set", "--delete-row", "--in-place", "--recover",
                          "--skip-bad", "--stack", "--table", "--source-column", "--no-source-column", "--version", "--help"]

    func text(_ relative: String) throws -> String {
        try String(contentsOf: Paths.package.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The key labels `--help` prints, in the grid and in panes (the same tables dispatch keys).
    func keyLabels() throws -> [String] {
        let help = try run([Paths.binary, "--help"]).text
        var labels: [String] = []
        for heading in ["KEYS:\n", "THE HELP SCREEN:\n"] {
            let keys = help.components(separatedBy: heading)[1].components(separatedBy: "\n\n")[0]
            labels += keys.split(separator: "\n").map { line in
                line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
            }
        }
        return labels
    }

    @Test("the man page has every option and every key")
    func manPage() throws {
        let man = try text("man/csvfreeze.1").replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\")
            .replacingOccurrences(of: "\\(dq", with: "\"").replacingOccurrences(of: "\\`", with: "`")
        for option in Self.options { #expect(man.contains(option), "\(option)") }
        let labels = try keyLabels()
        #expect(labels.count >= 10)
        for label in labels { #expect(man.contains(".B \(label)\n"), "\(label)") }
    }

    /// README is the front page: the man page is the complete reference, and README points to it.
    @Test("README is a front page: at most 25 KB, two quick-start commands, the way to the man page, and no option the man page lacks")
    func readme() throws {
        let readme = try text("README.md")
        #expect(readme.utf8.count <= 25_000, "README.md is \(readme.utf8.count) bytes")
        let section = try #require(readme.components(separatedBy: "## Quick start\n").dropFirst().first, "no Quick start section")
        let quickStart = section.components(separatedBy: "\n## ")[0]
        let block = try #require(quickStart.components(separatedBy: "```sh\n").dropFirst().first, "no commands in Quick start")
            .components(separatedBy: "```")[0]
        let commands = block.split(separator: "\n").map { $0.components(separatedBy: "#")[0].trimmingCharacters(in: .whitespaces) }
        #expect(commands == ["make run", "make test"], "\(commands)")
        for pointer in ["man man/csvfreeze.1", "man csvfreeze", "csvfreeze --help"] {
            let pointed = readme.contains(pointer)
            #expect(pointed, "README does not say \(pointer)")
        }
        let man = try text("man/csvfreeze.1").replacingOccurrences(of: "\\-", with: "-")
        let named = try Regex("--[a-z0-9][a-z0-9-]*")
        for match in readme.matches(of: named) {
            let option = String(readme[match.range])
            #expect(man.contains(option), "README names \(option), which the man page does not")
        }
    }

    @Test("the exit statuses, in the man page and --help, name every column option an unknown column exits 2 for")
    func exitStatusTwo() throws {
        let man = try text("man/csvfreeze.1").replacingOccurrences(of: "\\-", with: "-")
        let section = man.components(separatedBy: ".SH EXIT STATUS\n")[1].components(separatedBy: ".SH ")[0]
        let two = section.components(separatedBy: ".B 2\n")[1].components(separatedBy: ".TP\n")[0]
        let help = try run([Paths.binary, "--help"]).text
        let statuses = help.components(separatedBy: "EXIT STATUS:\n")[1].components(separatedBy: "\n\n")[0]
        for option in ["--columns", "--sort", "--filter-column", "--frequency", "--source-column"] {
            #expect(two.contains(option), "man: \(option)")
            #expect(statuses.contains(option), "--help: \(option)")
        }
    }
}

@Suite("Help text", .timeLimit(.minutes(30)))
struct HelpTextTests {
    @Test("--help says how prompts edit and where defaults and history live")
    func promptsAndDefaults() throws {
        let help = try run([Paths.binary, "--help"]).text
        for phrase in ["AT A PROMPT", "Ctrl-U/W/K", "CSVFREEZE_HISTORY", "DEFAULTS:", "CSVFREEZE_CONFIG", "NO_COLOR"] {
            #expect(help.contains(phrase), "\(phrase)")
        }
    }

    @Test("no key's line, and no exit status line, wraps in --help")
    func keysDoNotWrap() throws {
        let help = try run([Paths.binary, "--help"]).text
        let keys = help.components(separatedBy: "KEYS:\n")[1].components(separatedBy: "\n\n")[0]
        let lines = keys.split(separator: "\n")
        #expect(lines.count == KeyMapCount.bindings)
        for line in lines { #expect(line.hasPrefix("  "), "a wrapped line: \(line)") }
        // The exit statuses are written as indented lines: none is rewrapped out of them.
        let statuses = help.components(separatedBy: "EXIT STATUS:\n")[1].components(separatedBy: "\n\n")[0]
        for line in statuses.split(separator: "\n") { #expect(line.hasPrefix("  "), "a wrapped line: \(line)") }
    }
}

/// The number of key bindings, read from the man page's KEYS section (one `.TP` each).
enum KeyMapCount {
    static var bindings: Int {
        let man = (try? String(contentsOf: Paths.package.appendingPathComponent("man/csvfreeze.1"), encoding: .utf8)) ?? ""
        let keys = man.components(separatedBy: ".SH KEYS\n").last?.components(separatedBy: ".SH ").first ?? ""
        return keys.components(separatedBy: ".TP\n").count - 1
    }
}
