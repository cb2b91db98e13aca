#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Table

extension Viewer {
    // MARK: Writing the view to a file

    /// Ctrl-S's input: writes the view to `text` (a path; `~/` is the home directory), as
    /// TSV when it ends in `.tsv`, else CSV. An existing file is overwritten only when
    /// the user said so; the file being viewed never is.
    func save(to text: String, overwrite: Bool) {
        var path = text.trimmingSpaces
        if path.hasPrefix("~/"), let home = getenv("HOME") { path = String(cString: home) + path.dropFirst() }
        guard !path.isEmpty else { return }
        guard saving == nil else {
            message = "already writing \(saving!.path): Esc cancels it"
            return
        }
        if file?.isInput(path) == true {
            message = "not written: that is the file being viewed"
            return
        }
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                message = "not written: \(path) is a directory"
                return
            }
            if !overwrite {
                input.open(.overwrite(path))
                return
            }
        }
        if let file, file.dialect == nil {
            message = "nothing to write yet"
            return
        }
        // What --output writes for the same view: the rows known now, in its order.
        guard var plan = ExportPlan(view: table, asOfNow: !source.isComplete) else {
            message = "nothing to write yet"
            return
        }
        plan.rowLimit = dataRowCount
        if let drawn = options.sheetSaving?.drawnColumns, !drawn.isEmpty {
            plan.columns = (plan.columns ?? Array(0..<table.fileColumnCount)).filter { !drawn.contains($0) }
        }
        plan.emptiedFirstCells = options.sheetSaving?.emptyValueRecords ?? []
        saving = ViewSaver(plan, path: path, format: path.lowercased().hasSuffix(".tsv") ? .tsv : .csv, wake: source.wake)
        savedWhileLoading = !source.isComplete
        message = "writing \(path)…  (Esc cancels)"
    }

    /// Takes a save's progress or end (on news from the background).
    func collectSave() {
        guard let saver = saving else { return }
        switch saver.outcome {
        case .running(let rows, let total):
            let percent = Self.percent(Int64(rows), of: Int64(total))
            message = "writing \(saver.path)… \(percent)%  (Esc cancels)"
        case .finished(let rows):
            saving = nil
            let sofar = savedWhileLoading ? " (the rows read so far)" : ""
            message = "wrote \(Self.counted(rows, "row"))\(sofar) to \(saver.path)"
        case .failed(let reason):
            saving = nil
            message = "not written: " + reason
        case .cancelled:
            saving = nil
            message = "not written: cancelled"
        }
    }

    /// Stops a save that is running; nothing is left at its path.
    func cancelSave() {
        guard let saver = saving else { return }
        saver.cancel()
        saver.wait()
        saving = nil
        message = "not written: cancelled"
    }

    /// True while the view is being written (the loop keeps collecting it).
    public var isSaving: Bool { saving != nil }
}
