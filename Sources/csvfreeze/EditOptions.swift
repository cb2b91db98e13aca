import ArgumentParser

/// The options that edit a file from a script: cells set and records deleted through the
/// same journal as `e` and `x`, the result written with `--output` or saved over the file
/// with `--in-place` (the rules of Ctrl-S).
struct EditOptions: ParsableArguments {
    @Option(name: .customLong("set"),
            help: ArgumentHelp("ROW:COLUMN=VALUE: set the cell of data row ROW (as the margin numbers it, from 1) in COLUMN (a header name or a number from 1; split at the first '=', so a name holding '=' is given by number) to VALUE, as e on screen does, then write the table with --output or save it with --in-place; every record not edited is written as its own bytes. Repeatable (a later one wins).",
                               valueName: "row:column=value"))
    var sets: [String] = []

    @Option(name: .customLong("delete-row"),
            help: ArgumentHelp("Delete data row ROW (numbered as the margin numbers it, before any deletion), as x does. Repeatable.",
                               valueName: "row"))
    var deletions: [String] = []

    @Option(help: ArgumentHelp("Open FILE with the unsaved edits kept in JOURNAL (the file a session ended by a signal left in $XDG_STATE_HOME/csvfreeze/recovery, named on stderr) as unsaved edits again: on screen (U takes them back, Ctrl-S saves them), or written with --output, or saved with --in-place. Refused with one line when FILE changed since the edits were made, or JOURNAL is truncated, corrupt or from another version.",
                               valueName: "journal"))
    var recover: String?

    @Flag(help: "With --set, --delete-row or --recover: save the edits over FILE as Ctrl-S does (a temporary file beside it renamed over it, permissions and links kept; refused for standard input, or when FILE changed since it was read).")
    var inPlace = false

    /// True when an edit is asked for on the command line.
    var isRequested: Bool { !sets.isEmpty || !deletions.isEmpty }

    /// One `--set`: the data row (from 1), the column as given, and the value.
    struct Setting: Equatable {
        var row: Int
        var column: String
        var value: String
        var given: String
    }

    /// `--set`'s values, each split; throws a usage error for one that is not
    /// `ROW:COLUMN=VALUE`.
    func settings() throws -> [Setting] {
        try sets.map { text in
            guard let colon = text.firstIndex(of: ":"), let row = EditOptions.row(String(text[..<colon])) else {
                throw ValidationError("--set '\(text)': give ROW:COLUMN=VALUE with ROW a data row number from 1, such as 3:price=9.50")
            }
            let rest = text[text.index(after: colon)...]
            guard let equals = rest.firstIndex(of: "="), equals > rest.startIndex else {
                throw ValidationError("--set '\(text)': give ROW:COLUMN=VALUE, such as 3:price=9.50 (the column by name or number)")
            }
            return Setting(row: row, column: String(rest[..<equals]), value: String(rest[rest.index(after: equals)...]), given: text)
        }
    }

    /// `--delete-row`'s rows (from 1).
    func deletedRows() throws -> [Int] {
        try deletions.map { text in
            guard let row = EditOptions.row(text) else {
                throw ValidationError("--delete-row '\(text)': give a data row number from 1")
            }
            return row
        }
    }

    /// A data row number as typed: digits, 1 or more.
    static func row(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let row = Int(text), row >= 1 else { return nil }
        return row
    }

    func validate() throws {
        _ = try settings()
        _ = try deletedRows()
    }
}
