import CellStore

/// What the viewer is showing: the grid, or a prompt or a pane over it.
public enum Mode: Sendable, Equatable {
    case grid
    /// A line of input on the status line.
    case prompt(PromptKind, String)
    case inspector(Inspector)
    case record(RecordPage)
    case help(scroll: Int)
}

public enum PromptKind: Sendable, Equatable {
    case search(columnOnly: Bool)
    case goTo

    var sigil: String {
        switch self {
        case .search(let columnOnly): return columnOnly ? "\\" : "/"
        case .goTo: return ":"
        }
    }
}

/// The cell inspector: one cell, wrapped to the pane, its line breaks real.
public struct Inspector: Sendable, Equatable {
    public var row: Int
    public var column: Int
    public var title: String
    /// The cell's lines, wrapped to `width`, controls shown as symbols.
    public var lines: [String]
    public var width: Int
    public var scroll: Int
}

/// The record view's page: one record as `name │ value` lines.
public struct RecordPage: Sendable, Equatable {
    public var row: Int
    public var scroll: Int
}

/// What `--echo` prints on quitting.
public enum EchoMode: String, Sendable, CaseIterable {
    case cell, row, column
}

/// What the user chose with `--echo`: printed once the terminal is restored.
public enum Choice: Sendable, Equatable {
    /// Bytes to print as they are (a cell, or a row as CSV), then a line end.
    case bytes([UInt8])
    /// Every data value of this column, one a line (streamed from the input).
    case column(Int)
}

enum Wrap {
    /// `text` split at its line breaks and wrapped to `width` cells by display width,
    /// controls shown as symbols.
    static func lines(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var result: [String] = []
        let logical = text.replacingLineBreaks()
        for line in logical {
            var current = ""
            var used = 0
            for glyph in CellText.glyphs(line) {
                if used + glyph.width > width {
                    result.append(current)
                    current = ""
                    used = 0
                }
                current += glyph.text
                used += glyph.width
            }
            result.append(current)
        }
        return result
    }
}

extension String {
    /// The text between line breaks (LF, CRLF or CR).
    func replacingLineBreaks() -> [String] {
        var lines: [String] = []
        var current = ""
        var previousWasCR = false
        for scalar in unicodeScalars {
            if scalar == "\n" {
                if !previousWasCR { lines.append(current); current = "" }
                previousWasCR = false
            } else if scalar == "\r" {
                lines.append(current)
                current = ""
                previousWasCR = true
            } else {
                current.unicodeScalars.append(scalar)
                previousWasCR = false
            }
        }
        lines.append(current)
        return lines
    }
}
