import Foundation
import Testing

/// Keys and screen handling as users meet them in their own terminals, inside tmux.
@Suite("Terminal manners", .serialized, .timeLimit(.minutes(30)))
struct TerminalMannersTests {
    let binary = shellQuote(Paths.binary)
    let wide = shellQuote(Paths.sampleData.appendingPathComponent("wide.csv").path)
    let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)

    func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }

    @Test("Home and End, PageDown, Shift-Right and F1 work whatever TERM says inside tmux",
          arguments: ["xterm-256color", "screen-256color", "linux", "vt100", "rxvt-unicode-256color"])
    func keysUnderTerm(term: String) throws {
        let pane = try TmuxPane("TERM=\(term) \(binary) \(wide)", width: 100, height: 20)
        try pane.waitFor("the first screen") { status($0).contains("col 1/") }
        try pane.send("End")
        let last = try pane.waitFor("End: the last column") { status($0).range(of: #"col (\d+)/\1\b"#, options: .regularExpression) != nil }
        try pane.send("Home")
        try pane.waitFor("Home: the first column") { status($0).contains("col 1/") }
        try pane.send("PageDown")
        try pane.waitFor("PageDown: a screen further") { !status($0).contains("row 1/") }
        let before = try pane.screen()
        try pane.send("S-Right")
        try pane.waitFor("Shift-Right: scrolled sideways") { $0[0] != before[0] }
        try pane.send("F1")
        try pane.waitFor("F1: the help screen") { $0.joined().contains("freeze panes at the cursor") }
        try pane.send("q", "q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true, "\(last.count)")
    }

    @Test("an unknown escape sequence does nothing, not a key for each of its bytes")
    func unknownSequence() throws {
        let pane = try TmuxPane("\(binary) \(wide)", width: 100, height: 20)
        let first = try pane.waitFor("the first screen") { status($0).contains("col 1/") }
        try pane.send("-l", "\u{1B}[<35;10;5M\u{1B}[99;5~")
        try pane.send("l")
        let after = try pane.waitFor("the next key acts") { status($0).contains("col 2/") }
        #expect(after[0] == first[0], "no column was narrowed by the '<' of a mouse report")
    }

    @Test("a click at column 260 of a 300-column terminal selects the column drawn there (SGR mouse)")
    func clickFarRight() throws {
        let pane = try TmuxPane("\(binary) \(wide)", width: 300, height: 20)
        let lines = try pane.waitFor("the first screen") { status($0).contains("col 1/") }
        // The header line: which column name is drawn at x = 259?
        let header = Array(lines[0])
        var start = 259
        while start > 0 && header[start - 1] != " " && header[start - 1] != "│" { start -= 1 }
        var end = 259
        while end < header.count && header[end] != " " { end += 1 }
        let name = String(header[start..<end])
        #expect(name.hasPrefix("metric_"), "header at x=259: \(name)")
        try pane.send("-l", "\u{1B}[<0;260;3M")
        try pane.waitFor("the clicked column is the cursor's") { status($0).contains(name) }
    }

    @Test("Ctrl-L repaints over garbage")
    func redraw() throws {
        let pane = try TmuxPane("\(binary) \(people) & echo $! > pid; wait $!", width: 80, height: 12)
        try pane.waitFor("the first screen") { status($0).contains("row 1/") }
        let tty = try run(["/usr/bin/env", "tmux", "-L", pane.socket, "display-message", "-p", "#{pane_tty}"])
            .text.trimmingCharacters(in: .whitespacesAndNewlines)
        try run(["/bin/sh", "-c", "printf '\\033[5;5HGARBAGE GARBAGE' > \(shellQuote(tty))"])
        try pane.waitFor("garbage on screen") { $0.joined().contains("GARBAGE") }
        try pane.send("C-l")
        try pane.waitFor("the screen repainted") { !$0.joined().contains("GARBAGE") && status($0).contains("row 1/") }
        try pane.send("q")
        #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]")
    }

    @Test("Ctrl-Z suspends to the shell with the terminal restored; fg comes back repainted")
    func suspend() throws {
        let pane = try TmuxPane("PS1='prompt> ' bash --norc --noprofile -i", width: 80, height: 12)
        try pane.waitFor("the shell") { $0.contains { $0.hasPrefix("prompt>") } }
        try pane.send("-l", "\(binary) \(people)")
        try pane.send("Enter")
        try pane.waitFor("the first screen") { status($0).contains("row 1/") }
        try pane.send("C-z")
        try pane.waitFor("the shell again") { lines in
            lines.contains { $0.contains("Stopped") } && status(lines).hasPrefix("prompt>")
        }
        try pane.send("-l", "stty -a | grep -o -w -e icanon -e -icanon | head -1")
        try pane.send("Enter")
        try pane.waitFor("the terminal's modes restored") { $0.contains { $0 == "icanon" } }
        try pane.send("-l", "fg")
        try pane.send("Enter")
        let back = try pane.waitFor("the viewer back") { status($0).contains("row 1/") && $0[0].contains("id") }
        #expect(!back.joined().contains("prompt>"), "everything repainted")
        try pane.send("j")
        try pane.waitFor("keys work again") { status($0).contains("row 2/") }
        try pane.send("q")
        try pane.waitFor("the shell after quitting") { status($0).hasPrefix("prompt>") }
        try pane.send("-l", "exit")
        try pane.send("Enter")
    }
}

/// Colours: NO_COLOR, themes, and the background a terminal says it has.
@Suite("Colours", .serialized, .timeLimit(.minutes(30)))
struct ColourTests {
    let binary = shellQuote(Paths.binary)
    let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)

    /// The foreground colours (SGR 30–37) a styled screen uses.
    func colours(_ styled: String) -> Set<Int> {
        var found = Set<Int>()
        let pattern = try! Regex(#"\x1B\[([0-9;]*)m"#)
        for match in styled.matches(of: pattern) {
            let codes = String(styled[match.range]).dropFirst(2).dropLast().split(separator: ";").compactMap { Int($0) }
            for code in codes where (30...37).contains(code) { found.insert(code) }
        }
        return found
    }

    func styledFirstScreen(_ command: String) throws -> String {
        let pane = try TmuxPane(command, width: 80, height: 8)
        try pane.waitFor("the first screen") { $0.last(where: { !$0.isEmpty })?.contains("row 1/") == true }
        return try pane.styledScreen()
    }

    @Test("NO_COLOR draws no colour; the cursor stays visible in reverse")
    func noColor() throws {
        let styled = try styledFirstScreen("NO_COLOR=1 \(binary) \(people)")
        #expect(colours(styled).isEmpty, "\(colours(styled))")
        #expect(styled.contains("\u{1B}[7m") || styled.contains(";7m"), "reverse video for the cursor")
    }

    @Test("themes: dark is cyan and yellow, light has neither, mono has no colour")
    func themes() throws {
        #expect(colours(try styledFirstScreen("\(binary) --theme dark \(people)")).isSuperset(of: [33, 36]))
        let light = colours(try styledFirstScreen("\(binary) --theme light \(people)"))
        #expect(light.contains(34) && !light.contains(33) && !light.contains(36), "\(light)")
        #expect(colours(try styledFirstScreen("\(binary) --theme mono \(people)")).isEmpty)
        func isLight(_ found: Set<Int>) -> Bool { found.contains(34) && !found.contains(33) && !found.contains(36) }
        let background = colours(try styledFirstScreen("COLORFGBG='0;15' \(binary) \(people)"))
        #expect(isLight(background), "a light background picks light: \(background)")
        let chosen = colours(try styledFirstScreen("NO_COLOR=1 \(binary) --theme light \(people)"))
        #expect(isLight(chosen), "--theme beats NO_COLOR: \(chosen)")
    }
}

/// Emoji sequences take the cells tmux draws them in, and no character is lost.
@Suite("Emoji widths in tmux", .timeLimit(.minutes(30)))
struct EmojiWidthTests {
    /// The cells a terminal that measures per code point (tmux, xterm, VTE) gives `text`,
    /// as the C library's wcwidth says (GNU `wc -L` sums it per character).
    func cells(_ text: Substring) throws -> Int {
        let result = try run(["/bin/sh", "-c", "printf '%s' \"$1\" | wc -L", "sh", String(text)])
        return Int(result.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test("variation selectors, skin tones, ZWJ sequences and flags keep the next column in place")
    func alignment() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let values = ["plain", "👍🏽", "❤️", "👩‍👩‍👧", "🇫🇷", "e\u{301}t\u{e9}", "☺︎x", "✌🏿y"]
        let file = directory.appendingPathComponent("emoji.csv")
        try ("a,b\n" + values.enumerated().map { "\($0.element),X\($0.offset)" }.joined(separator: "\n") + "\n")
            .write(to: file, atomically: true, encoding: .utf8)
        let pane = try TmuxPane("\(shellQuote(Paths.binary)) --no-row-numbers \(shellQuote(file.path))", width: 60, height: 14)
        let lines = try pane.waitFor("the first screen") { $0.last(where: { !$0.isEmpty })?.contains("row 1/") == true }
        var columns = Set<Int>()
        for (index, value) in values.enumerated() {
            let line = lines[index + 1]
            guard let marker = line.range(of: "X\(index)") else {
                Issue.record("row \(index) lost its second cell: \(line)")
                continue
            }
            columns.insert(try cells(line[..<marker.lowerBound]))
            // tmux keeps a zero-width joiner out of what it captures; every other code point
            // must be on screen.
            let shown = line.unicodeScalars.filter { $0.value != 0x200D }
            #expect(shown.starts(with: value.unicodeScalars.filter { $0.value != 0x200D }), "every character of \(value) is drawn: \(line)")
        }
        #expect(columns.count == 1, "the second column starts at one screen column: \(columns)")
    }
}

@Suite("Ctrl-C in panes", .timeLimit(.minutes(30)))
struct ControlCEndToEndTests {
    @Test("Ctrl-C quits from the help screen and from a prompt, the terminal restored")
    func quitsFromPanes() throws {
        let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
        for opening in [["?"], ["/", "-l", "abc"]] {
            let pane = try TmuxPane("\(shellQuote(Paths.binary)) \(people)", width: 80, height: 12)
            try pane.waitFor("the first screen") { $0.last(where: { !$0.isEmpty })?.contains("row 1/") == true }
            try pane.send(opening[0])
            if opening.count > 1 { try pane.send(opening[1], opening[2]) }
            try pane.send("C-c")
            #expect(try pane.waitForExit() == "[exit=0 modes=icanon echo ]", "after \(opening)")
        }
    }
}

@Suite("The pane on top gets the mouse", .timeLimit(.minutes(30)))
struct PaneMouseEndToEndTests {
    @Test("a wheel in help scrolls help; closing it shows the grid where it was")
    func wheelInHelp() throws {
        let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
        let pane = try TmuxPane("\(shellQuote(Paths.binary)) \(people)", width: 80, height: 12)
        try pane.waitFor("the first screen") { $0.last(where: { !$0.isEmpty })?.contains("row 1/") == true }
        try pane.send("?")
        let help = try pane.waitFor("help") { $0[0].hasPrefix("csvfreeze keys") }
        try pane.send("-l", "\u{1B}[<65;10;5M")
        try pane.waitFor("help scrolled") { $0[0] != help[0] && $0.last(where: { !$0.isEmpty })?.contains("help ") == true }
        try pane.send("q")
        try pane.waitFor("the grid, its cursor unmoved") { $0.last(where: { !$0.isEmpty })?.contains("row 1/") == true }
    }
}

@Suite("Prompts in a terminal", .timeLimit(.minutes(30)))
struct PromptEndToEndTests {
    @Test("Home and End in a prompt under TERM=xterm-256color keep the text; history lasts across sessions")
    func prompt() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let history = directory.appendingPathComponent("state/history").path
        let people = shellQuote(Paths.sampleData.appendingPathComponent("people.csv").path)
        let command = "CSVFREEZE_HISTORY=\(shellQuote(history)) TERM=xterm-256color \(shellQuote(Paths.binary)) \(people)"
        var pane = try TmuxPane(command, width: 80, height: 12)
        try pane.waitFor("the first screen") { $0.last(where: { !$0.isEmpty })?.contains("row 1/") == true }
        try pane.send("/")
        try pane.send("-l", "Lyo")
        try pane.send("Home")
        try pane.send("End")
        try pane.send("-l", "n")
        try pane.waitFor("the whole text kept") { $0.last(where: { !$0.isEmpty })?.hasPrefix("/Lyon") == true }
        try pane.send("Enter")
        // The prompt's own line has no "row 1/" either: the match is the cursor on another row.
        try pane.waitFor("a match") { lines in
            let status = lines.last(where: { !$0.isEmpty }) ?? ""
            return status.contains("row ") && !status.contains("row 1/")
        }
        try pane.send("q")
        _ = try pane.waitForExit()
        #expect((try? String(contentsOfFile: history, encoding: .utf8)) == "/Lyon\n")
        pane = try TmuxPane(command, width: 80, height: 12)
        try pane.waitFor("the first screen again") { $0.last(where: { !$0.isEmpty })?.contains("row 1/") == true }
        try pane.send("/")
        try pane.send("Up")
        try pane.waitFor("the last session's search") { $0.last(where: { !$0.isEmpty })?.hasPrefix("/Lyon") == true }
        try pane.send("Escape")
        try pane.send("q")
    }
}

@Suite("Habits from less and vim", .timeLimit(.minutes(30)))
struct HabitEndToEndTests {
    @Test("5j and 10l move that many; Ctrl-D and Ctrl-U move half a screen")
    func countsAndHalfPages() throws {
        let wide = shellQuote(Paths.sampleData.appendingPathComponent("wide.csv").path)
        let pane = try TmuxPane("\(shellQuote(Paths.binary)) \(wide)", width: 100, height: 22)
        func status(_ lines: [String]) -> String { lines.last(where: { !$0.isEmpty }) ?? "" }
        try pane.waitFor("the first screen") { status($0).contains("row 1/") }
        try pane.send("-l", "5j10l")
        try pane.waitFor("row 6, column 11") { status($0).contains("row 6/") && status($0).contains("col 11/") }
        try pane.send("C-d")
        let down = try pane.waitFor("half a screen down") { !status($0).contains("row 6/") }
        try pane.send("C-u")
        try pane.waitFor("back up") { status($0).contains("row 6/") }
        #expect(status(down).range(of: #"row (1[4-6])/"#, options: .regularExpression) != nil, "\(status(down))")
    }

    @Test("--output jsonl gives one object a line keyed by the header, for jq")
    func jsonLines() throws {
        let people = Paths.sampleData.appendingPathComponent("people.csv").path
        let lines = try run([Paths.binary, "--output", "jsonl", people]).text.split(separator: "\n")
        #expect(lines.count == 3000)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String]
        #expect(first?["id"] == "1" && first?["first_name"] != nil)
    }
}
