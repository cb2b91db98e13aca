import Foundation
import Testing

/// Options kept in a config file and in CSVFREEZE, with the command line winning.
@Suite("Defaults", .timeLimit(.minutes(30)))
struct DefaultsTests {
    let binary = Paths.binary
    let people = Paths.sampleData.appendingPathComponent("people.csv").path

    func config(_ text: String) throws -> URL {
        let directory = try Paths.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("csvfreeze"), withIntermediateDirectories: true)
        try text.write(to: directory.appendingPathComponent("csvfreeze/config"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("CSVFREEZE=--no-row-numbers hides row numbers on screen")
    func environmentVariable() throws {
        let pane = try TmuxPane("CSVFREEZE='--no-row-numbers --freeze-cols 1' \(shellQuote(binary)) \(shellQuote(people))", width: 80, height: 10)
        let lines = try pane.waitFor("the first screen") { $0.last(where: { !$0.isEmpty })?.contains("row 1/") == true }
        #expect(lines[0].hasPrefix("id"), "no row-number column: \(lines[0])")
    }

    @Test("the config file's options apply, one a line, and the command line wins")
    func configFile() throws {
        let home = try config("# my defaults\n--output json\n\n  --delimiter ','  \n")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["XDG_CONFIG_HOME": home.path]
        let json = try run([binary, people], environment: environment)
        #expect(json.status == 0)
        #expect(json.text.hasPrefix("[\n  [\"id\""))
        let csv = try run([binary, "--output", "csv", people], environment: environment.merging(["CSVFREEZE": "--output tsv"]) { $1 })
        #expect(csv.text.hasPrefix("id,first_name,"), "the command line beats CSVFREEZE, which beats the file")
        let tsv = try run([binary, people], environment: environment.merging(["CSVFREEZE": "--output tsv"]) { $1 })
        #expect(tsv.text.hasPrefix("id\tfirst_name\t"))
    }

    @Test("a bad line gets one message naming the file and line; --help still works")
    func badLine() throws {
        let home = try config("--output json\n--freeze-rows two\n")
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["XDG_CONFIG_HOME": home.path]
        let result = try run([binary, people], environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr == "csvfreeze: \(home.path)/csvfreeze/config:2: The value 'two' is invalid for '--freeze-rows <n>'\n")
        #expect(try run([binary, "--help"], environment: environment).status == 0)
        let variable = try run([binary, people], environment: ["CSVFREEZE": "--output 'json"])
        #expect(variable.status == 64)
        #expect(variable.stderr == "csvfreeze: CSVFREEZE: a quote is not closed\n")
        let noConfig = try run([binary, "--output", "csv", people], environment: environment.merging(["CSVFREEZE_CONFIG": ""]) { $1 })
        #expect(noConfig.status == 0, "CSVFREEZE_CONFIG= turns the file off")
    }
}

/// What `make install` puts beside the binary, and what --version says.
@Suite("Completions and version", .timeLimit(.minutes(30)))
struct CompletionTests {
    let binary = Paths.binary

    @Test("completion scripts for bash, zsh and fish know the options; bash loads its script")
    func completions() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try run([binary, "--generate-completion-script", shell])
            #expect(script.status == 0)
            for option in ["theme", "output", "freeze-cols"] { #expect(script.text.contains(option), "\(shell): \(option)") }
        }
        let loaded = try run(["/bin/bash", "-c", "source <(\(shellQuote(binary)) --generate-completion-script bash) && complete -p csvfreeze"])
        #expect(loaded.status == 0)
        #expect(loaded.text.contains("csvfreeze"))
        let makefile = try String(contentsOf: Paths.package.appendingPathComponent("Makefile"), encoding: .utf8)
        for shell in ["bash", "zsh", "fish"] { #expect(makefile.contains("--generate-completion-script \(shell)")) }
    }

    @Test("--version names the libraries it runs on")
    func version() throws {
        let lines = try run([binary, "--version"]).text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("csvfreeze ") == true)
        #expect(lines.contains { $0.hasPrefix("libcsv 3.") })
        #expect(lines.contains { $0.hasPrefix("ncursesw 6.") })
        #expect(lines.contains { $0.hasPrefix("PCRE2 10.") })
    }

    @Test("--version alone, answered before the parser, says what the parser says of --version among other options")
    func versionAlone() throws {
        let alone = try run([binary, "--version"])
        let parsed = try run([binary, "--no-header", "--version"])
        #expect(alone.status == 0 && parsed.status == 0)
        #expect(alone.text == parsed.text)
        #expect(alone.text.hasSuffix("\n") && !alone.text.hasSuffix("\n\n"))
    }
}
