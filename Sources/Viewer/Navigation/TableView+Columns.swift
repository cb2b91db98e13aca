import Scan
import Table

/// The view's columns by name, for `:`, `*` and the status line.
extension TableView {
    /// An input column's name: its unique name (`ColumnNames`: a repeated or empty header
    /// cell gets one of its own, as in JSON and summaries), cut to 256 bytes (with `…`), so
    /// that a header cell of megabytes costs no more per frame than a name (empty without
    /// a header row).
    func headerName(ofFileColumn column: Int) -> String {
        guard headerRows > 0 && source.rowCount > 0 else { return "" }
        return columnNames[column]
    }

    /// A view column by name: exact, then ignoring case, then the first that starts with
    /// it, then the first that contains it.
    func viewColumn(named name: String) -> Int? {
        guard !name.isEmpty else { return nil }
        let names = (0..<columnCount).map { headerName(ofFileColumn: fileColumn($0)) }
        let lower = name.lowercased()
        return names.firstIndex(of: name)
            ?? names.firstIndex { $0.lowercased() == lower }
            ?? names.firstIndex { $0.lowercased().hasPrefix(lower) }
            ?? names.firstIndex { $0.lowercased().contains(lower) }
    }

    /// The input columns whose names match `text` (PCRE2, smart case), in the input's order.
    func columns(named text: String) throws(PatternError) -> [Int] {
        let matcher = PatternMatcher(try SearchPattern(text: text, column: nil).compile())
        let names = columnNames
        return (0..<fileColumnCount).filter { column in
            matcher.matches(ArraySlice(names[column].utf8))
        }
    }

    /// What the status line says of hidden columns, if any.
    var hiddenColumnsNote: String? {
        let hidden = fileColumnCount - columnCount
        return columns.isIdentity || hidden <= 0 ? nil : "\(Viewer.grouped(hidden)) hidden"
    }
}
