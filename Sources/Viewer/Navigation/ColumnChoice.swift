import Scan
import Table

/// What `-`, `+` and `*` make of the columns a view shows, and what they say: worked out
/// from the view alone; the viewer shows it (the cursor stays on its column where it can).
enum ColumnChoice: Equatable {
    /// These columns, then the line to say (nil: nothing).
    case show(ColumnMap, saying: String?)
    /// Nothing changes; the line says why.
    case say(String)
    /// Nothing changes, nothing to say.
    case unchanged

    /// `-`: view column `column` hidden (one always stays).
    static func hiding(_ column: Int, in table: TableView) -> ColumnChoice {
        guard table.columnCount > 1 else { return .say("the last column shown stays") }
        let name = table.columnNames[table.fileColumn(column)]
        var columns = table.columns
        columns.hide(column, of: table.fileColumnCount)
        return .show(columns, saying: "hid \(name)  (+ shows every column)")
    }

    /// `+`: every column again, in the file's order.
    static func all(in table: TableView) -> ColumnChoice {
        table.columns.isIdentity ? .unchanged : .show(.all, saying: "every column shown")
    }

    /// `*` PATTERN: only the columns whose names match (PCRE2, smart case); nothing typed
    /// shows every column.
    static func matching(_ text: String, in table: TableView) -> ColumnChoice {
        guard !text.isEmpty else { return all(in: table) }
        let matching: [Int]
        do {
            matching = try table.columns(named: text)
        } catch {
            return .say(error.description)
        }
        guard !matching.isEmpty else { return .say("no column name matches \(text)") }
        return .show(ColumnMap(shown: matching), saying: "\(Viewer.counted(matching.count, "column")) of "
                     + "\(Viewer.grouped(table.fileColumnCount)) shown  (+ shows every column)")
    }
}

/// What `:` input names: a row number, a column by its number (`#3`) or its name.
enum GoToTarget: Equatable {
    case row(Int)
    case column(Int)
    /// Nothing to go to; the line says why.
    case say(String)

    init(_ target: String, in table: TableView) {
        if let number = Int(target) {
            self = .row(number)
        } else if target.hasPrefix("#"), let number = Int(target.dropFirst()) {
            let count = table.columnCount
            self = number >= 1 && number <= count ? .column(number - 1)
                : .say("no column \(number) (there \(Viewer.isAre(count)) \(Viewer.counted(count, "column")))")
        } else if let column = table.viewColumn(named: target) {
            self = .column(column)
        } else {
            self = .say("no column named \(target)")
        }
    }
}
