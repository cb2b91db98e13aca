import CellStore
import Table

/// The edits of a table and their undo history: what `e`, `a`, `A`, `x`, `U`, Ctrl-R and
/// Ctrl-S with edits do, and what quitting with edits asks.
struct EditSession {
    var history = UndoHistory()
    /// `q` was pressed once with unsaved edits: the next `q` quits without them.
    var isQuitArmed = false
    /// The user quit saying the edits go: no recovery file is left for them.
    var hasDroppedEdits = false
    /// The save of the edits running, if any.
    var saver: EditSaver?
}

extension Viewer {
    /// The edits not saved yet (0 for a sheet, or a file with none).
    public var unsavedEdits: Int { edits?.journal.count ?? 0 }

    /// True when the viewer quit with edits it was not told to drop (Ctrl-C, a signal):
    /// they are to be kept in a recovery file.
    public var keepsEditsOnExit: Bool { unsavedEdits > 0 && !editing.hasDroppedEdits }

    /// Where the cursor is, for the undo history.
    var cursorPlace: UndoHistory.Place {
        UndoHistory.Place(record: dataRowCount > 0 ? table.record(ofRow: cursorRow) : nil, column: cursorFileColumn)
    }

    // MARK: Commands

    /// `e`: the prompt for the cursor's cell's new value, with its value to change.
    func editCell() {
        guard let edits else {
            message = "only a file's records are edited here: this table is made from another"
            return
        }
        if let refusal = edits.cannotEdit {
            message = refusal.description
            return
        }
        guard dataRowCount > 0, let row = table.row(cursorRow) else {
            message = "no row to edit: a adds one"
            return
        }
        let record = table.record(ofRow: cursorRow), column = cursorFileColumn
        if edits.mark(record: record, column: -1) == .removed {
            message = "this record is deleted: U brings it back"
            return
        }
        if row.isClipped(column) {
            message = "this cell is longer than what is kept in memory: it is not edited here"
            return
        }
        let text = row.string(column)
        input.open(.edit(record: record, column: column, original: text), text: text)
    }

    /// The edit prompt's Enter: the cell gets the text typed (unchanged text keeps the
    /// cell's bytes as they are, invalid UTF-8 and all).
    func setCell(_ text: String, original: String, record: Int, column: Int) {
        guard text != original, let edits else { return }
        do {
            guard let step = try edits.settingCell(record: record, column: column, to: Array(text.utf8)) else { return }
            perform([step], on: edits, saying: nil)
        } catch {
            message = error.description
        }
    }

    /// `a` / `A`: an empty record after (or before) the cursor's.
    func addRecord(after: Bool) {
        guard let edits else {
            message = "only a file's records are edited here: this table is made from another"
            return
        }
        if table.isMapped {
            message = "records are added in the file's order: o and & Enter show it (U brings this view back)"
            return
        }
        do {
            let record = dataRowCount > 0 ? table.record(ofRow: cursorRow) : nil
            let step = try edits.addingRecord(near: record, after: after, columns: table.fileColumnCount,
                                              headerRows: options.headerRows)
            perform([step], on: edits, saying: "row added (e edits its cells, U takes it back)")
        } catch {
            message = error.description
        }
    }

    /// `x`: the cursor's record deleted (shown struck until the save).
    func deleteRecord() {
        guard let edits else {
            message = "only a file's records are edited here: this table is made from another"
            return
        }
        guard dataRowCount > 0 else { return }
        do {
            let step = try edits.deletingRecord(table.record(ofRow: cursorRow))
            perform([step], on: edits, saying: "row deleted when saved (U brings it back)")
        } catch {
            message = error.description
        }
    }

    /// Applies journal steps, keeps them in the history and shows their outcome.
    private func perform(_ steps: [EditStep], on edits: EditedRows, saying text: String?) {
        let before = cursorPlace
        edits.apply(steps)
        let after = UndoHistory.Place(record: target(of: steps.last, in: edits) ?? before.record, column: before.column)
        let dropped = editing.history.record(.edit(steps, before: before, after: after))
        showEdited(cursor: after)
        message = [text, dropped > 0 ? "undo history full: its oldest step was dropped" : nil].compactMap { $0 }.joined(separator: "; ")
        if message?.isEmpty == true { message = nil }
    }

    /// The record of the edited table a step leaves the cursor on.
    private func target(of step: EditStep?, in edits: EditedRows) -> Int? {
        switch step {
        case .add(let record, _, _)?: return edits.virtualRecord(ofAdded: record.id)
        case .changeAdded(let id, _, _)?: return edits.virtualRecord(ofAdded: id)
        case .change(let record, _, _)?, .delete(let record, _)?, .undelete(let record, _)?:
            return edits.virtualRecord(ofOriginal: record)
        case .remove?, nil: return nil
        }
    }

    /// After an edit: the rows on screen are read again, and the cursor goes to `place`.
    func showEdited(cursor place: UndoHistory.Place) {
        table.forgetFetchedRows()
        cells.forgetAll()
        search.forgetMatches()
        // Rows added or taken away renumber those after them: what was made from them is
        // made again (the source's generation), before the cursor is placed.
        takeReplacedRows()
        reconcile()
        if let record = place.record, let row = table.row(ofRecord: record) {
            moveCursor(toRow: row, column: table.columns.viewColumn(of: place.column) ?? cursorColumn)
        }
    }

    // MARK: Undo

    /// `U`: undoes the last change of the table or the view.
    func undo() {
        guard let step = editing.history.takeUndo() else {
            message = "nothing to undo"
            return
        }
        switch step {
        case .edit(let steps, let before, _):
            edits?.apply(steps, backwards: true)
            showEdited(cursor: before)
            message = "undone: " + Self.describe(steps) + "  (Ctrl-R redoes)"
        case .view(let before, _):
            restore(before)
            message = "undone: the change of view  (Ctrl-R redoes)"
        }
    }

    /// Ctrl-R: redoes what `U` undid last.
    func redo() {
        guard let step = editing.history.takeRedo() else {
            message = "nothing to redo"
            return
        }
        switch step {
        case .edit(let steps, _, let after):
            edits?.apply(steps)
            showEdited(cursor: after)
            message = "redone: " + Self.describe(steps)
        case .view(_, let after):
            restore(after)
            message = "redone: the change of view"
        }
    }

    /// What journal steps did, in a few words.
    static func describe(_ steps: [EditStep]) -> String {
        guard steps.count == 1, let step = steps.first else { return counted(steps.count, "edit") }
        switch step {
        case .change, .changeAdded: return "the cell's change"
        case .delete: return "the deletion"
        case .undelete: return "bringing back the deleted row"
        case .add: return "the added row"
        case .remove: return "taking away the added row"
        }
    }

    // MARK: Quitting

    /// `q`: quits, unless edits are unsaved: then it says so once, and the next `q` quits
    /// without them.
    func quit() {
        guard unsavedEdits > 0, !options.isSheet else {
            finish()
            return
        }
        if editing.isQuitArmed {
            editing.hasDroppedEdits = true
            finish()
            return
        }
        editing.isQuitArmed = true
        message = "\(Self.counted(unsavedEdits, "unsaved change")): Ctrl-S saves, q again quits without saving"
    }
}

extension Viewer {
    // MARK: Saving

    /// Ctrl-S with edits: the prompt for where to save them, the file read there already.
    func openSaveEdits() {
        if let saver = editing.saver {
            message = "already saving \(saver.path): Esc stops it"
            return
        }
        // A workbook's edits go to a new CSV file: nothing to offer.
        input.open(.saveEdits, text: edits?.store.format == .csv ? edits?.store.inputPath ?? "" : "")
    }

    /// Saves the edits to `text` (see `EditSaver.start`).
    func saveEdits(to text: String, overwrite: Bool) {
        guard let edits else { return }
        if let saver = editing.saver {
            message = "already saving \(saver.path): Esc stops it"
            return
        }
        switch EditSaver.start(to: text, overwrite: overwrite, edits: edits, savedRecord: savedCursorRecord()) {
        case .nothing: break
        case .refused(let reason): message = reason
        case .asksOverwrite(let path): input.open(.overwriteEdits(path))
        case .started(let saver):
            editing.saver = saver
            message = "saving \(saver.path)…  (Esc stops it; the edits stay)"
        }
    }

    /// The cursor's record as the saved file will number it (deleted records go).
    private func savedCursorRecord() -> Int? {
        guard let edits, dataRowCount > 0 else { return nil }
        let record = table.record(ofRow: cursorRow)
        let deletedBefore = edits.journal.deleted.keys.filter { edits.virtualRecord(ofOriginal: $0) < record }.count
        // On a deleted last record: the record before it, the saved file's last.
        let saved = edits.rowCount - edits.journal.deleted.count
        return max(0, min(record - deletedBefore, saved - 1))
    }

    /// Esc while the edits are saved: stops it; what to say (nil when none ran).
    func cancelEditSave() -> String? {
        guard let saver = editing.saver else { return nil }
        saver.cancel()
        saver.wait()
        editing.saver = nil
        return "not saved: stopped; the edits stay"
    }

    /// The save's progress or end, on news.
    func takeSaveNews() {
        guard let saver = editing.saver else { return }
        switch saver.outcome {
        case .waiting(let percent):
            message = "saving waits for the input to be read… \(percent)%  (Esc stops it; the edits stay)"
        case .writing(let percent):
            message = "saving \(saver.path)… \(percent)%  (Esc stops it; the edits stay)"
        case .saved:
            editing.saver = nil
            message = "saved \(unsavedEdits == 1 ? "1 edit" : "\(unsavedEdits) edits") to \(saver.path)"
            requests.reopen = (saver.path, saver.isInput, saver.savedRecord)
        case .failed(let reason):
            editing.saver = nil
            message = "not saved: \(reason); the edits stay"
        case .cancelled:
            editing.saver = nil
            message = "not saved: stopped; the edits stay"
        }
    }

    /// Writes the table with its unsaved edits to `path` (a new file) and waits for it:
    /// a session ended by a signal keeps them so. Nil when written, else why not.
    public func writeEditsForRecovery(to path: String) -> String? {
        guard let edits, unsavedEdits > 0 else { return nil }
        _ = cancelEditSave()
        return edits.save(to: path)
    }

    /// The unsaved edits as a journal to keep (`--recover` makes them again): nil for a
    /// table not read from a file, or whose file is no longer what the edits were made on.
    package func recoveryJournal() -> RecoveryJournal? {
        guard let edits, unsavedEdits > 0, edits.store.inputPath != nil,
              let fingerprint = edits.baseline ?? edits.store.fingerprintIfUnchanged() else { return nil }
        return RecoveryJournal(edits, fingerprint: fingerprint)
    }

    /// Keeps edits made again from a journal (`EditedRows.replay`, before this viewer was
    /// made) as one step of the undo history; what to say of them.
    package func noteRecovered(_ steps: [EditStep], from path: String) -> String {
        let place = cursorPlace
        if !steps.isEmpty { _ = editing.history.record(.edit(steps, before: place, after: place)) }
        showEdited(cursor: place)
        return "\(Self.counted(unsavedEdits, "unsaved edit")) recovered from \(path) (Ctrl-S saves them, U takes them back)"
    }

    /// After a save: the file to read instead of this table's, and the record to put the
    /// cursor on there; taken once by the event loop.
    public func takeReopen() -> (path: String, isInput: Bool, record: Int?)? {
        defer { requests.reopen = nil }
        return requests.reopen
    }

    /// Puts the cursor on record `record` (and view column `column`) once the rows read
    /// reach it, unless a key is pressed meanwhile (a saved file read again).
    public func awaitRecord(_ record: Int, column: Int) {
        navigation.awaited = (record, column)
        reconcile()
        goToAwaitedRecord()
    }
}
