import FreezeLayout
import Query
import Table

extension Viewer {
    /// The view as it is now, with the passes that made its rows.
    func viewMoment() -> ViewMoment {
        ViewMoment(query: query.shown, filters: query.filters, sortKeys: query.sortKeys, sorted: query.sorted,
                   filtered: query.filtered, columns: table.columns, widths: layout,
                   frozenRows: frozenDataRows, frozenColumns: requestedFrozenColumns)
    }

    /// True for a command that may change how the table looks: filters, sort, columns,
    /// widths, freeze (VisiData's rule: undoable, by the state before it).
    static func changesView(_ command: Command) -> Bool {
        switch command {
        case .filter, .filterToValue, .keepValue, .sort, .fileOrder, .hideColumn, .showAllColumns, .showColumns,
             .moveColumnLeft, .moveColumnRight, .narrowColumn, .widenColumn, .fitColumn, .toggleFullWidth,
             .toggleFreeze, .unfreeze:
            return true
        default: return false
        }
    }

    /// Keeps the change from `before` to the view now in the undo history, if it changed.
    func noteViewChange(from before: ViewMoment) {
        let after = viewMoment()
        guard !before.looksLike(after) else { return }
        if editing.history.record(.view(before: before, after: after)) > 0 {
            message = [message, "undo history full: its oldest step was dropped"].compactMap { $0 }.joined(separator: "; ")
        }
    }

    /// Puts a kept view back: its passes' rows at once (not made again), its columns,
    /// widths and freeze; the cursor stays on its record where it shows.
    func restore(_ moment: ViewMoment) {
        query.ask(filters: moment.filters, sortKeys: moment.sortKeys)
        // A pass that was stopped before it was done is made again; the others are kept.
        // (A filter is stopped whenever the filters change: one not done then never is.)
        let stopped = moment.sorted?.phase == .cancelled || (moment.filtered.map { !$0.isComplete } ?? false)
        if query.sorted !== moment.sorted { query.sorted?.cancel() }
        if query.filtered !== moment.filtered { query.filtered?.cancel() }
        if stopped || (moment.sorted.map { $0.patch.id != file?.patch.id } ?? false)
            || (moment.filtered.map { $0.patch.id != file?.patch.id } ?? false) {
            query.adopt(sorted: nil, filtered: nil)
            query.land(.record)
            applyQuery(saying: nil)
        } else {
            query.adopt(sorted: moment.sorted, filtered: moment.filtered)
            // A moment noted as its passes started shows them once they are done (what was
            // on screen then is older than they are).
            let done = (moment.sorted?.isComplete ?? true) && (moment.filtered?.isComplete ?? true)
            query.show(done ? ViewQuery.Made(filters: moment.filters, sortKeys: moment.sortKeys, sorted: moment.sorted,
                                             filtered: moment.filtered) : moment.query)
        }
        layout.adopt(moment.widths)
        show(rows: query.shown.filtered ?? query.shown.sorted, columns: moment.columns)
        navigation.freeze(rows: moment.frozenRows, columns: moment.frozenColumns)
        navigation.revealAfterReconcile()
    }
}

extension Viewer {
    /// True while a sort or a filter of the view is still being made, or made and not yet
    /// shown: what a measure of undoing one waits for.
    package var isViewBeingMade: Bool { query.isRunning || query.isPending }
}
