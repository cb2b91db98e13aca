import CellStore

/// What the viewer is showing: the grid, or a pane over it (a prompt is input in
/// progress: see `InputInterpreter`).
public enum Mode: Sendable, Equatable {
    case grid
    case inspector(Inspector)
    case record(RecordPage)
    case help(scroll: Int)
}

public enum PromptKind: Sendable, Equatable {
    case search(columnOnly: Bool)
    case goTo
    /// A pattern of column names (`*`).
    case columns
    /// A filter's pattern (`&` every column, `|` the cursor's).
    case filter(columnOnly: Bool)
    /// `M`: a pattern whose matching rows are marked.
    case mark
    /// A path to write the view to (Ctrl-S), and the answer when it exists already.
    case save
    case overwrite(String)
    /// An SQL query over the table (`Q`).
    case sql
    /// A prompt's key pressed where it does nothing (Ctrl-S in the stacked view): this
    /// says why and what to do, and takes what is typed next (a path, a pattern) until
    /// Enter or Esc, so that none of it runs as keys.
    case refused(String)
    /// A cell's new value (`e`): record `record`, input column `column`; `original` is the
    /// text the prompt opened with.
    case edit(record: Int, column: Int, original: String)
    /// The path to save the edits to (Ctrl-S with edits), and the answer when it names
    /// another file that exists.
    case saveEdits
    case overwriteEdits(String)

    /// True for a yes-or-no question (one key answers it).
    var isQuestion: Bool {
        switch self {
        case .overwrite, .overwriteEdits: return true
        default: return false
        }
    }

    /// A search repeats the last one on an empty Enter.
    var isSearch: Bool {
        if case .search = self { return true }
        return false
    }

    var sigil: String {
        switch self {
        case .search(let columnOnly): return columnOnly ? "\\" : "/"
        case .goTo: return ":"
        case .columns: return "*"
        case .filter(let columnOnly): return columnOnly ? "|" : "&"
        case .mark: return "mark rows matching: "
        case .save: return "write the view to: "
        case .overwrite(let path): return "\(path.split(separator: "/").last.map(String.init) ?? path) exists: overwrite it? (y or n) "
        case .sql: return "SQL> "
        case .edit: return "edit: "
        case .saveEdits: return "save the edits to: "
        case .overwriteEdits(let path):
            return "\(path.split(separator: "/").last.map(String.init) ?? path) exists: replace it with the edited table? (y or n) "
        case .refused(let why): return why + "  (Esc) "
        }
    }
}

/// The cell inspector: one cell, wrapped to the pane, its line breaks real.
public struct Inspector: Sendable, Equatable {
    public var row: Int
    public var column: Int
    public var title: String
    /// The cell, wrapped lazily to the pane's width (its bytes are the row's, shared).
    var text: WrappedText
    /// The first line in view.
    var top: PagedText.Position
    /// The parser kept only the cell's start (see `Row.clipped`).
    var isClipped: Bool
}

/// The record view's page: one record as `name │ value` lines.
public struct RecordPage: Sendable, Equatable {
    public var row: Int
    /// The record's cells (shared with the store's cache, not copied).
    var record: Row
    /// The widest column name, measured once when the page opens.
    var widestName: Int
    /// The first line in view: a cell, and a line start in it.
    var top: PagedText.Position
    /// The width of values `top` was found for (a resize finds it again).
    var valueWidth: Int
}

/// What `--echo` prints on quitting.
public enum EchoMode: String, Sendable, CaseIterable {
    case cell, row, column
    /// The marked records (the cursor's when none is marked), as CSV.
    case rows
}

/// A cell of a row printed by `--echo row`: its bytes, or the whole of a cell longer
/// than a row keeps, read from the input.
public enum EchoCell: Sendable, Equatable {
    case bytes([UInt8])
    case input(InputCell)
}

/// What the user chose with `--echo`: printed once the terminal is restored.
public enum Choice: Sendable, Equatable {
    /// Bytes to print as they are (a cell, or a row as CSV), then a line end.
    case bytes([UInt8])
    /// A cell longer than a row keeps, to print from the input as it is, then a line end.
    case cell(InputCell)
    /// A row as CSV whose cells are bytes or cells longer than a row keeps (printed from
    /// the input, quoted), then a line end.
    case cells([EchoCell])
    /// Every data value of this column, one a line (streamed from the input).
    case column(Int)
    /// These records (`--echo rows`: the marked ones), in this order, as CSV in the view's
    /// columns (streamed from the input).
    case rows([Int])
}
