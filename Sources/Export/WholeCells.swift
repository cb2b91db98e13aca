import CellStore
import Table

/// Cells a snapshot's rows hold only the start of, and where each is read whole again: a
/// frequency sheet shows a value over 1 MiB by its start and its size, and writes it
/// whole, as `--frequency --output csv` does.
package struct WholeCells: Sendable, Equatable {
    /// Where the whole values are.
    package enum Source: Sendable {
        /// The input a pass counted: records read again through this reader.
        case input(RecordReader)
        /// The rows a pass counted (a sheet of a sheet): their cells are whole in memory.
        case rows(RowSnapshot)
    }

    package var source: Source
    /// The snapshot's column that shows the values by their start.
    package var column: Int
    /// The column of the source that holds the values whole.
    package var sourceColumn: Int
    /// For each record of the snapshot whose cell is only a start, the record of the source
    /// whose cell is the whole value.
    package var records: [Int: Int]

    package init(source: Source, column: Int, sourceColumn: Int, records: [Int: Int]) {
        self.source = source
        self.column = column
        self.sourceColumn = sourceColumn
        self.records = records
    }

    /// Equal when they stand for the same cells: the source is the input a sheet counted,
    /// which one sheet never changes.
    package static func == (lhs: WholeCells, rhs: WholeCells) -> Bool {
        lhs.column == rhs.column && lhs.sourceColumn == rhs.sourceColumn && lhs.records == rhs.records
    }

    /// Calls `body` with the whole value standing for snapshot record `record`, a piece at a
    /// time, until it returns false. Nil when `record` has no whole value here; false when the
    /// value cannot be read again (the input changed, or the rows hold it cut).
    func read(_ record: Int, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool? {
        guard let sourceRecord = records[record] else { return nil }
        switch source {
        case .input(let reader):
            guard let row = reader.record(sourceRecord, at: nil) else { return false }
            guard row.isClipped(sourceColumn) else {
                // Kept whole by the parser after all: its bytes are the value.
                _ = Array(row.field(sourceColumn)).withUnsafeBytes { body($0) }
                return true
            }
            guard let cell = InputCell(row: row, column: sourceColumn, reader: reader) else { return false }
            return cell.read(body)
        case .rows(let rows):
            guard let row = rows.row(sourceRecord), !row.isClipped(sourceColumn) else { return false }
            _ = Array(row.field(sourceColumn)).withUnsafeBytes { body($0) }
            return true
        }
    }
}
