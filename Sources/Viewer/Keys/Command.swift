import FreezeLayout
import Query

/// Everything that can change the viewer's state. Keys become commands through the
/// `InputInterpreter` and the `KeyMap`; `Viewer.handle(_:)` is the only place state changes.
public indirect enum Command: Sendable, Equatable, Hashable {
    case moveUp
    case moveDown
    case moveLeft
    case moveRight
    case pageUp
    case pageDown
    /// Half a screen, as Ctrl-D and Ctrl-U in less and vim.
    case halfPageUp
    case halfPageDown
    case firstColumn
    case lastColumn
    case firstRow
    case lastRow
    /// Scroll sideways by a few characters, like a pager, whatever the columns.
    case scrollLeft
    case scrollRight
    /// Freeze the rows above and the columns left of the cursor, or unfreeze if frozen.
    case toggleFreeze
    case unfreeze
    /// Read the file again from disk (for a file that changed).
    case reload
    /// Several tables open: show the next one (`}`), the previous one (`{`), the list of
    /// them (`T`), table `n` (from 0; Enter in that list). The event loop does it.
    case nextTable
    case previousTable
    case listTables
    case showTable(Int)
    /// Every table stacked in one scroll, or back to the table under the cursor (`S`).
    case toggleStack
    /// Open the prompt for a search with a regular expression (in every column, or the
    /// cursor's column only).
    case search
    case searchColumn
    /// Search forward from the cursor for a regular expression (a prompt's finished line).
    case find(String, columnOnly: Bool)
    /// Stop a search that is running.
    case cancelSearch
    case nextMatch
    case previousMatch
    /// Open the prompt to go to a row (a number) or a column (a name, or `#` and a number).
    case goTo
    /// Go to what was typed at that prompt.
    case goToTarget(String)
    /// Go to data row `n` (from 1), as `250G`.
    case goToRow(Int)
    /// Back to the record the cursor was on before the last jump or sort (`''`).
    case jumpBack
    /// `)` and `(`: the next or previous row a diff marks as changed, added or removed.
    case nextChange
    case previousChange
    /// `D`: a diff's old and new tables side by side, or back to one table.
    case toggleSideBySide
    /// A motion repeated, as `5j` (rows and columns move in one step, so a count of
    /// millions costs no more than one move).
    case repeated(Command, times: Int)
    /// A key in the inspector, the record view or the help screen.
    case pager(PagerCommand)
    /// Make the cursor's column narrower or wider by one cell; fit it to its content;
    /// switch it between its fitted width and its full width.
    case narrowColumn
    case widenColumn
    case fitColumn
    case toggleFullWidth
    /// Hide the cursor's column; show every column again; open the prompt for a pattern
    /// of column names to show; show the columns whose names match it; move the cursor's
    /// column one place left or right.
    case hideColumn
    case showAllColumns
    case chooseColumns
    case showColumns(matching: String)
    case moveColumnLeft
    case moveColumnRight
    /// Open the prompt for a filter on every column (`&`) or the cursor's (`|`); keep the
    /// rows that match (`!` first: that do not; nothing typed clears every filter).
    case filterPrompt
    case filterColumnPrompt
    case filter(String, columnOnly: Bool)
    /// Keep the rows whose cell in the cursor's column equals the cursor's cell (`@`).
    case filterToValue
    /// Sort by the cursor's column, replacing the sort or adding a key; the file's order.
    case sort(descending: Bool, adding: Bool)
    case fileOrder
    /// Stop a filter or sort that is running (the rows found so far stay).
    case cancelQuery
    /// Keep the rows whose cell in input column `column` is `value` (a frequency sheet's
    /// Enter).
    case keepValue(column: Int, value: [UInt8])
    /// Keep the rows whose cell in input column `column` reads as a value in `range` (a
    /// histogram's bin, Enter).
    case keepRange(column: Int, range: ValueRange)
    /// Open the frequency sheet of the cursor's column (`#`); the summary sheet (`I`).
    case frequency
    case summary
    /// The distribution band under the header, on or off (`B`).
    case toggleBand
    /// In a column's sheet: bins or exact values (`%`).
    case toggleBins
    /// Open the prompt for an SQL query over the table (`Q`); run one, its answer a sheet.
    case sqlPrompt
    case runSQL(String)
    /// Stop the statement of an answer on screen (the rows so far stay).
    case stopSQL
    /// Go to record `n` of the source, header records counted (an answer's rowid).
    case goToRecord(Int)
    /// Open the prompt for a path to write the view to (Ctrl-S); write it there.
    case saveView
    case saveTo(String, overwrite: Bool)
    /// Stop writing the view (nothing is left at its path).
    case cancelSave
    /// Open the prompt for the cursor's cell's new value (`e`); set it to what was typed
    /// there (the prompt's Enter; `original`: the text the prompt opened with, kept as the
    /// cell's bytes when nothing was changed).
    case editCell
    case setCell(String, record: Int, column: Int, original: String)
    /// Add an empty record after the cursor's (`a`) or before it (`A`).
    case addRecord(after: Bool)
    /// Delete the cursor's record (`x`): shown struck until the save, undoable.
    case deleteRecord
    /// Undo the last change of the table or the view (`U`); redo the last undone (Ctrl-R).
    case undo
    case redo
    /// Open the prompt for the path to save the edits to (Ctrl-S with edits); save them
    /// there (`overwrite`: the user said yes to replacing another file).
    case saveEdits
    case saveEditsTo(String, overwrite: Bool)
    /// Open the cursor's cell in the inspector (with `--echo`: choose it and quit).
    case inspect
    /// Show the cursor's record as a list.
    case recordView
    case help
    /// Copy the cursor's cell, or its row as CSV, to the clipboard (OSC 52).
    case copyCell
    case copyRow
    /// Mark or unmark the cursor's record (`m`); open the prompt for a pattern (`M`); mark
    /// every record of the view where a shown cell matches it (nothing typed: clear every
    /// mark); the next or previous marked record in the view's order (`` ` ``, `~`); keep
    /// only the marked records, or all again (`"`).
    case toggleMark
    case markPrompt
    case markMatching(String)
    case nextMark
    case previousMark
    case toggleMarkedOnly
    /// Forget the view restored from the last session, or made since: every record in the
    /// file's order, every column, no freeze, no mark (Esc Esc).
    case startClean
    /// A mouse wheel or button.
    case mouse(MouseEvent)
    /// The terminal has a new size.
    case resize(Size)
    /// The input has news (more rows, progress, the end).
    case refresh
    /// One animation frame (the spring-back after a bounce).
    case tick
    case quit
}
