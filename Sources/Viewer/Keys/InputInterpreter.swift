/// Turns keys into finished commands that carry their data: a count and a motion (`5j`),
/// a count and `G` (`250G`), key sequences (`zh`), and the line typed at a prompt (`/`
/// and Enter is `.find`). It holds only input in progress; the viewer's state changes in
/// `Viewer.handle(_:)`, for keys, mouse and panes alike.
struct InputInterpreter {
    /// A line being typed on the status line.
    struct Prompt: Equatable {
        var kind: PromptKind
        var line = PromptLine()
        /// Which earlier entry (counted back from the newest, 1 is the newest) Up and Down
        /// have reached, if any.
        var back = 0
    }

    /// What the viewer is showing, as far as keys are concerned.
    enum Context {
        /// `escape`: what Esc means now (stop a save, a search, a filter), if anything.
        case grid(escape: Command?)
        case pane
    }

    enum Outcome: Equatable {
        /// Commands to apply, in order.
        case commands([Command])
        /// The key was taken; more must come (a count's digits, `z` of `zh`, prompt
        /// editing). With text: what to say meanwhile.
        case pending(String?)
        /// The key means nothing here.
        case unbound
    }

    /// A count being typed before a motion or `G`.
    private(set) var count: Int?
    /// Keys typed so far of a longer sequence (`z` of `zh`).
    private var sequence: [Key] = []
    /// The prompt being typed, if any.
    private(set) var prompt: Prompt?
    /// Earlier entries at the prompts (Up and Down walk them).
    var history = PromptHistory()
    /// Keys typed while a search started by `n`, `N` or a prompt's Enter was running:
    /// they act, in order, once it has moved the cursor (see `Viewer.handle(key:)`).
    var held: [Key] = []

    /// True when nothing is being typed: no prompt, count or sequence, no key held.
    var isIdle: Bool { prompt == nil && count == nil && sequence.isEmpty && held.isEmpty }

    /// The most keys held; more are dropped (and said to be), so a key held down through
    /// a long search cannot fill memory.
    static let heldLimit = 1024

    /// Holds `key` until the search ends; false when it is dropped (see `heldLimit`).
    mutating func hold(_ key: Key) -> Bool {
        guard held.count < Self.heldLimit else { return false }
        held.append(key)
        return true
    }

    /// The largest count kept (a longer run of digits stops growing).
    static let largestCount = 999_999_999_999

    /// Opens a prompt (what `/`, `\\` and `:` do), with `text` typed already.
    mutating func open(_ kind: PromptKind, text: String = "") {
        count = nil
        sequence = []
        prompt = Prompt(kind: kind, line: PromptLine(text))
    }

    /// Reads one key.
    mutating func interpret(_ key: Key, context: Context) -> Outcome {
        // Ctrl-C quits from everywhere: panes and prompts too (with --echo, as a cancel).
        if key == Key.control("c") {
            count = nil
            sequence = []
            prompt = nil
            return .commands([.quit])
        }
        if prompt != nil { return edit(key) }
        if case .paste = key {
            // Pasted text is data, never keys: in the grid it does nothing.
            count = nil
            sequence = []
            if case .pane = context { return .pending(nil) }
            return .pending("a paste does nothing in the grid: paste at a prompt (/, :, &)")
        }
        switch context {
        case .pane:
            return KeyMap.pagerCommand(for: key).map { .commands([.pager($0)]) } ?? .unbound
        case .grid(let escape):
            if key == .escape && count == nil && sequence.isEmpty, let escape { return .commands([escape]) }
            return grid(key)
        }
    }

    /// A key in the grid: digits of a count, a sequence, a command (an opened prompt).
    private mutating func grid(_ key: Key) -> Outcome {
        if sequence.isEmpty, case .character(let character) = key, character.isASCII,
           let digit = character.wholeNumberValue, digit > 0 || count != nil {
            let typed = min(Self.largestCount, (count ?? 0) * 10 + digit)
            count = typed
            return .pending("\(typed)  (G or g goes to that row; a motion, n or N repeats that many times)")
        }
        let times = count ?? 1
        let hadCount = count != nil
        count = nil
        // `250G` and `250g` go to row 250, as in less and vim.
        if hadCount && (key == .character("G") || key == .character("g")) { return .commands([.goToRow(times)]) }
        let keys = sequence + [key]
        switch KeyMap.match(keys) {
        case .command(let command):
            sequence = []
            switch command {
            case .search, .searchColumn, .goTo, .chooseColumns, .filterPrompt, .filterColumnPrompt, .markPrompt:
                let kinds: [Command: PromptKind] = [.search: .search(columnOnly: false), .searchColumn: .search(columnOnly: true),
                                                    .goTo: .goTo, .chooseColumns: .columns, .markPrompt: .mark,
                                                    .filterPrompt: .filter(columnOnly: false),
                                                    .filterColumnPrompt: .filter(columnOnly: true)]
                prompt = Prompt(kind: kinds[command]!)
                return .pending(nil)
            default:
                return .commands([times > 1 ? .repeated(command, times: times) : command])
            }
        case .prefix:
            sequence = keys
            count = hadCount ? times : nil
            return .pending(nil)
        case .none:
            sequence = []
            // A sequence that went nowhere: its last key may mean something alone.
            if keys.count > 1 { return grid(key) }
            return hadCount ? .pending(nil) : .unbound
        }
    }

    /// A key at the prompt: editing, walking history, or the finished line.
    private mutating func edit(_ key: Key) -> Outcome {
        guard var prompt else { return .unbound }
        // A yes-or-no question takes one key: y writes, anything else does not (a paste is
        // no answer).
        if case .paste = key, prompt.kind.isQuestion { return .pending(nil) }
        if case .overwrite(let path) = prompt.kind {
            self.prompt = nil
            return .commands(key == .character("y") || key == .character("Y") ? [.saveTo(path, overwrite: true)] : [.cancelSave])
        }
        if case .overwriteEdits(let path) = prompt.kind {
            self.prompt = nil
            return .commands(key == .character("y") || key == .character("Y") ? [.saveEditsTo(path, overwrite: true)] : [.cancelSave])
        }
        if case .edit = prompt.kind, key == .control("o") {
            // A line break in the value: Enter ends the prompt, Ctrl-J is Enter on a terminal.
            prompt.line.insertLineBreak()
            self.prompt = prompt
            return .pending(nil)
        }
        if case .refused = prompt.kind {
            // What was typed for a prompt that did not open goes nowhere: Enter or Esc ends it.
            if key == .escape || key == .enter || key == .backspace { self.prompt = nil }
            return .pending(nil)
        }
        let entries = history.entries(for: prompt.kind)
        switch key {
        case .escape:
            self.prompt = nil
            return .commands([.cancelSearch])
        case .enter:
            self.prompt = nil
            // An empty search repeats the last one, as in less.
            let text = prompt.line.isEmpty && prompt.kind.isSearch ? (entries.last ?? "") : prompt.line.text
            switch prompt.kind {
            case .search(let columnOnly): return .commands([.find(text, columnOnly: columnOnly)])
            case .goTo: return .commands([.goToTarget(text)])
            case .columns: return .commands([.showColumns(matching: text)])
            case .filter(let columnOnly): return .commands([.filter(prompt.line.text, columnOnly: columnOnly)])
            case .mark: return .commands([.markMatching(prompt.line.text)])
            case .save: return .commands([.saveTo(text, overwrite: false)])
            case .sql: return .commands([.runSQL(text)])
            case .refused: return .pending(nil)
            case .overwrite(let path):
                let yes = text.trimmingSpaces.lowercased().hasPrefix("y")
                return .commands(yes ? [.saveTo(path, overwrite: true)] : [.cancelSave])
            case .edit(let record, let column, let original):
                return .commands([.setCell(prompt.line.text, record: record, column: column, original: original)])
            case .saveEdits: return .commands([.saveEditsTo(text, overwrite: false)])
            case .overwriteEdits(let path):
                let yes = text.trimmingSpaces.lowercased().hasPrefix("y")
                return .commands(yes ? [.saveEditsTo(path, overwrite: true)] : [.cancelSave])
            }
        case .backspace where prompt.line.isEmpty:
            self.prompt = nil
            return .pending(nil)
        case .paste(let text, let wasCut):
            let isEdit = if case .edit = prompt.kind { true } else { false }
            let leftOut = prompt.line.insert(pasted: text, keepsLineBreaks: isEdit)
            self.prompt = prompt
            if wasCut { return .pending("only the start of the paste was kept (it was too long)") }
            return .pending(leftOut > 0 ? "pasted: \(leftOut) control character\(leftOut == 1 ? "" : "s") (line breaks, tabs) left out" : nil)
        case .up, .down:
            // A value being edited has no earlier entries: the keys leave it as it is.
            if case .edit = prompt.kind { return .pending(nil) }
            let next = key == .up ? min(entries.count, prompt.back + 1) : max(0, prompt.back - 1)
            prompt.line = next == 0 ? PromptLine() : PromptLine(entries[entries.count - next])
            prompt.back = next
        default:
            guard prompt.line.edit(key) else { return .unbound }
        }
        self.prompt = prompt
        return .pending(nil)
    }
}
