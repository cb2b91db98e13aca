import FreezeLayout
import Scan

/// Where the user is: the cursor, the freeze, and the spring-back's pause. Everything
/// else about rows (the first row main shows) is derived from these.
struct Navigation {
    /// The cursor: a view row (0 is the first data row shown) and a view column.
    var cursorRow = 0
    var cursorColumn = 0
    /// Data rows frozen under the header rows by `F` (empty unless frozen that way).
    var frozenDataRows: Range<Int> = 0..<0
    /// Frozen columns asked for (`-c`, or `F`); the layout says what fits.
    var requestedFrozenColumns: Int
    /// Header rows that do not fit in the band on top: they scroll at the top of main,
    /// above the first data row (derived in `sync`).
    var scrollingHeaderRows = 0
    /// Data rows known at the last sync (to tell whether the cursor was on the last row).
    var knownDataRows = 0
    /// Animation frames to wait before the spring-back starts.
    var holdFrames = 0
    /// After `R`, the record and column the cursor was on, when the input read again has
    /// not come that far yet (compressed input is read from its start): the cursor goes
    /// there when they come, unless a key is pressed first.
    var awaited: (record: Int, column: Int)?
    /// The record and input column the cursor was on before the last jump (`''` goes back).
    var jumpedFrom: (record: Int, column: Int)?
}

/// The last search, its matcher, the one running in the background, and which cells on
/// screen match.
struct SearchSession {
    var pattern: SearchPattern?
    var matcher: PatternMatcher?
    var matchCache: [Int: Bool] = [:]
    /// The search running in the background, if any (dropping it cancels and joins it).
    var searcher: Searcher?
    /// Data rows a search could look at when the input was still loading (nil: all).
    var searchedRows: Int?
    /// Matches still to step over after the one running (`3n` runs one search, then two more).
    var stepsLeft = 0
    /// Whether a step of a counted search wrapped around.
    var hasWrapped = false
    /// Whether the place before this search's first match was kept for `''`.
    var hasMarkedJump = false
}

/// What the viewer asks of the event loop, which takes it.
struct Requests {
    /// The user asked to quit.
    var isFinished = false
    /// The user asked to read the file again: the loop opens a new store and a new viewer.
    var wantsReload = false
    /// Bytes to put on the clipboard.
    var clipboard: [UInt8]?
    /// What `--echo` prints once the viewer has finished.
    var chosen: Choice?
    /// The view being written to a file (Ctrl-S), and whether the input was still loading.
    var saving: ViewSaver?
    var savedWhileLoading = false
    /// A sheet to push over this viewer (a frequency or summary sheet).
    var sheet: SheetSource?
    /// Another of the open tables to show (`}`, `{`, `T`, Enter in the list of tables).
    var table: TableRequest?
}

/// The parts' fields, under the names the viewer's code uses.
extension Viewer {
    public internal(set) var cursorRow: Int {
        get { navigation.cursorRow }
        set { navigation.cursorRow = newValue }
    }
    public internal(set) var cursorColumn: Int {
        get { navigation.cursorColumn }
        set { navigation.cursorColumn = newValue }
    }
    /// Data rows frozen under the header rows by `F` (empty unless frozen that way).
    public internal(set) var frozenDataRows: Range<Int> {
        get { navigation.frozenDataRows }
        set { navigation.frozenDataRows = newValue }
    }
    /// The first data row main shows (rows above it are frozen or out of view): derived
    /// from the freeze, so the two cannot disagree.
    public var mainFirstRow: Int { frozenDataRows.upperBound }
    var requestedFrozenColumns: Int {
        get { navigation.requestedFrozenColumns }
        set { navigation.requestedFrozenColumns = newValue }
    }
    public internal(set) var scrollingHeaderRows: Int {
        get { navigation.scrollingHeaderRows }
        set { navigation.scrollingHeaderRows = newValue }
    }
    var knownDataRows: Int {
        get { navigation.knownDataRows }
        set { navigation.knownDataRows = newValue }
    }
    var holdFrames: Int {
        get { navigation.holdFrames }
        set { navigation.holdFrames = newValue }
    }

    /// Column widths in use, by view column (text only, without separators).
    public var columnWidths: [Int] { layout.widths }
    /// Frozen columns that fit on this screen (the rest of the freeze is dropped).
    public var frozenColumns: Int { layout.frozenColumns }
    var leftMetrics: ColumnMetrics { layout.left }
    var mainMetrics: ColumnMetrics { layout.main }
    var layoutGeneration: Int { layout.generation }

    /// Earlier entries at the prompts (Up and Down walk them).
    public var history: PromptHistory {
        get { input.history }
        set { input.history = newValue }
    }

    /// True once the user asked to quit.
    public internal(set) var isFinished: Bool {
        get { requests.isFinished }
        set { requests.isFinished = newValue }
    }
    /// True once the user asked to read the file again.
    public internal(set) var wantsReload: Bool {
        get { requests.wantsReload }
        set { requests.wantsReload = newValue }
    }
    public internal(set) var clipboard: [UInt8]? {
        get { requests.clipboard }
        set { requests.clipboard = newValue }
    }
    /// What `--echo` prints once the viewer has finished.
    public internal(set) var chosen: Choice? {
        get { requests.chosen }
        set { requests.chosen = newValue }
    }
    var saving: ViewSaver? {
        get { requests.saving }
        set { requests.saving = newValue }
    }
    var savedWhileLoading: Bool {
        get { requests.savedWhileLoading }
        set { requests.savedWhileLoading = newValue }
    }
}
