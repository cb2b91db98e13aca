import CellStore

/// `--echo column`'s format: the cell of one column of each data record, each followed by
/// a terminator (a line feed, or NUL), written as it is; a cell over the parser's limit is
/// written as its pieces come.
package final class ColumnValues: RecordWriting {
    let column: Int
    let terminator: UInt8
    let headerRows: Int
    let sink: ([UInt8]) -> Bool
    private var buffer: [UInt8] = []
    private var records = 0
    private var pieces = RecordPieces()
    package private(set) var isOpen = true

    /// - Parameters:
    ///   - column: the input column written.
    ///   - headerRows: records at the start that are not written.
    package init(column: Int, terminator: UInt8, headerRows: Int, sink: @escaping ([UInt8]) -> Bool) {
        self.column = column
        self.terminator = terminator
        self.headerRows = headerRows
        self.sink = sink
        buffer.reserveCapacity(1 << 16)
    }

    package var formatFailure: String? { nil }
    package var rawDelimiter: UInt8? { nil }

    @discardableResult
    package func write(_ row: Row) -> Bool {
        let first = pieces.place(row)
        if records >= headerRows {
            if column >= first { buffer.append(contentsOf: row.field(column - first)) }
            if !row.continuesInNext { buffer.append(terminator) }
        }
        if !row.continuesInNext { records += 1 }
        if buffer.count >= 1 << 16 { flushAll() }
        return isOpen
    }

    @discardableResult
    package func writeRaw(_ bytes: UnsafeRawBufferPointer, records: Int, lineEnding: Bool) -> Bool { false }

    @discardableResult
    package func writeFormatted(_ bytes: UnsafeRawBufferPointer, records: Int) -> Bool { false }

    package func continuation(following unwritten: Int, sink: @escaping ([UInt8]) -> Bool) -> RecordWriting? { nil }

    @discardableResult
    package func flushAll() -> Bool {
        if isOpen && !buffer.isEmpty { isOpen = sink(buffer) }
        buffer.removeAll(keepingCapacity: true)
        return isOpen
    }

    package func finish(endsWithTerminator: Bool) { flushAll() }
}
