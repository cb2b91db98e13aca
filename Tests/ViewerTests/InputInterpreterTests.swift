import Testing
@testable import Viewer

@Suite("Keys become finished commands", .timeLimit(.minutes(30)))
struct InputInterpreterTests {
    private func run(_ keys: [Key], context: InputInterpreter.Context = .grid(escape: nil),
                     history: PromptHistory = PromptHistory()) -> [InputInterpreter.Outcome] {
        var interpreter = InputInterpreter()
        interpreter.history = history
        return keys.map { interpreter.interpret($0, context: context) }
    }

    private func characters(_ text: String) -> [Key] { text.map { .character($0) } }

    @Test("a count before G goes to that row; before a motion it repeats it; zh is one command")
    func countsAndSequences() {
        #expect(run(characters("250G")).last == .commands([.goToRow(250)]))
        #expect(run(characters("5j")).last == .commands([.repeated(.moveDown, times: 5)]))
        #expect(run(characters("zh")) == [.pending(nil), .commands([.scrollLeft])])
        #expect(run(characters("3zl")).last == .commands([.repeated(.scrollRight, times: 3)]), "a count survives a sequence")
        #expect(run(characters("zj")).last == .commands([.moveDown]), "a sequence that goes nowhere: the last key alone")
        #expect(run(characters("0")) == [.commands([.firstColumn])], "0 alone is a key, not a count")
        #expect(run(characters("10")).last == .pending("10  (G or g goes to that row; a motion, n or N repeats that many times)"))
        let huge = run(characters(String(repeating: "9", count: 40) + "G")).last
        #expect(huge == .commands([.goToRow(InputInterpreter.largestCount)]))
        #expect(run([.character("X")]) == [.unbound])
    }

    @Test("a prompt's line becomes .find or .goToTarget on Enter; Esc cancels; an empty search repeats the last")
    func prompts() {
        #expect(run(characters("/ab") + [.backspace, .character("c"), .enter]).last == .commands([.find("ac", columnOnly: false)]))
        #expect(run(characters("\\x") + [.enter]).last == .commands([.find("x", columnOnly: true)]))
        #expect(run(characters(":12") + [.enter]).last == .commands([.goToTarget("12")]))
        #expect(run(characters("/abc") + [.escape]).last == .commands([.cancelSearch]))
        let history = PromptHistory(searches: ["older", "newest"])
        #expect(run(characters("/") + [.enter], history: history).last == .commands([.find("newest", columnOnly: false)]))
        #expect(run(characters("/") + [.up, .up, .enter], history: history).last == .commands([.find("older", columnOnly: false)]))
        #expect(run(characters("/q") + [.enter]).last == .commands([.find("q", columnOnly: false)]), "q is text at a prompt")
        #expect(run(characters("/") + [.backspace, .character("q")]).last == .commands([.quit]), "Backspace on an empty line closes it")
    }

    @Test("Ctrl-C quits from a count, a sequence, a prompt and a pane; Esc cancels a running search")
    func quitting() {
        for keys in [characters("12"), characters("z"), characters("/abc")] {
            #expect(run(keys + [Key.control("c")]).last == .commands([.quit]))
        }
        #expect(run([Key.control("c")], context: .pane) == [.commands([.quit])])
        #expect(run([.escape], context: .grid(escape: .cancelSearch)) == [.commands([.cancelSearch])])
        #expect(run([.character("j"), .escape], context: .pane) == [.commands([.pager(.lineDown)]), .commands([.pager(.close)])])
    }
}
