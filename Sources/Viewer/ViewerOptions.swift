/// What the command line chose for the viewer.
public struct ViewerOptions: Sendable, Equatable {
    /// Records at the top that are headers, kept on screen (the frozen rows).
    public var headerRows: Int
    /// Columns on the left kept on screen while the rest scrolls.
    public var frozenColumns: Int
    /// Whether the left band shows row numbers.
    public var showsRowNumbers: Bool

    public init(headerRows: Int = 1, frozenColumns: Int = 0, showsRowNumbers: Bool = true) {
        self.headerRows = max(0, headerRows)
        self.frozenColumns = max(0, frozenColumns)
        self.showsRowNumbers = showsRowNumbers
    }
}
