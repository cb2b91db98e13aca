import ArgumentParser
import CellStore
import Query
import Scan
import Table

/// The options that narrow, order and choose what is written: `--filter` and its
/// variants, `--sort`, `--columns`.
struct QueryOptions: ParsableArguments {
    @Option(name: .customLong("filter"),
            help: ArgumentHelp("Keep only the rows where some cell matches this PCRE2 pattern (smart case: a capital letter makes it case-sensitive; ^ and $ are a cell's edges, as / on screen). Repeatable: every filter must hold.",
                               valueName: "regex"))
    var filters: [String] = []

    @Option(name: .customLong("filter-out"),
            help: ArgumentHelp("Keep only the rows where no cell matches the pattern. Repeatable.", valueName: "regex"))
    var exclusions: [String] = []

    @Option(name: .customLong("filter-column"),
            help: ArgumentHelp("COLUMN=REGEX: keep only the rows whose cell in COLUMN (a header name or a number from 1) matches; split at the first '=', so a name holding '=' is given by number. Repeatable.",
                               valueName: "column=regex"))
    var columnFilters: [String] = []

    @Option(name: .customLong("filter-out-column"),
            help: ArgumentHelp("COLUMN=REGEX: keep only the rows whose cell in COLUMN does not match. Repeatable.", valueName: "column=regex"))
    var columnExclusions: [String] = []

    @Option(name: .customLong("sort"),
            help: ArgumentHelp("Sort the rows by COLUMN (a name or a number), ascending, or with ':desc' descending: numbers (with signs, decimals, exponents, thousands commas, %, a currency sign) by value, ISO 8601 dates in time order, text in natural order ignoring case (a column's kind is judged from its first 1,000 filled cells); empty cells last. Repeatable: later keys break ties; equal rows keep the file's order; header rows stay on top.",
                               valueName: "column[:desc]"))
    var sorts: [String] = []

    @Option(help: ArgumentHelp("Only these columns, in this order: names or numbers, separated by commas (--filter and --filter-out then look only at these).", valueName: "column,…"))
    var columns: String?

    /// True when any of these options is given.
    var isActive: Bool {
        !filters.isEmpty || !exclusions.isEmpty || !columnFilters.isEmpty || !columnExclusions.isEmpty || !sorts.isEmpty || columns != nil
    }

    /// What the options ask for, with columns resolved against the columns' unique names.
    struct Resolved {
        var filters: [RecordFilter] = []
        var keys: [SortKey] = []
        var columns: [Int]?
    }

    /// An option that cannot be carried out, in one line that names the option as given.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Why `text` names no column: past a header wider than a record keeps, that the later
    /// columns go by number.
    static func explain(_ error: ColumnReference.Failure, text: String, names: ColumnNames, columnCount: Int) -> String {
        guard case .unknown = error, names.unread > 0 else { return error.description }
        let kept = columnCount - names.unread
        return "no column '\(text)' among the header's first \(kept) names "
            + "(a record keeps \(kept) fields; name a column after them by its number, up to \(columnCount))"
    }

    /// Resolves every column named and compiles every pattern; the error names the option
    /// as given, and for a column lists the columns.
    func resolve(names columnNames: ColumnNames, columnCount: Int) throws(Problem) -> Resolved {
        // The names the columns are shown by (a repeated or empty header cell gets one of
        // its own), so that a column is found by the name a summary or JSON gives it.
        let names = columnNames.names(count: columnCount)
        func column(_ text: String, option: String, given: String) throws(Problem) -> Int {
            do {
                return try ColumnReference(text).resolve(in: names, columns: columnCount)
            } catch {
                throw Problem(description: "\(option) '\(given)': "
                    + QueryOptions.explain(error, text: text, names: columnNames, columnCount: columnCount))
            }
        }
        func pattern(_ text: String, column: Int?, option: String, given: String, columnName: String?) throws(Problem) {
            do {
                _ = try SearchPattern(text: text, column: column).compile()
            } catch {
                let place = columnName.map { " (column '\($0)', pattern '\(text)')" } ?? ""
                throw Problem(description: "\(option) '\(given)'\(place): \(error.description)")
            }
        }
        func scoped(_ text: String, option: String) throws(Problem) -> (Int, String) {
            guard let equals = text.firstIndex(of: "=") else {
                let shown = names.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
                throw Problem(description: "\(option) '\(text)': give COLUMN=REGEX, such as city=^Oslo$"
                              + (names.isEmpty ? "" : " (columns: \(shown)\(names.count > 8 ? ", …" : ""))"))
            }
            let name = String(text[..<equals])
            let index = try column(name, option: option, given: text)
            let regex = String(text[text.index(after: equals)...])
            try pattern(regex, column: index, option: option, given: text, columnName: name)
            return (index, regex)
        }
        var resolved = Resolved()
        for text in filters {
            try pattern(text, column: nil, option: "--filter", given: text, columnName: nil)
            resolved.filters.append(RecordFilter(pattern: text))
        }
        for text in exclusions {
            try pattern(text, column: nil, option: "--filter-out", given: text, columnName: nil)
            resolved.filters.append(RecordFilter(pattern: text, inverted: true))
        }
        for text in columnFilters {
            let (index, regex) = try scoped(text, option: "--filter-column")
            resolved.filters.append(RecordFilter(pattern: regex, column: index))
        }
        for text in columnExclusions {
            let (index, regex) = try scoped(text, option: "--filter-out-column")
            resolved.filters.append(RecordFilter(pattern: regex, column: index, inverted: true))
        }
        for text in sorts {
            var name = text
            var descending = false
            for (suffix, isDescending) in [(":desc", true), (":asc", false)] where text.lowercased().hasSuffix(suffix) && text.count > suffix.count {
                name = String(text.dropLast(suffix.count))
                descending = isDescending
            }
            // A column whose own name ends in ':desc' wins over the suffix.
            if names.contains(text) { name = text; descending = false }
            resolved.keys.append(SortKey(column: try column(name, option: "--sort", given: text), descending: descending))
        }
        if let columns {
            var list: [Int] = []
            for name in columns.split(separator: ",", omittingEmptySubsequences: false) {
                list.append(try column(String(name), option: "--columns", given: columns))
            }
            resolved.columns = list
        }
        return resolved
    }
}
