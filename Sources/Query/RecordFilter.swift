import Scan

/// One condition a view's rows must meet: a PCRE2 pattern with smart case, as the
/// viewer's `/` search reads it, matched in every cell or in one column, kept or inverted.
public struct RecordFilter: Sendable, Equatable {
    package var pattern: String
    /// Only this column (from 0), or every column when nil.
    package var column: Int?
    /// Keep the records where the pattern matches no cell (of the column).
    package var inverted: Bool
    /// With no `column`: only cells in these columns count (a view's shown columns, so a
    /// hidden column matches nothing); nil: every column.
    package var columns: [Int]?

    package init(pattern: String, column: Int? = nil, inverted: Bool = false, columns: [Int]? = nil) {
        self.pattern = pattern
        self.column = column
        self.inverted = inverted
        self.columns = columns
    }

    /// The pattern compiled, or a one-line reason.
    func compile() throws(QueryError) -> CompiledPattern {
        do {
            return try SearchPattern(text: pattern, column: column).compile()
        } catch {
            throw .pattern("--filter '\(pattern)': \(error.description)")
        }
    }
}
