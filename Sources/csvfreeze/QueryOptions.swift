import ArgumentParser
import CellStore
import Query
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
            help: ArgumentHelp("Sort the rows by COLUMN (a name or a number), ascending, or with ':desc' descending: numbers (with signs, decimals, exponents, thousands commas, %, a currency sign) by value, ISO 8601 dates in time order, text in natural order ignoring case; empty cells last. Repeatable: later keys break ties; equal rows keep the file's order; header rows stay on top.",
                               valueName: "column[:desc]"))
    var sorts: [String] = []

    @Option(name: .customLong("columns"),
            help: ArgumentHelp("Only these columns, in this order: names or numbers, separated by commas.", valueName: "column,…"))
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

    /// Resolves every column named; the error says which and lists the columns.
    func resolve(names columnNames: ColumnNames, columnCount: Int) throws(ColumnReference.Failure) -> Resolved {
        // The names the columns are shown by (a repeated or empty header cell gets one of
        // its own), so that a column is found by the name a summary or JSON gives it.
        let names = columnNames.names(count: columnCount)
        func column(_ text: String) throws(ColumnReference.Failure) -> Int {
            try ColumnReference(text).resolve(in: names, columns: columnCount)
        }
        func scoped(_ text: String) throws(ColumnReference.Failure) -> (Int, String) {
            guard let equals = text.firstIndex(of: "=") else { throw .unknown(text + " (give COLUMN=REGEX)", known: names) }
            return (try column(String(text[..<equals])), String(text[text.index(after: equals)...]))
        }
        var resolved = Resolved()
        resolved.filters += filters.map { RecordFilter(pattern: $0) }
        resolved.filters += exclusions.map { RecordFilter(pattern: $0, inverted: true) }
        for text in columnFilters {
            let (index, pattern) = try scoped(text)
            resolved.filters.append(RecordFilter(pattern: pattern, column: index))
        }
        for text in columnExclusions {
            let (index, pattern) = try scoped(text)
            resolved.filters.append(RecordFilter(pattern: pattern, column: index, inverted: true))
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
            resolved.keys.append(SortKey(column: try column(name), descending: descending))
        }
        if let columns {
            var list: [Int] = []
            for name in columns.split(separator: ",", omittingEmptySubsequences: false) { list.append(try column(String(name))) }
            resolved.columns = list
        }
        return resolved
    }
}
