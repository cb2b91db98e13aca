import Foundation
import Testing

/// --help, the man page and README must cover every option and key.
@Suite("Documentation")
struct DocumentationTests {
    static let options = ["--delimiter", "--no-header", "--freeze-rows", "--freeze-cols", "--no-row-numbers",
                          "--output", "--version", "--help"]

    func text(_ relative: String) throws -> String {
        try String(contentsOf: Paths.package.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The key labels `--help` prints (the same table dispatches keys).
    func keyLabels() throws -> [String] {
        let help = try run([Paths.binary, "--help"]).text
        let keys = help.components(separatedBy: "KEYS:\n")[1].components(separatedBy: "\n\n")[0]
        return keys.split(separator: "\n").map { line in
            line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
        }
    }

    @Test("the man page has every option and every key")
    func manPage() throws {
        let man = try text("man/csvfreeze.1").replacingOccurrences(of: "\\-", with: "-")
        for option in Self.options { #expect(man.contains(option), "\(option)") }
        let labels = try keyLabels()
        #expect(labels.count >= 10)
        for label in labels { #expect(man.contains(".B \(label)\n"), "\(label)") }
    }

    @Test("README has every option and every key, and the two quick-start commands")
    func readme() throws {
        let readme = try text("README.md")
        for option in Self.options { #expect(readme.contains(option), "\(option)") }
        for label in try keyLabels() { #expect(readme.contains(label), "\(label)") }
        #expect(readme.contains("make run"))
        #expect(readme.contains("make test"))
    }
}
