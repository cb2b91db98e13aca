import CellStore
import Table

/// What an export writes: which records in which order, which columns, from which input.
/// Taken on the thread that owns the view; the export runs on any thread.
package struct ExportPlan: Sendable {
    /// The input, followed as its index grows (or fixed, for the rows read so far).
    package var readers: RecordReaders?
    /// Rows in memory (a sheet's), when the view is not over a file.
    package var snapshot: RowSnapshot?
    /// Records at the top of the input that are header rows (written first, never moved).
    package var headerRows: Int
    /// The data records written, in order; nil writes every data record in the file's order.
    package var rows: (any RecordSequence)?
    /// Input columns written, in order; nil writes each record whole.
    package var columns: [Int]?
    /// False when a record's own bytes must never stand for it (cells are always written).
    package var allowsRawBytes = true
    /// Rows written before the header rows, chosen columns as the others (a diff's `!`
    /// schema row on Ctrl-S); only over a snapshot.
    package var rowsAbove: [Row] = []
    /// Cells the snapshot holds only the start of, written whole (a frequency sheet's
    /// values over 1 MiB); only over a snapshot.
    package var wholeCells: WholeCells?
    /// Data rows written at most (nil: every one, following the input as it grows).
    package var rowLimit: Int?
    /// The input's name, for messages.
    package var name: String
    /// Bytes of input one core parses and formats at a time when records are written as
    /// cells (tests make it small, to cut a small input into many stretches): a mebibyte,
    /// so the stretches in flight hold little of the input.
    package var parallelStretch: Int64 = 1 << 20
    /// The cores' threads give way to a thread that reads keys (Ctrl-S from the screen); the
    /// command line's `--output` has none, so its threads run at the process's priority.
    package var yieldsToInteractiveThreads = true

    package init(readers: RecordReaders, headerRows: Int, rows: (any RecordSequence)? = nil, columns: [Int]? = nil,
                name: String) {
        self.readers = readers
        self.headerRows = headerRows
        self.rows = rows
        self.columns = columns
        self.name = name
    }

    /// Rows in memory (a sheet's): every record as the snapshot holds it.
    package init(snapshot: RowSnapshot, headerRows: Int, rows: (any RecordSequence)? = nil, columns: [Int]? = nil, name: String) {
        self.snapshot = snapshot
        self.headerRows = headerRows
        self.rows = rows
        self.columns = columns
        self.name = name
    }

    /// The view as it is: its header rows, its rows in its order, its columns. With
    /// `asOfNow`, an input still loading is written as far as it has been read. With
    /// `asSaved`, a source with a text of its own (`SavedRows`: a diff's daff text) writes
    /// that. Nil when the view's source can be read neither as a file nor as a snapshot.
    package init?(view: TableView, asOfNow: Bool = false, asSaved: Bool = false) {
        if let store = view.file {
            self.init(readers: asOfNow || store.follows ? store.recordReadersAsOfNow : store.recordReaders,
                      headerRows: view.headerRows, rows: view.rowsForPasses, columns: view.columns.shown, name: store.name)
        } else if asSaved, let saved = view.source as? any SavedRows, let snapshot = saved.savedSnapshot() {
            self.init(snapshot: snapshot, headerRows: view.headerRows, rows: view.rows, columns: view.columns.shown,
                      name: view.source.name)
            rowsAbove = saved.savedRowsAbove
        } else if let snapshot = view.source.snapshot() {
            self.init(snapshot: snapshot, headerRows: view.headerRows, rows: view.rows, columns: view.columns.shown,
                      name: view.source.name)
        } else {
            return nil
        }
        if asOfNow { rowLimit = view.dataRowCount }
    }
}

/// What an export knows of its input before the first record.
package struct ExportStart: Sendable {
    package var dialect: Dialect
    /// True when the input starts with a UTF-8 byte-order mark.
    package var hasByteOrderMark: Bool
    /// The lines before the table, as the input has them.
    package var preamble: [UInt8]

    package init(dialect: Dialect, hasByteOrderMark: Bool = false, preamble: [UInt8] = []) {
        self.dialect = dialect
        self.hasByteOrderMark = hasByteOrderMark
        self.preamble = preamble
    }
}

/// Writes records as text in one format: what an export drives. It buffers and hands its
/// bytes to the export's sink; the export writes to the sink itself only after
/// `flushAll()`.
public protocol RecordWriting: AnyObject {
    /// False once output stopped (the sink refused bytes, or the format cannot go on).
    var isOpen: Bool { get }
    /// Why the format cannot go on, when that is what stopped it.
    var formatFailure: String? { get }
    /// Takes a record, or a piece of one (see `Row.continuesInNext`).
    @discardableResult func write(_ row: Row) -> Bool
    /// Takes a whole record whose cells have the types `types` (an SQL answer's).
    @discardableResult func write(_ row: Row, types: ArraySlice<ValueType>) -> Bool
    /// The delimiter in which a well-quoted record's own bytes (quote `"`) are already what
    /// this writer would write, or nil when records are always written as cells.
    var rawDelimiter: UInt8? { get }
    /// Takes whole records as the input has them, `records` of them; `lineEnding` adds the
    /// writer's line ending after them (for a last record that had none).
    @discardableResult func writeRaw(_ bytes: UnsafeRawBufferPointer, records: Int, lineEnding: Bool) -> Bool
    /// Takes bytes another writer of the same format made (`continuation`), `records` of
    /// them, as if it had written them itself.
    @discardableResult func writeFormatted(_ bytes: UnsafeRawBufferPointer, records: Int) -> Bool
    /// A writer that goes on where this one is (after its header, its records so far and
    /// `unwritten` records formatted but not handed to it yet), writing to `sink`: for
    /// another core to format a later stretch of records. Nil when
    /// records must be written in order by this writer (a table measures them).
    func continuation(following unwritten: Int, sink: @escaping ([UInt8]) -> Bool) -> RecordWriting?
    /// Records this writer must take itself, in order, before `continuation` can give a
    /// writer for later ones (a table measures its first rows to set its columns' widths).
    var leadingRecords: Int { get }
    /// Writes, in bulk, the whole records at the start of `bytes` (well quoted, as
    /// `WellQuotedSplitter` splits them), `columns` of each (nil: every cell), up to one
    /// it leaves to `write(_:)`; nil when this writer has no such way (records are split
    /// into rows and written one by one).
    func writeWellQuoted(_ bytes: UnsafeRawBufferPointer, delimiter: UInt8, quote: UInt8, columns: [Int]?) -> BulkWrite?
    /// Hands every byte buffered to the sink: more output follows.
    @discardableResult func flushAll() -> Bool
    /// Ends the output; `endsWithTerminator` false takes back the last line ending.
    func finish(endsWithTerminator: Bool)
}

extension RecordWriting {
    public var leadingRecords: Int { 0 }
    @discardableResult public func write(_ row: Row, types: ArraySlice<ValueType>) -> Bool { write(row) }
    public func writeWellQuoted(_ bytes: UnsafeRawBufferPointer, delimiter: UInt8, quote: UInt8, columns: [Int]?) -> BulkWrite? { nil }
}

/// How far a bulk write (`RecordWriting.writeWellQuoted`) got.
public struct BulkWrite: Sendable, Equatable {
    /// Bytes of whole records written.
    public var consumed: Int
    /// Records written.
    public var records: Int
    /// The length of the record after them that the writer left to `write(_:)`, nil when
    /// it stopped at the end of the bytes or because its output was refused.
    public var aside: Int?

    public init(consumed: Int, records: Int, aside: Int?) {
        self.consumed = consumed
        self.records = records
        self.aside = aside
    }
}
