import Scan

/// One condition a view's rows must meet: a PCRE2 pattern with smart case, as the
/// viewer's `/` search reads it, matched in every cell or in one column, kept or inverted;
/// or a typed range (`range`): the column's cell read as a number or an instant in it.
public struct RecordFilter: Sendable, Equatable {
    package var pattern: String
    /// Only this column (from 0), or every column when nil.
    package var column: Int?
    /// Keep the records where the pattern matches no cell (of the column).
    package var inverted: Bool
    /// With no `column`: only cells in these columns count (a view's shown columns, so a
    /// hidden column matches nothing); nil: every column.
    package var columns: [Int]?
    /// A typed filter: the values of `column` in this range (the pattern is unused).
    package var range: ValueRange?

    package init(pattern: String, column: Int? = nil, inverted: Bool = false, columns: [Int]? = nil) {
        self.pattern = pattern
        self.column = column
        self.inverted = inverted
        self.columns = columns
    }

    /// A typed filter: the rows whose cell in `column` reads as a value in `range`.
    package init(range: ValueRange, column: Int) {
        self.init(pattern: "", column: column)
        self.range = range
    }

    /// The pattern compiled, or a one-line reason (a typed filter's is one that is never
    /// searched with).
    func compile() throws(QueryError) -> CompiledPattern {
        do {
            return try SearchPattern(text: range == nil ? pattern : ".", column: column).compile()
        } catch {
            throw .pattern("--filter '\(pattern)': \(error.description)")
        }
    }
}
