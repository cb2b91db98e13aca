import CellStore
import Query

/// What SQL makes of one column's cells: decided once per column, before the query runs,
/// and declared in the table's `CREATE TABLE` (`pragma table_info(t)` shows it).
package enum SQLColumnType: String, Sendable, Equatable {
    /// Every filled cell is text, byte for byte as written (dates too: ISO dates compare in
    /// time order as text).
    case text = "TEXT"
    /// A cell that reads as a number is one: an integer, exact to 64 bits, or a real; any
    /// other stays text. `INTEGER` when every number judged was written whole, `NUMERIC`
    /// otherwise (not `REAL`: SQLite would make a REAL column's integers reals, `1.0`).
    case integer = "INTEGER"
    case numeric = "NUMERIC"

    /// True for the two kinds of number column.
    var isNumber: Bool { self != .text }
}

/// Judges the columns of an input: a column is a number column when 9 in 10 of its first
/// 1,000 filled cells (in its first 100,000 data records) read as numbers SQL can hold
/// exactly, as the sort and the summary judge a column a number column
/// (`ColumnKind.sample`, `ColumnKind.reach`); a number past 64 bits or past a Double's
/// range does not count, so a column of 20-digit ids is text.
enum ColumnTypes {
    /// The counts a column's type is judged by.
    struct Tally {
        var filled = 0
        var numbers = 0
        var reals = 0

        var isSettled: Bool { filled >= ColumnKind.sample }

        mutating func add(_ cell: UnsafeRawBufferPointer) {
            guard !cell.isEmpty else { return }
            filled += 1
            switch SQLTyping.number(cell).kind {
            case .integer: numbers += 1
            case .real:
                numbers += 1
                reals += 1
            default: break
            }
        }

        var type: SQLColumnType {
            guard filled > 0, numbers * 10 >= filled * 9 else { return .text }
            return reals > 0 ? .numeric : .integer
        }
    }

    /// The types of `input`'s columns, judged from its first records: waits, while the
    /// index grows, until every column has its sample, `ColumnKind.reach` data records are
    /// in, or the input ends (so the judgement does not depend on how far the index had
    /// got); throws `.cancelled` when `control` is cancelled meanwhile.
    static func judge(_ input: SQLInput, control: QueryControl) throws(SQLError) -> [SQLColumnType] {
        let width = input.columns.count
        var tallies = [Tally](repeating: Tally(), count: width)
        var unsettled = width
        var next = input.headerRows
        let end = input.headerRows + ColumnKind.reach
        let changes = input.readers.changes
        while unsettled > 0 && next < end {
            let version = changes.version
            if control.isCancelled { throw .cancelled }
            let progress = input.readers.progress
            if let reader = input.readers.current() {
                reader.forEachRecord(from: next) { number, row in
                    next = number + 1
                    for column in 0..<min(width, row.count) where !tallies[column].isSettled {
                        row.field(column).withUnsafeBytes { tallies[column].add($0) }
                        if tallies[column].isSettled { unsettled -= 1 }
                    }
                    return unsettled > 0 && next < end
                }
                if reader.isFinal || unsettled == 0 || next >= end { break }
            }
            if progress.failure != nil { break }
            changes.wait(past: version)
        }
        return tallies.map(\.type)
    }
}
