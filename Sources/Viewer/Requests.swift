import CellStore
import Table

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
    /// Enter on a sheet's row, by its record: the loop asks the sheet what it means.
    var sheetRecord: Int?
    /// A sheet to push over this viewer (a frequency or summary sheet).
    var sheet: SheetSource?
    /// A query to answer over this viewer's file, in a sheet the loop makes (`Q`).
    var query: (text: String, file: CellStore)?
    /// Another of the open tables to show (`}`, `{`, `T`, Enter in the list of tables).
    var table: TableRequest?
    /// The edits were saved to this file: the loop reads it instead, the cursor on this
    /// record of it.
    var reopen: (path: String, isInput: Bool, record: Int?)?
    /// `%` in a column's sheet: the loop puts the sheet's other form (bins, or values) in
    /// its place.
    var switchesSheet = false
}

extension Requests {
    /// `R`: asks to read `source` again; the line that says why not when it
    /// cannot be (a sheet, a stream, standard input).
    mutating func askReload(of source: any RowSource, isSheet: Bool) -> String? {
        if isSheet { return "a sheet is made from the table: Esc goes back, and R there reads the file again" }
        guard let file = source.file else { return "\(source.name) cannot be read again" }
        guard file.isReloadable else {
            return source.name == "stdin" ? "standard input cannot be read again"
                : "\(source.name) is a stream: it cannot be read again"
        }
        wantsReload = true
        return nil
    }
}
