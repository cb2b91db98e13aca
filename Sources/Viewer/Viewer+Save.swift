import CellStore
import Export
import Table

extension Viewer {
    // MARK: Writing the view to a file

    /// Ctrl-S's input: writes the view to `text` (a path; `~/` is the home directory), as
    /// TSV when it ends in `.tsv`, else CSV. An existing file is overwritten only when
    /// the user said so; the file being viewed never is.
    func save(to text: String, overwrite: Bool) {
        guard !text.trimmingSpaces.isEmpty else { return }
        if let saver = requests.saving {
            message = "already writing \(saver.path): Esc cancels it"
            return
        }
        switch ViewSaver.start(to: text, overwrite: overwrite, view: table, rowLimit: dataRowCount, sheetSaving: options.sheetSaving) {
        case .nothing: break
        case .refused(let reason): message = reason
        case .asksOverwrite(let path): input.open(.overwrite(path))
        case .started(let saver):
            requests.saving = saver
            requests.savedWhileLoading = !source.isComplete
            message = "writing \(saver.path)…  (Esc cancels)"
        }
    }

    /// Takes a save's progress or end (on news from the background).
    func collectSave() {
        guard let saver = requests.saving else { return }
        let news = saver.news(soFar: requests.savedWhileLoading)
        if news.isOver { requests.saving = nil }
        message = news.message
    }

    /// Stops a save that is running; nothing is left at its path.
    func cancelSave() {
        guard let saver = requests.saving else { return }
        saver.cancel()
        saver.wait()
        requests.saving = nil
        message = "not written: cancelled"
    }

    /// True while the view is being written (the loop keeps collecting it).
    public var isSaving: Bool { requests.saving != nil }
}
