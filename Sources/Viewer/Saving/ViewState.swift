import Query
import Scan
import Table

/// What the user did in a viewer, kept without the viewer: the freeze, the widths set, the
/// columns shown, the filters and sort, the last search and the cursor's record. A viewer
/// made again over the same input (after `R`, or a table shown again after it was put
/// away to bound memory) takes it back with `restore(_:)`.
///
/// It holds no rows and no store: a few hundred bytes, whatever the input.
public struct ViewState {
    var frozenDataRows: Range<Int>
    var requestedFrozenColumns: Int
    /// Widths the user set (the sample is taken again from the input).
    var layout: ColumnLayout
    var columns: ColumnMap
    var history: PromptHistory
    var filters: [RecordFilter]
    var sortKeys: [SortKey]
    var pattern: SearchPattern?
    var matcher: PatternMatcher?
    /// The cursor: its record in the source (nil with no rows), its view row and column.
    var record: Int?
    var cursorRow: Int
    var cursorColumn: Int
    /// The marked records, and whether only they show (`"`).
    var marks = MarkSet()
    var marksOnly = false
    /// The distribution band showed (`B`): it shows again, its pictures made anew.
    var showsBand = false
}

extension Viewer {
    /// What the user did here, to be taken back by another viewer of the same input.
    public func keptState() -> ViewState {
        var widths = ColumnLayout()
        widths.adopt(layout)
        return ViewState(frozenDataRows: frozenDataRows, requestedFrozenColumns: requestedFrozenColumns, layout: widths,
                         columns: table.columns, history: history, filters: query.filters, sortKeys: query.sortKeys,
                         pattern: search.pattern, matcher: search.matcher,
                         record: dataRowCount > 0 ? table.record(ofRow: cursorRow) : nil,
                         cursorRow: cursorRow, cursorColumn: cursorColumn, marks: table.marks, marksOnly: query.marksOnly,
                         showsBand: band.isOn)
    }

    /// Takes back what the user did in another viewer of the same input: the freeze,
    /// column widths, the columns shown, filters and sort (run again over this input), the
    /// last search, and the cursor's place, clamped to the rows there are now; when the
    /// input has not come that far yet, the cursor goes there when it does.
    public func restore(_ state: ViewState) {
        reconcile()
        let rows = max(0, dataRowCount)
        let upper = min(state.frozenDataRows.upperBound, max(0, rows - 1))
        navigation.freeze(rows: min(state.frozenDataRows.lowerBound, upper)..<upper, columns: state.requestedFrozenColumns)
        layout.adopt(state.layout)
        table.columns = state.columns
        history = state.history
        // Filters and sort run again over the new input.
        query.ask(filters: state.filters, sortKeys: state.sortKeys)
        table.marks = state.marks
        query.showMarksOnly(state.marksOnly)
        if !query.isEmpty { applyQuery(saying: nil) }
        // The last search stays (n and N go on with it), and its highlights.
        search.restore(pattern: state.pattern, matcher: state.matcher)
        if state.showsBand && !band.isOn && stack == nil {
            band.turnOn()
            followBand()
        }
        // The cursor on the same record, where it is still there.
        let record = state.record ?? 0
        reconcile()
        let row = table.row(ofRecord: record) ?? state.cursorRow
        moveCursor(toRow: row, column: state.cursorColumn)
        if (row > cursorRow || state.cursorColumn > cursorColumn) && !source.isComplete && !table.isMapped {
            navigation.awaited = (record, state.cursorColumn)
        }
    }
}
