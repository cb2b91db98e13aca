import FreezeLayout
import Scan

/// The parts' fields, under the names the viewer's code uses.
extension Viewer {
    public var cursorRow: Int { navigation.cursorRow }
    public var cursorColumn: Int { navigation.cursorColumn }
    /// Data rows frozen under the header rows by `F` (empty unless frozen that way).
    public var frozenDataRows: Range<Int> { navigation.frozenDataRows }
    /// The first data row main shows (rows above it are frozen or out of view): derived
    /// from the freeze, so the two cannot disagree.
    public var mainFirstRow: Int { navigation.mainFirstRow }
    var requestedFrozenColumns: Int { navigation.requestedFrozenColumns }
    public var scrollingHeaderRows: Int { navigation.scrollingHeaderRows }
    /// Data rows known at the last reconcile (to tell whether the cursor was on the last row).
    var knownDataRows: Int { navigation.extent.rows }
    /// The frozen-pane geometry and main's offset.
    public var window: FreezeWindow { navigation.window }

    /// Column widths in use, by view column (text only, without separators).
    public var columnWidths: [Int] { layout.widths }
    /// Frozen columns that fit on this screen (the rest of the freeze is dropped).
    public var frozenColumns: Int { layout.frozenColumns }

    /// Earlier entries at the prompts (Up and Down walk them).
    public var history: PromptHistory {
        get { input.history }
        set { input.history = newValue }
    }

    /// True once the user asked to quit.
    public var isFinished: Bool { requests.isFinished }
    /// True once the user asked to read the file again.
    public var wantsReload: Bool { requests.wantsReload }
    public var clipboard: [UInt8]? { requests.clipboard }
    /// What `--echo` prints once the viewer has finished.
    public var chosen: Choice? { requests.chosen }
}
