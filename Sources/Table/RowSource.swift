import CellStore

/// Where a table's rows come from: a file (`CellStore`), rows a pass made in memory (a
/// sheet's `MemoryRows`), and later a query's answer, a diff, several files stacked.
///
/// Records are numbered from 0, header records included. A source may still be filling:
/// `rowCount` grows until `isComplete`. Rows are handed out in batches (`rows(_:)`), so a
/// source that reads them from somewhere reads each batch in one go, in its own order.
/// It is read on the UI thread; passes on other threads read a file's bytes, or any
/// other source's `snapshot()`.
///
/// What only a file has (the estimated tail after `G`, the preamble, the dialect and
/// compression, reload, changes on disk, following) is reached through `file`, which
/// any other source leaves nil; what only a diff has (marks, sorting by one of a cell's
/// two values, counts on the status line) through `MarkedRows`.
public protocol RowSource: AnyObject {
    /// What the source is called on screen (a path, `stdin`, `frequency of city`).
    var name: String { get }
    /// Records known so far, header records included.
    var rowCount: Int { get }
    /// True once no more records will come.
    var isComplete: Bool { get }
    /// Columns: the most cells of any record known so far.
    var columnCount: Int { get }
    /// Header records the source brings itself (a sheet's column names: 1), or nil when
    /// the user says how many there are (a file's `-r` and `--no-header`).
    var headerRows: Int? { get }
    /// Changes when records already handed out may read differently (rows replaced, not
    /// just added): whatever was made from them (a sort, cells on screen) is made again.
    var generation: Int { get }
    /// Record `index`, or nil when it is not known (yet).
    func row(_ index: Int) -> Row?
    /// The records `refs` that are known, by record number: one batch.
    func rows(_ refs: [RecordRef]) -> [Int: Row]
    /// Called from any thread when the source or a pass over it has news: it wakes the
    /// event loop.
    var wake: @Sendable () -> Void { get }
    /// The records as they are now, for a pass on another thread; nil for a file, whose
    /// passes read its bytes through its index instead (much faster than rows).
    func snapshot() -> RowSnapshot?
    /// The file behind the rows, for what only a file has; nil for any other source.
    var file: CellStore? { get }
    /// Takes in what the source's own work made since the last call (a diff's rows as the
    /// comparison runs, a stack's tables as they are counted): called on the UI thread on
    /// news, before anything is read.
    func takeNews()
}

/// A source that marks some of its records and cells (a diff's added, removed and changed
/// ones): the screen draws them in their own styles, `(` and `)` go from one to the next,
/// and the status line says the source's counts. Other sources mark nothing, and are not
/// these.
public protocol MarkedRows: RowSource {
    /// The records as a sort orders them: as `snapshot()`, but where a cell shows more
    /// than one value (a diff's `old→new`), the one it is sorted by.
    func sortSnapshot() -> RowSnapshot?
    /// How record `record` shows in column `column` (-1: the row as a whole, its number).
    func mark(record: Int, column: Int) -> RowMark
    /// The nearest marked record after (`forward`) or before `record`, in the source's
    /// order; nil when there is none (yet).
    func markedRecord(from record: Int, forward: Bool) -> Int?
    /// What the status line says of the source as a whole (a diff's counts), or nil.
    var statusNote: String? { get }
}

/// How a source marks a record or one of its cells on screen.
public enum RowMark: UInt8, Sendable, Equatable {
    case none
    /// A record only the new table has.
    case added
    /// A record only the old table has.
    case removed
    /// A record both tables have with some values changed (its number, its marker, its
    /// cells that did not change).
    case changed
    /// A cell whose value changed.
    case changedCell
}

extension RowSource {
    public func takeNews() {}
}

/// A table of a database, read through SQLite: `Q` asks the database itself, not a copy of
/// its rows (the SQL module's `DatabaseRows`; the viewer knows no SQL).
public protocol DatabaseTableRows: RowSource {
    /// What the status line says of the input: `SQLite table orders`, `SQLite view who`.
    var formatLabel: String { get }
    /// What the status line says of what was not read (a write-ahead log), or nil.
    var note: String? { get }
}

extension RowSource {
    /// No file: what any source but a file says.
    package var file: CellStore? { nil }

    /// Each ref's row on its own: for sources that hold their rows in memory, where a
    /// batch costs no less than its rows one by one.
    package func rows(_ refs: [RecordRef]) -> [Int: Row] {
        var result: [Int: Row] = [:]
        for ref in refs {
            if let row = row(ref.record) { result[ref.record] = row }
        }
        return result
    }
}

extension CellStore: RowSource {
    /// A file: the user says how many header rows it has.
    public var headerRows: Int? { nil }
    /// A file's records never change while it is open (`R` opens a new store).
    public var generation: Int { 0 }
    /// A file's passes read its bytes, not rows.
    public func snapshot() -> RowSnapshot? { nil }
    public var file: CellStore? { self }

    /// - Complexity: one record's parse for each ref with an offset that is not cached,
    ///   else one block parse for each block not cached; refs are read in input order.
    public func rows(_ refs: [RecordRef]) -> [Int: Row] {
        let sorted = refs.sorted()
        var result = rows(startingAt: sorted.compactMap { ref in ref.offset.map { (ref.record, $0) } })
        for ref in sorted where ref.offset == nil && result[ref.record] == nil {
            if let row = row(ref.record) { result[ref.record] = row }
        }
        return result
    }
}

/// A source's records fixed at one moment, readable from any thread: what a sort, a
/// filter, a search, a count or a save reads when the source is not a file.
///
/// It is cheap to take (the rows it reads are shared, not copied) and never changes, so
/// a pass sees one consistent table whatever the source does meanwhile.
public struct RowSnapshot: Sendable {
    /// Records, header records included.
    package let count: Int
    /// Columns: the most cells of any record.
    package let columnCount: Int
    private let read: @Sendable (Range<Int>) -> [Row]

    /// A snapshot of `count` records whose rows `read` makes, a range at a time (always
    /// within `0..<count`).
    package init(count: Int, columnCount: Int, read: @escaping @Sendable (Range<Int>) -> [Row]) {
        self.count = count
        self.columnCount = columnCount
        self.read = read
    }

    /// A snapshot of rows in hand (for tests and small tables).
    package init(rows: [Row]) {
        self.init(count: rows.count, columnCount: rows.map(\.count).max() ?? 0) { range in Array(rows[range]) }
    }

    /// Records `range` (clamped to the snapshot), in order.
    package func rows(in range: Range<Int>) -> [Row] {
        let wanted = range.clamped(to: 0..<count)
        return wanted.isEmpty ? [] : read(wanted)
    }

    /// Record `index`, or nil past the end.
    package func row(_ index: Int) -> Row? { rows(in: index..<(index + 1)).first }

    /// Calls `body` with each record of `range` and its number, a batch at a time, until
    /// it returns false; returns false then.
    @discardableResult
    package func forEachRow(in range: Range<Int>, batch: Int = 4096, _ body: (Int, Row) -> Bool) -> Bool {
        let wanted = range.clamped(to: 0..<count)
        var start = wanted.lowerBound
        while start < wanted.upperBound {
            let end = min(wanted.upperBound, start + batch)
            for (offset, row) in rows(in: start..<end).enumerated() where !body(start + offset, row) { return false }
            start = end
        }
        return true
    }
}

/// A source whose rows a statement still makes (a query's answer): Esc on it stops the
/// statement, the rows so far staying.
package protocol StoppableRows: RowSource {
    /// True while rows may still come.
    var isRunning: Bool { get }
    /// The answer's rows so far (its header not counted).
    var answerRowCount: Int { get }
    /// Stops the statement.
    func cancel()
}
