import CellStore
import Table

/// One key of a sort: a column of the input (from 0) and a direction.
public struct SortKey: Sendable, Equatable {
    package var column: Int
    package var descending: Bool

    package init(column: Int, descending: Bool = false) {
        self.column = column
        self.descending = descending
    }
}

/// How a column's cells compare, judged from its values.
package enum ColumnKind: Sendable, Equatable {
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
    package static func judge<Cells: Sequence>(_ cells: Cells) -> ColumnKind where Cells.Element == ArraySlice<UInt8> {
        var tally = Tally()
        for cell in cells { cell.withUnsafeBytes { tally.add($0) } }
        return tally.kind
    }

    /// The counts `judge` decides by, gathered one cell at a time (the summary judges its
    /// columns with it, from the same records, so it orders them as a sort would).
    package struct Tally: Sendable {
        /// Filled cells added (none: nothing to judge by, and `kind` says text).
        package private(set) var filled = 0
        var numbers = 0, dates = 0

        package init() {}

        package mutating func add(_ cell: UnsafeRawBufferPointer) {
            guard !cell.isEmpty else { return }
            filled += 1
            if KeyEncoding.number(cell) != nil { numbers += 1 } else if KeyEncoding.instant(cell) != nil { dates += 1 }
        }

        /// True once `sample` filled cells are in: the kind is judged.
        package var isSettled: Bool { filled >= ColumnKind.sample }

        /// The kind of the cells added: see `judge(_:)`.
        package var kind: ColumnKind {
            guard filled > 0 else { return .text }
            if numbers * 10 >= filled * 9 { return .number }
            if dates * 10 >= filled * 9 { return .date }
            return .text
        }
    }

    /// Filled cells a column's kind is judged from: the first thousand (empty cells say
    /// nothing: a column blank in its first thousand records is judged by what follows).
    package static let sample = 1000

    /// Data records read at most to find `sample` filled cells.
    package static let reach = 100_000

    /// Judges column `column` from its first `sample` filled cells in the first `reach`
    /// data records `store` has.
    package static func judge(column: Int, in store: CellStore, headerRows: Int) -> ColumnKind {
        tally(column: column, in: store, headerRows: headerRows).kind
    }

    /// The counts `judge(column:in:headerRows:)` decides by.
    package static func tally(column: Int, in store: CellStore, headerRows: Int) -> Tally {
        var tally = Tally()
        for index in headerRows..<max(headerRows, min(store.rowCount, headerRows + reach)) where !tally.isSettled {
            store.row(index)?.field(column).withUnsafeBytes { tally.add($0) }
        }
        return tally
    }

    /// Judges column `column` of `rows` as `judge(column:in:headerRows:)` judges a store's.
    package static func judge(column: Int, in rows: RowSnapshot, headerRows: Int) -> ColumnKind {
        var tally = Tally()
        var start = headerRows
        while !tally.isSettled && start < min(rows.count, headerRows + reach) {
            let end = min(rows.count, start + sample)
            for row in rows.rows(in: start..<end) where column < row.count {
                row.field(column).withUnsafeBytes { tally.add($0) }
            }
            start = end
        }
        return tally.kind
    }
}
