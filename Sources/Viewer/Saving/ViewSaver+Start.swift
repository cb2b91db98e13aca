#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Table

extension ViewSaver {
    /// What Ctrl-S to a path does.
    enum Start {
        /// Nothing typed.
        case nothing
        /// Not written, and why.
        case refused(String)
        /// The path holds a file: the user is asked first.
        case asksOverwrite(String)
        case started(ViewSaver)
    }

    /// Ctrl-S's input: writes `view` (its first `rowLimit` rows, the rows known now) to
    /// `text` (a path; `~/` is the home directory), as TSV when it ends in `.tsv`, else CSV,
    /// as `--output` writes the same view (a diff: daff's text, as `--diff --output`). An
    /// existing file is overwritten only when the user said so; the file being viewed, or
    /// any other open here as a table's input (`OpenInputs`), never is. A sheet leaves out
    /// the columns it only draws and writes whole the values it shows by their start
    /// (`sheetSaving`).
    static func start(to text: String, overwrite: Bool, view table: TableView, rowLimit: Int,
                      sheetSaving: SheetSaving?) -> Start {
        var path = text.trimmingSpaces
        if path.hasPrefix("~/"), let home = getenv("HOME") { path = String(cString: home) + path.dropFirst() }
        guard !path.isEmpty else { return .nothing }
        if table.file?.isInput(path) == true { return .refused("not written: that is the file being viewed") }
        if OpenInputs.contains(path: path) { return .refused("not written: that file is open here, the input of a table") }
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR { return .refused("not written: \(path) is a directory") }
            if !overwrite { return .asksOverwrite(path) }
        }
        if let file = table.file, file.dialect == nil { return .refused("nothing to write yet") }
        // What --output writes for the same view: the rows known now, in its order; a
        // diff's as daff's text, the `!` row first (`SavedRows`).
        guard var plan = ExportPlan(view: table, asOfNow: !table.source.isComplete, asSaved: true) else {
            return .refused("nothing to write yet")
        }
        plan.rowLimit = rowLimit
        if let drawn = sheetSaving?.drawnColumns, !drawn.isEmpty {
            plan.columns = (plan.columns ?? Array(0..<table.fileColumnCount)).filter { !drawn.contains($0) }
        }
        plan.wholeCells = sheetSaving?.wholeValues
        return .started(ViewSaver(plan, path: path, format: path.lowercased().hasSuffix(".tsv") ? .tsv : .csv,
                                  wake: table.source.wake))
    }

    /// What to say of this save now, and whether it is over. `soFar`: it was started while
    /// the input was still loading.
    func news(soFar: Bool) -> (message: String, isOver: Bool) {
        switch outcome {
        case .running(let rows, let total):
            return ("writing \(path)… \(Viewer.percent(Int64(rows), of: Int64(total)))%  (Esc cancels)", false)
        case .finished(let rows):
            return ("wrote \(Viewer.counted(rows, "row"))\(soFar ? " (the rows read so far)" : "") to \(path)", true)
        case .failed(let reason):
            return ("not written: " + reason, true)
        case .cancelled:
            return ("not written: cancelled", true)
        }
    }
}
