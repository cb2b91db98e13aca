import CellStore


/// Rows made as they are written and never all held: an SQL answer, a diff's lines,
/// several inputs merged. The exporter asks for a batch at a time and writes each row
/// before it asks again, so memory holds one batch, whatever the length of the output.
///
/// Rows come whole and shaped (the columns written, in order); the first `headerRows`
/// of them are the header rows.
package protocol RowStream: AnyObject {
    /// The next rows, in order; nil after the last, or once the stream failed (`failure`).
    func next(batch: Int) -> StreamedRows?
    /// Why the rows stopped before their end, once they have: the rows before it are
    /// written and the output ended (a statement SQLite stops, a comparison that failed).
    var failure: String? { get }
    /// The output stopped taking rows (the reader went away, the disk is full): the work
    /// making them can stop.
    func stop()
}

extension RowStream {
    package func stop() {}
}

/// Rows of a stream, with their cells' types when they have them (an SQL answer: JSON
/// writes a number bare and NULL as `null`).
package struct StreamedRows {
    package var rows: [Row]
    /// Each row's cells' types, one after another (as many as the rows' cells); nil when
    /// every cell is text.
    package var types: [ValueType]?

    package init(rows: [Row], types: [ValueType]? = nil) {
        self.rows = rows
        self.types = types
    }
}
