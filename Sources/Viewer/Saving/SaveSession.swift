import Table

/// Ctrl-S writing the view to a file: the write running (at most one), its news, its
/// cancelling, and what each says on the status line.
struct SaveSession {
    /// The write running, if any.
    private(set) var saver: ViewSaver?
    /// The input was still loading when the write started (its end says how far it got).
    private var startedWhileLoading = false

    /// True while the view is being written.
    var isRunning: Bool { saver != nil }

    /// What starting a write comes to.
    enum Start {
        /// A line to say (nil: nothing).
        case said(String?)
        /// The path names a file already there: the user is asked first.
        case asksOverwrite(String)
    }

    /// Ctrl-S's input: writes `view` to `text` (a path; `~/` is the home directory), as
    /// TSV when it ends in `.tsv`, else CSV. An existing file is overwritten only when
    /// the user said so; the file being viewed never is.
    mutating func start(to text: String, overwrite: Bool, view: TableView, rowLimit: Int, sheetSaving: SheetSaving?) -> Start {
        guard !text.trimmingSpaces.isEmpty else { return .said(nil) }
        if let saver { return .said("already writing \(saver.path): Esc cancels it") }
        switch ViewSaver.start(to: text, overwrite: overwrite, view: view, rowLimit: rowLimit, sheetSaving: sheetSaving) {
        case .nothing: return .said(nil)
        case .refused(let reason): return .said(reason)
        case .asksOverwrite(let path): return .asksOverwrite(path)
        case .started(let saver):
            self.saver = saver
            startedWhileLoading = !view.source.isComplete
            return .said("writing \(saver.path)…  (Esc cancels)")
        }
    }

    /// Takes the write's progress or end (on news from the background) into `message`.
    mutating func takeNews(into message: inout String?) {
        guard let saver else { return }
        let news = saver.news(soFar: startedWhileLoading)
        if news.isOver { self.saver = nil }
        message = news.message
    }

    /// Stops the write; nothing is left at its path. What to say (nil when none ran).
    mutating func cancel() -> String? {
        guard let saver else { return nil }
        saver.cancel()
        saver.wait()
        self.saver = nil
        return "not written: cancelled"
    }
}
