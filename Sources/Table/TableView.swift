import CellStore

/// A view over a row source: which data records show in which order, and which columns.
///
/// Every read of cells by the viewer goes through it. Rows are numbered in the view
/// (0 is the first data row shown); records are numbered in the source (header records
/// included), and a view row keeps its record's number, so a user always knows where a
/// row lives. The plain view (every record, every column, in the source's order) holds
/// no list and reads straight from the source.
public final class TableView {
    /// Where the rows come from: a file, a sheet's rows in memory, …
    package let source: any RowSource
    /// The source, when it marks records and cells (a diff); nil for any other.
    package let changes: (any MarkedRows)?
    /// Records at the top of the input that are header rows (they never move).
    package let headerRows: Int
    /// The data records shown, in order; nil shows every data record in the file's order.
    package private(set) var rows: (any RecordSequence)?
    /// The columns shown, in order.
    package var columns: ColumnMap = .all
    /// The records the user marked (`m`, `M`): this table's own, whatever rows show.
    package var marks = MarkSet()
    /// The rows of the last batch fetched from a mapped view, by record number.
    private var batch: [Int: Row] = [:]
    /// The records of the view rows in the last batch, by view row: a frame asks for each
    /// row's record once per cell, and a sequence may read it from a file.
    private var batchRecords: [Int: Int] = [:]
    private var batchRanges: [Range<Int>] = []
    private var batchCount = 0
    /// The source's generation the batch was read in.
    private var batchGeneration = 0
    /// The columns' names, and the shape of the header row they were made from.
    private var names: (key: [Int], names: ColumnNames)?

    package init(source: any RowSource, headerRows: Int) {
        self.source = source
        changes = source as? any MarkedRows
        self.headerRows = headerRows
    }

    /// The file behind the rows, if they come from one.
    package var file: CellStore? { source.file }

    /// Shows `rows` (nil: every data record in the file's order).
    package func show(rows: (any RecordSequence)?) {
        self.rows = rows
        batch = [:]
        batchRecords = [:]
        batchRanges = []
    }

    // MARK: Rows

    /// Data rows in the source known so far (every row of the view's source, shown or not).
    package var fileDataRowCount: Int { max(0, source.rowCount - headerRows) }
    /// The source's final count of data rows as far as it can be guessed now: while a file
    /// loads, from the share of it read (to size the row-number band once, not every time
    /// the count gains a digit).
    package var estimatedDataRowCount: Int {
        if let progress = file?.progress, !progress.isComplete, let fraction = progress.fractionRead, fraction > 0.01 {
            return Int(Double(fileDataRowCount) / fraction)
        }
        return fileDataRowCount
    }
    /// Rows in the view known so far.
    package var dataRowCount: Int { rows?.count ?? fileDataRowCount }
    /// True when some records are left out or reordered.
    package var isMapped: Bool { rows != nil }

    /// The input record shown at view row `row`.
    package func record(ofRow row: Int) -> Int {
        guard let rows else { return row + headerRows }
        if let record = batchRecords[row] { return record }
        return row < rows.count ? rows.record(at: row) : -1
    }

    /// The view row showing input record `record`, if it is in the view.
    package func row(ofRecord record: Int) -> Int? {
        guard let rows else { return record >= headerRows ? record - headerRows : nil }
        return rows.index(of: record)
    }

    /// The first view row at or after input record `record`'s place in the view's order
    /// (`dataRowCount` when none follows), when it is not in the view; nil when the view
    /// cannot tell.
    public func row(following record: Int) -> Int? {
        guard let rows else { return max(0, record - headerRows) }
        return rows.index(of: record) ?? rows.index(following: record)
    }

    /// The number a user sees for view row `row`: its data record's place in the file,
    /// counting from 1.
    package func displayNumber(ofRow row: Int) -> Int { record(ofRow: row) - headerRows + 1 }

    /// Reads the rows of view rows `ranges` (those on screen) in one batch, in the order
    /// they lie in the source (a mapped view; the plain view reads through the source's
    /// own cache).
    package func fetch(rows ranges: [Range<Int>]) {
        guard let rows else { return }
        let total = rows.count
        let wanted = ranges.map { $0.clamped(to: 0..<total) }
        let count = wanted.reduce(0) { $0 + $1.count }
        // Rows of an older generation read differently now: none is kept.
        if batchGeneration != source.generation {
            batch = [:]
            batchRecords = [:]
            batchRanges = []
            batchGeneration = source.generation
        }
        // The same rows as last time, all read, in a sequence that has not changed: nothing to do.
        guard wanted != batchRanges || batch.count < count || total != batchCount else { return }
        // Rows still on screen are kept; only those that came into view are read (a scroll
        // step reads one record).
        var refs: [RecordRef] = []
        var records: [Int: Int] = [:]
        var kept: [Int: Row] = [:]
        // Offsets noted before the last edits are not those of the bytes now.
        let hasOffsets = !hasStaleOffsets
        for range in wanted {
            let some = rows.records(in: range)
            for (offset, ref) in some.enumerated() {
                records[range.lowerBound + offset] = ref.record
                if let row = batch[ref.record] {
                    kept[ref.record] = row
                } else {
                    refs.append(hasOffsets ? ref : RecordRef(record: ref.record))
                }
            }
        }
        kept.merge(source.rows(refs)) { old, _ in old }
        batch = kept
        batchRecords = records
        batchRanges = wanted
        batchCount = total
    }

    /// True when the rows shown were made from the file's bytes with other edits than
    /// those in force now: their records' offsets are not those of the bytes now.
    package var hasStaleOffsets: Bool {
        guard let rows, let file else { return false }
        return rows.patch.id != file.patch.id
    }

    /// The rows shown, for a pass or an export over the file's bytes as they are now
    /// (edits made since the rows were: their offsets are left out, records found anew).
    package var rowsForPasses: (any RecordSequence)? {
        guard let rows else { return nil }
        return hasStaleOffsets ? RecordsWithoutOffsets(rows) : rows
    }

    /// Forgets the rows read for the screen (edited since): the next frame reads them again.
    package func forgetFetchedRows() {
        batch = [:]
        batchRecords = [:]
        batchRanges = []
    }

    /// View row `row`'s record, or nil when it is not known (yet).
    package func row(_ row: Int) -> Row? {
        let record = record(ofRow: row)
        return record >= 0 ? self.row(ofInputRecord: record) : nil
    }

    /// Source record `record`'s row: from the rows on screen in a mapped view (read in
    /// their batch), else from the source.
    package func row(ofInputRecord record: Int) -> Row? {
        if rows != nil, batchGeneration == source.generation, let row = batch[record] { return row }
        return source.row(record)
    }

    /// Header record `index` (0 is the first record of the source).
    package func headerRecord(_ index: Int) -> Row? { source.row(index) }

    // MARK: Columns

    /// Columns in the source known so far (at least 1), up to the most fields a record
    /// held in memory keeps (the status line says when a record has more).
    package var fileColumnCount: Int { max(min(source.columnCount, RecordParser.Limits.fieldLimit), 1) }
    /// Columns in the view.
    package var columnCount: Int { max(1, columns.count(of: fileColumnCount)) }
    /// The source column shown at view column `column`.
    package func fileColumn(_ column: Int) -> Int { columns.fileColumn(column) }

    /// The cell of view row `row` at view column `column`.
    package func cell(row: Int, column: Int) -> ArraySlice<UInt8> {
        self.row(row)?.field(fileColumn(column)) ?? []
    }

    /// The input columns' unique names (see `ColumnNames`), made from the first header row
    /// with each name cut to 256 bytes; every column is `column N` without a header row.
    ///
    /// - Complexity: O(1) once made; made again only when the header row changes (it is
    ///   still arriving).
    package var columnNames: ColumnNames {
        let header = headerRows > 0 && source.rowCount > 0 ? source.row(0) : nil
        let key = header.map { [$0.bytes.count, $0.ends.count, $0.clipped.count] } ?? []
        if let names, names.key == key { return names.names }
        let made = ColumnNames(header: header, longest: 256)
        names = (key, made)
        return made
    }

    /// The cell of header record `index` at view column `column`.
    package func headerCell(_ index: Int, column: Int) -> ArraySlice<UInt8> {
        headerRecord(index)?.field(fileColumn(column)) ?? []
    }
}
