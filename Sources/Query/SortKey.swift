import CellStore
import Table

/// One key of a sort: a column of the input (from 0) and a direction.
public struct SortKey: Sendable, Equatable {
    public var column: Int
    public var descending: Bool

    public init(column: Int, descending: Bool = false) {
        self.column = column
        self.descending = descending
    }
}

/// How a column's cells compare, judged from its values.
public enum ColumnKind: Sendable, Equatable {
    /// Numbers: a sign, thousands separators, a decimal part, an exponent, a trailing `%`
    /// (read as hundredths) and a leading currency sign are understood.
    case number
    /// ISO 8601 dates and times, compared by the instant they name (UTC when no offset).
    case date
    /// Text in natural order (`file2` before `file10`), case ignored.
    case text

    /// The kind most of `cells` have: a number or a date when at least 9 in 10 of the
    /// cells that are not empty read as one, else text. A cell of a number or date column
    /// that does not read as one sorts after those that do, as text.
    public static func judge<Cells: Sequence>(_ cells: Cells) -> ColumnKind where Cells.Element == ArraySlice<UInt8> {
        var tally = Tally()
        for cell in cells { cell.withUnsafeBytes { tally.add($0) } }
        return tally.kind
    }

    /// The counts `judge` decides by, gathered one cell at a time (the summary judges its
    /// columns with it, from the same records, so it orders them as a sort would).
    public struct Tally: Sendable {
        var filled = 0, numbers = 0, dates = 0

        public init() {}

        public mutating func add(_ cell: UnsafeRawBufferPointer) {
            guard !cell.isEmpty else { return }
            filled += 1
            if KeyEncoding.number(cell) != nil { numbers += 1 } else if KeyEncoding.instant(cell) != nil { dates += 1 }
        }

        /// The kind of the cells added: see `judge(_:)`.
        public var kind: ColumnKind {
            guard filled > 0 else { return .text }
            if numbers * 10 >= filled * 9 { return .number }
            if dates * 10 >= filled * 9 { return .date }
            return .text
        }
    }

    /// Data records a column's kind is judged from: the first thousand.
    public static let sample = 1000

    /// Judges column `column` from the first `sample` data records of `store`.
    public static func judge(column: Int, in store: CellStore, headerRows: Int, sample: Int = ColumnKind.sample) -> ColumnKind {
        let end = min(store.rowCount, headerRows + sample)
        guard headerRows < end else { return .text }
        return judge((headerRows..<end).lazy.compactMap { store.row($0)?.field(column) })
    }

    /// Judges column `column` from the first `sample` data rows of `rows`.
    public static func judge(column: Int, in rows: RowSnapshot, headerRows: Int, sample: Int = 1000) -> ColumnKind {
        judge(rows.rows(in: headerRows..<(headerRows + sample)).map { $0.field(column) })
    }
}
