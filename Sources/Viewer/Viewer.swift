import CellStore
import FreezeLayout
import Scan
import Table

/// The viewer's state and its one entry point for change, `handle(_:)`.
///
/// It reads rows from a `RowSource` (a file, or a sheet's rows in memory), keeps the
/// cursor and the frozen-pane geometry, and composes a `Frame` for the terminal (see
/// `Viewer+Frame.swift`). It never touches a terminal or a clock, so tests drive it with
/// commands (`.tick` is one animation frame) and read the frame as text.
public final class Viewer {
    /// The view over the source: which records and columns show, in which order. Every
    /// read of cells goes through it.
    public let table: TableView
    /// Where the rows come from.
    public var source: any RowSource { table.source }
    /// The file behind the rows, for what only a file has (loading, reload, the preamble,
    /// the dialect); nil for a sheet.
    public var file: CellStore? { table.file }
    /// The stacked tables, when this viewer shows them (see `Viewer+Stack`); kept, not
    /// cast, because drawing asks for each cell it lays out.
    package let stack: StackRows?
    /// The file's rows with the user's edits, when this viewer shows a file.
    package let edits: EditedRows?
    public private(set) var options: ViewerOptions
    /// The terminal's size (the grid is this less the status line).
    public private(set) var screenSize: Size
    /// The cursor, the freeze, the scroll and the spring-back's pause: the only writer of
    /// the cursor and the freeze.
    var navigation: Navigation
    /// The columns' widths and metrics.
    var layout = ColumnLayout()
    /// The last search, the one running, and matches found on screen.
    var search = SearchSession()
    /// The filters and sort in force, and the passes that make their rows.
    var query = ViewQuery()
    /// Input in progress (a count, a key sequence, a prompt's line) and earlier entries.
    var input = InputInterpreter()
    /// Ctrl-S's write of the view, while it runs.
    var saving = SaveSession()
    /// The edits' undo history, the save of the edits, and quitting with edits.
    var editing = EditSession()
    /// The inspector, the record view and the help screen over the grid.
    var panes = Panes()
    /// The grid, or a pane over it.
    public var mode: Mode { panes.mode }
    /// A one-shot message for the status line, cleared by the next command.
    public internal(set) var message: String?
    /// What the viewer asks of the event loop: to end, to reload, to copy, what was chosen.
    var requests = Requests()
    /// Cells on screen and the pool they are recycled through.
    var cells = CellCache()
    /// A diff's old and new tables next to each other (`D`), when the screen is wide enough.
    var sideBySide = SideBySide()
    /// The distribution band under the header (`B`) and its pass.
    var band = BandSession()
    /// Whether the source was complete at the last reconcile (the status line's `+`).
    var laidOutComplete = false
    /// The loader's progress at the last reconcile (what the status line says of it).
    var laidOutProgress: LoadProgress?
    /// The cursor's record at the last reconcile while the rows are ones a session kept:
    /// where the cursor goes back to when they are found damaged (then read as no record).
    var keptCursorRecord: Int?

    /// Lines scrolled by one wheel step.
    static let wheelRows = 3

    /// A viewer over `source`; a source that brings its own header rows (a sheet) has
    /// them whatever `options` says.
    public init(source: any RowSource, options given: ViewerOptions = ViewerOptions(), screenSize: Size) {
        var options = given
        if let headerRows = source.headerRows { options.headerRows = headerRows }
        self.table = TableView(source: source, headerRows: options.headerRows)
        stack = source as? StackRows
        edits = source as? EditedRows
        self.options = options
        self.screenSize = screenSize
        let window = FreezeWindow(bounds: .zero, leftWidth: 0, headerHeight: 0, contentSize: .zero, bounce: options.bounce)
        self.navigation = Navigation(window: window, requestedFrozenColumns: options.frozenColumns)
        // The stacked view mixes tables' header records into its rows: no band there.
        if options.showsBand && stack == nil { band.turnOn() }
        if options.showsBand && stack != nil { message = Self.bandInStack }
        reconcile()
        if scrollingHeaderRows > 0 { navigation.revealCursor() }
        noteScrollingHeaderRows()
    }

    /// Said when the band is asked for (`--band`, `band = on`) over stacked tables.
    static let bandInStack = "the band works in one table: S leaves the stack"

    /// A viewer over a file, which the user may edit (its rows are an `EditedRows`).
    public convenience init(store: CellStore, options: ViewerOptions = ViewerOptions(), screenSize: Size) {
        self.init(source: EditedRows(store: store), options: options, screenSize: screenSize)
    }

    /// Rows of data (records after the header rows) known so far.
    public var dataRowCount: Int { table.dataRowCount }
    /// Columns known so far.
    public var columnCount: Int { table.columnCount }
    /// The record number in the source of data row `row`.
    func record(ofDataRow row: Int) -> Int { table.record(ofRow: row) }
    /// The input column under the cursor.
    var cursorFileColumn: Int { table.fileColumn(cursorColumn) }
    /// True while something moves on its own (the spring-back): the loop then sends `.tick`.
    public var isAnimating: Bool { window.isOverscrolled }
    /// The reuse pool's counters, for `--debug-stats` and tests.
    public var cellStatistics: CellCache.Statistics { cells.statistics }

    /// Applies one command.
    public func handle(_ command: Command) {
        // News from the input, and a new size, are not answers to the message: it stays.
        if case .resize = command {} else if command != .refresh && command != .tick {
            message = nil
            // A key of the user's own: the cursor no longer waits for its record after `R`.
            navigation.awaited = nil
            // Quitting with unsaved edits asks twice in a row.
            if command != .quit { editing.isQuitArmed = false }
        }
        // Whatever the command did, the geometry is brought up to date here, once, so that
        // drawing only reads. A command acts on the geometry the last frame was drawn from:
        // only one that changes it and then reads it reconciles on its way.
        defer { reconcile() }
        // A change of view is kept for `U` (run before the reconcile above, which reads none of it).
        let viewBefore = Self.changesView(command) ? viewMoment() : nil
        defer { if let viewBefore { noteViewChange(from: viewBefore) } }
        if refusedInStack(command) || navigation.perform(command) { return }
        switch command {
        case .moveDown, .moveUp, .moveRight, .moveLeft, .firstColumn, .lastColumn, .scrollLeft, .scrollRight, .tick,
             .pageDown, .pageUp, .halfPageDown, .halfPageUp:
            break   // the navigation's own, performed above
        case .firstRow:
            markJump()
            navigation.move(toRow: mainFirstRow, edge: .zero)
            navigation.showPreamble()
        case .lastRow:
            markJump()
            if let note = file?.reachEnd(screenHeight: screenSize.height, follows: options.follows, knownRows: dataRowCount) {
                message = note
            }
            // The rows known now, found by the jump or read since the last frame.
            reconcile()
            navigation.move(toRow: dataRowCount - 1, edge: .zero)
        case .toggleFreeze:
            if isFrozen { unfreeze() } else { freezeAtCursor() }
        case .unfreeze: unfreeze()
        case .mouse(let event): handleMouse(event)
        case .toggleBand: toggleBand()
        case .toggleBins: toggleBins()
        case .resize(let size):
            screenSize = size
            navigation.settle()
            navigation.revealAfterReconcile()
            reconcile()
            noteScrollingHeaderRows()
        case .refresh:
            source.takeNews()
            band.takeNews()
            // A followed file with no rows yet (new, or just truncated) follows its end too.
            let wasOnLastRow = options.follows && cursorRow == max(0, knownDataRows - 1)
            // News: the rows that came are taken in before anything acts on them.
            reconcile()
            takeReplacedRows()
            collectSearch()
            saving.takeNews(into: &message)
            takeSaveNews()
            collectQuery()
            if let shift = file?.settleEstimate() {
                // The index caught up with rows shown under estimated numbers: the same rows
                // stay on the same lines, only their numbers change.
                let top = window.offset.y
                navigation.shiftCursor(by: shift)
                reconcile()
                navigation.scroll(toLine: top + shift)
                if message?.hasPrefix("≈") == true { message = nil }
            }
            goToAwaitedRecord()
            // Said after G while loading: untrue once everything is read.
            if source.isComplete && message?.hasPrefix("still loading: ") == true { message = nil }
            if wasOnLastRow && dataRowCount - 1 > cursorRow {
                moveCursor(toRow: dataRowCount - 1, column: cursorColumn)
            }
        case .reload: message = requests.askReload(of: source, isSheet: options.isSheet)
        case .nextTable: if !moveToSection(forward: true) { requests.table = .next }
        case .previousTable: if !moveToSection(forward: false) { requests.table = .previous }
        case .listTables: requests.table = .list
        case .showTable(let index): requests.table = .show(index)
        case .toggleStack: requests.table = .stack
        case .search: input.open(.search(columnOnly: false))
        case .searchColumn: input.open(.search(columnOnly: true))
        case .find(let text, let columnOnly):
            history.add(text, for: .search(columnOnly: columnOnly))
            startSearch(text, columnOnly: columnOnly)
        case .cancelSearch: cancelSearch()
        case .nextMatch: runSearch(forward: true)
        case .previousMatch: runSearch(forward: false)
        case .goTo: input.open(.goTo)
        case .goToTarget(let text):
            history.add(text, for: .goTo)
            markJump()
            goTo(text)
        case .goToRow(let number):
            markJump()
            goToRow(number)
        case .jumpBack: jumpBack()
        case .toggleSideBySide: toggleSideBySide()
        case .nextChange: goToChange(forward: true)
        case .previousChange: goToChange(forward: false)
        case .repeated(let command, let times): handle(command, times: times)
        case .pager(let command): applyPager(command)
        case .hideColumn: apply(ColumnChoice.hiding(cursorColumn, in: table))
        case .showAllColumns: apply(ColumnChoice.all(in: table))
        case .chooseColumns: input.open(.columns)
        case .showColumns(let text):
            history.add(text, for: .columns)
            apply(ColumnChoice.matching(text, in: table))
        case .filterPrompt: input.open(.filter(columnOnly: false))
        case .filterColumnPrompt: input.open(.filter(columnOnly: true))
        case .filter(let text, let columnOnly):
            history.add(text, for: .filter(columnOnly: columnOnly))
            addFilter(text, column: columnOnly ? cursorFileColumn : nil)
        case .filterToValue: filterToCursorValue()
        case .sort(let descending, let adding): sortByCursorColumn(descending: descending, adding: adding)
        case .fileOrder: unsort()
        case .cancelQuery: cancelQuery()
        case .keepValue(let column, let value): keep(value: value, column: column)
        case .frequency: openColumnSheet(of: cursorFileColumn)
        case .keepRange(let column, let range): keep(range: range, column: column)
        case .summary: openSummary()
        case .sqlPrompt: openSQLPrompt()
        case .runSQL(let text):
            history.add(text, for: .sql)
            runSQL(text)
        case .stopSQL: stopSQL()
        case .goToRecord(let record): goToRecord(record)
        case .saveView:
            if unsavedEdits > 0 { openSaveEdits() } else { input.open(.save) }
        case .saveTo(let path, let overwrite):
            if !overwrite { history.add(path, for: .save) }
            save(to: path, overwrite: overwrite)
        case .cancelSave:
            message = cancelEditSave() ?? saving.cancel() ?? "not written"
        case .saveEdits: openSaveEdits()
        case .saveEditsTo(let path, let overwrite):
            if !overwrite { history.add(path, for: .saveEdits) }
            saveEdits(to: path, overwrite: overwrite)
        case .editCell: editCell()
        case .setCell(let text, let record, let column, let original):
            setCell(text, original: original, record: record, column: column)
        case .addRecord(let after): addRecord(after: after)
        case .deleteRecord: deleteRecord()
        case .undo: undo()
        case .redo: redo()
        case .moveColumnLeft: moveColumn(by: -1)
        case .moveColumnRight: moveColumn(by: 1)
        case .narrowColumn, .widenColumn, .fitColumn, .toggleFullWidth: resizeColumn(command)
        case .inspect: if isCursorOnBand { openBandColumn() } else { inspectOrChoose() }
        case .recordView: openRecordView()
        case .help: panes.openHelp()
        case .copyCell: copy(row: false)
        case .copyRow: copy(row: true)
        case .toggleMark: toggleMark()
        case .markPrompt: input.open(.mark)
        case .markMatching(let text):
            if !text.isEmpty { history.add(text, for: .mark) }
            markMatching(text)
        case .nextMark: goToMark(forward: true)
        case .previousMark: goToMark(forward: false)
        case .toggleMarkedOnly: toggleMarkedOnly()
        case .startClean: startClean()
        case .quit: quit()
        }
    }

    /// Ends the session (the event loop stops).
    package func finish() {
        cancelSearch()
        requests.isFinished = true
    }

    /// What Ctrl-S of a sheet writes otherwise than it shows (it changes as the sheet fills).
    func setSheetSaving(_ saving: SheetSaving?) { options.sheetSaving = saving }

    /// Lets `%` switch this sheet to its other form (bins, or exact values).
    func allowSheetSwitch() { options.switchesBins = true }

    /// The record of the sheet's row Enter was pressed on, once: the loop asks the
    /// sheet what it means for the one below (`SheetSource.choose(record:)`).
    public func takeSheetRecord() -> Int? {
        defer { requests.sheetRecord = nil }
        return requests.sheetRecord
    }

    /// The bytes to copy, once: the event loop sends them to the terminal.
    public func takeClipboard() -> [UInt8]? {
        defer { requests.clipboard = nil }
        return clipboard
    }

    /// Applies the command that `key` finishes (see `InputInterpreter`); returns whether
    /// the key meant anything.
    @discardableResult
    public func handle(key: Key) -> Bool {
        // While a search runs, keys wait for it (`n$`: the cursor goes to the match, then
        // to its last column); Esc stops it and Ctrl-C quits at once, and so does the
        // grid's `q` (not one held behind keys that may open a prompt, where it is text).
        if isSearching && key != .escape && key != Key.control("c") && !quitsAtOnce(key) {
            if !input.hold(key) {
                message = "keys typed during the search were left out: it is still running  (Esc stops it)"
            }
            return true
        }
        // A prompt for what the stacked view does not do is not opened, but said so, at
        // the key; what is typed next for it (a path, a pattern) is taken until Enter or
        // Esc, so that none of it runs as keys.
        if stack != nil, mode == .grid, input.prompt == nil, case .command(let command) = KeyMap.match([key]),
           let why = StackSections.refusal(of: command, atKey: true) {
            input.open(.refused(why))
            return true
        }
        let hadCount = input.count != nil
        if mode != .grid || input.prompt != nil { message = nil }
        let outcome = input.interpret(key, context: mode == .grid ? .grid(escape: escapeCommand) : .pane)
        // A count that was used up (or given up) says nothing more.
        if hadCount && input.count == nil { message = nil }
        switch outcome {
        case .commands(let commands):
            for command in commands { handle(command) }
            return true
        case .pending(let text):
            if let text { message = text }
            return true
        case .unbound:
            return false
        }
    }

    /// True when `key` is the grid's quit with nothing typed before it: no prompt, count
    /// or sequence under way, no key held.
    private func quitsAtOnce(_ key: Key) -> Bool {
        guard mode == .grid, input.isIdle, case .command(.quit) = KeyMap.match([key]) else { return false }
        return true
    }

    /// Applies the keys held while a search ran, until one starts another search.
    func releaseHeldKeys() {
        while !isSearching && !input.held.isEmpty {
            handle(key: input.held.removeFirst())
        }
    }

    /// The line being typed at a prompt, if one is open.
    var promptLine: PromptLine? { input.prompt?.line }

    /// A command with a count: a motion repeats (see `Navigation.perform`); anything
    /// else runs once.
    private func handle(_ command: Command, times count: Int) {
        if navigation.perform(command, times: count) { return }
        switch command {
        case .nextChange, .previousChange:
            goToChange(forward: command == .nextChange, times: count)
        case .nextMark, .previousMark:
            goToMark(forward: command == .nextMark, times: count)
        case .nextMatch, .previousMatch:
            // One search at a time: each next one starts from the match before it.
            handle(command)
            if isSearching { search.step(over: count - 1) }
        default:
            handle(command)
        }
    }

    /// Gives up a reload that could not be done, saying why.
    public func cancelReload(because reason: String) {
        requests.wantsReload = false
        message = "cannot reload: " + reason
    }

    /// True while `F` (or `-c`) has frozen something: columns, or rows that main starts
    /// below (the freeze may hold no row and still hide the rows above the cursor).
    var isFrozen: Bool { frozenColumns > 0 || requestedFrozenColumns > 0 || mainFirstRow > 0 }

    /// Takes over what the user did in `previous` (a viewer of the same file before `R`):
    /// the freeze, column widths, and the cursor's place, clamped to the rows there are now.
    public func adopt(_ previous: Viewer) { restore(previous.keptState()) }

    /// Puts the cursor on the record (and column) it was on before `R` once the rows read
    /// again reach it, unless a key was pressed meanwhile.
    func goToAwaitedRecord() {
        guard let awaited = navigation.awaited else { return }
        if let row = table.row(ofRecord: awaited.record), row < dataRowCount, awaited.column < columnCount {
            navigation.awaited = nil
            moveCursor(toRow: row, column: awaited.column)
        } else if source.isComplete {
            navigation.awaited = nil
        }
    }

    /// Puts the cursor on a cell (after a reload, where it was before), scrolling to it.
    public func moveCursor(toRow row: Int, column: Int) {
        takeInRows(upTo: row)
        navigation.go(toRow: row, column: column)
    }
}
