import Export
import FreezeLayout

/// What the command line chose for the viewer.
public struct ViewerOptions: Sendable, Equatable {
    /// Records at the top that are headers, kept on screen (the frozen rows).
    public var headerRows: Int
    /// Columns on the left kept on screen while the rest scrolls.
    public var frozenColumns: Int
    /// Whether the left band shows row numbers.
    public var showsRowNumbers: Bool
    /// What happens when the grid is pushed past an edge.
    public var bounce: BounceStyle
    /// Whether the scroll position is shown at main's right edge and in the status line.
    public var showsIndicators: Bool
    /// Whether the status line shows the reuse pool's counters.
    public var showsDebugStats: Bool
    /// Whether the input is followed as it grows; the cursor then stays on the last row
    /// when it was there.
    public var follows: Bool
    /// With `--echo`: Enter chooses the cursor's cell, row or column and quits.
    public var echo: EchoMode?
    /// A sheet over the table (a frequency or summary sheet): Enter chooses the row, and
    /// Esc or q goes back.
    public var isSheet = false
    /// A sheet whose file (Ctrl-S) is not what it shows: see `SheetSaving`.
    public var sheetSaving: SheetSaving?
    /// Input columns whose empty cells show a label, drawn dim and italic as made header
    /// names are, so it never passes for data (a frequency sheet's empty value: `(empty)`).
    /// The cell stays empty for everything else: search, filters, sort, Ctrl-S.
    public var emptyCellLabels: [Int: String] = [:]
    /// Which of several open tables this is (`2/3`), said after its name on the status line.
    public var place: String?
    /// Whether the distribution band shows under the header from the start (`--band`).
    public var showsBand = false
    /// Whether the terminal draws the eight block levels (else the band uses ASCII levels).
    public var drawsBlocks = true
    /// A column's sheet that `%` switches between bins and exact values.
    public var switchesBins = false

    public init(headerRows: Int = 1, frozenColumns: Int = 0, showsRowNumbers: Bool = true,
                bounce: BounceStyle = .all, showsIndicators: Bool = true, showsDebugStats: Bool = false,
                follows: Bool = false, echo: EchoMode? = nil) {
        self.follows = follows
        self.echo = echo
        self.headerRows = max(0, headerRows)
        self.frozenColumns = max(0, frozenColumns)
        self.showsRowNumbers = showsRowNumbers
        self.bounce = bounce
        self.showsIndicators = showsIndicators
        self.showsDebugStats = showsDebugStats
    }
}

/// What Ctrl-S writes of a sheet where that differs from what the sheet shows: a frequency
/// sheet writes what `--frequency --output csv` writes, so the same question gives the same
/// file from the screen and from a script.
public struct SheetSaving: Sendable, Equatable {
    /// Columns drawn for reading only (the frequency sheet's bar), left out of the file.
    public var drawnColumns: Set<Int>
    /// Values shown by their start (over 1 MiB), written whole, read again from the input.
    package var wholeValues: WholeCells?

    package init(drawnColumns: Set<Int>, wholeValues: WholeCells? = nil) {
        self.drawnColumns = drawnColumns
        self.wholeValues = wholeValues
    }
}
