import Table

extension Viewer {
    /// Ctrl-S's input: writes the view to `text` (see `SaveSession.start`).
    func save(to text: String, overwrite: Bool) {
        switch saving.start(to: text, overwrite: overwrite, view: table, rowLimit: dataRowCount, sheetSaving: options.sheetSaving) {
        case .said(let text): if let text { message = text }
        case .asksOverwrite(let path): input.open(.overwrite(path))
        }
    }

    /// True while the view is being written (the loop keeps collecting it).
    public var isSaving: Bool { saving.isRunning }
}
