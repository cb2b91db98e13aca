import CellStore
import Display

/// The text formats written when nothing is drawn.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// Aligned columns for reading, display-width aware.
    case table
    /// Comma-separated, the cells exactly as parsed, quoted only where needed.
    case csv
    /// Tab-separated, quoted like CSV where a cell holds a tab, quote or line break.
    case tsv
    /// An array of records, each an array of strings.
    case json
    /// One JSON object a line, keyed by the header's names (the usual shape for `jq`).
    case jsonl
}

/// Writes records in an `OutputFormat`, streaming: memory stays constant whatever the
/// input's size (an aligned table holds only its first rows, to measure them).
///
/// Every format writes every cell whole. A table aligns its columns by the widest cell of
/// its first rows (`sampleRows`, or as many as fit in `tableSampleBytes`; up to
/// `tableAlignmentLimit` cells), lets a wider cell after them run on (its line is longer,
/// the rest of that line moves right, nothing is cut), and shows control characters as
/// the screen does (a line break as `↵`); only an explicit `maximumWidth` cuts a cell, with
/// `…`. Once the widths are set, later records can be laid out on other cores
/// (`continuation`), and well-quoted ones in bulk (`writeWellQuoted`).
public final class OutputWriter {
    let format: OutputFormat
    let lineEnding: [UInt8]
    let sink: ([UInt8]) -> Bool
    var buffer: [UInt8] = []
    private var records = 0
    var tableSample: [Row] = []
    /// Cell bytes `tableSample` holds.
    var tableSampleHeld = 0
    /// The most cell bytes a table held at once to measure its columns (for tests).
    public private(set) var largestSampleHeld = 0
    /// Rows an aligned table measures before it writes anything.
    let sampleRows: Int
    /// A table's lines made in bulk, once its widths are set (shared with continuations).
    var tableLines: TableLines?
    /// JSON lines: the header's names, and where in the record the pieces have got to.
    var lines = JSONLines()
    var tableWidths: [Int]?
    /// A table's record whose long cell is still arriving in pieces.
    var tablePiece = TablePiece()
    /// Cells wider than this many cells are cut, with `…` (nil: none is).
    let maximumWidth: Int?
    let headerRows: Int
    /// False once the sink refused more (the reader went away), or on a `failure`.
    public private(set) var isOpen = true
    /// CSV and TSV: the buffer ends with a line ending this writer added, which `finish`
    /// may take back (not one of a record copied as it was).
    private var endsWithOwnLineEnding = false
    /// JSON and JSON lines: how each column's cells are written, for a table read from JSON
    /// (`JSONReport.valueTypes`): `.number` bare (an empty cell null), `.text` a string.
    /// Nil: every cell a string.
    public var cellTypes: [ValueType]?
    /// Why the output stopped when the input cannot be written in this format.
    public private(set) var failure: String?
    /// CSV and TSV: the last cell of a piece, not written yet (see `appendPiece`).
    var held = HeldCell()

    /// Rows an aligned table measures before it writes anything.
    public static let tableSampleRows = 1000
    /// Cell bytes an aligned table holds at most to measure: fewer rows are measured when
    /// the first ones are long, so memory stays bounded whatever their cells' size.
    public static let tableSampleBytes = 4 << 20
    /// No column of a table is padded wider than this, unless `maximumWidth` is wider: a
    /// long cell in the first rows does not pad every line of the file to its width.
    static let tableAlignmentLimit = 120

    /// - Parameters:
    ///   - lineEnding: what ends a record in CSV and TSV (the input's own, to round-trip).
    ///   - headerRows: header rows, underlined in a table.
    ///   - byteOrderMark: the input started with a UTF-8 byte-order mark; CSV and TSV
    ///     start with one too (JSON must not, and a table is for reading).
    ///   - preamble: the lines before the table (a title, `#` notes), as they were in the
    ///     input: CSV and TSV write them back as they were, a table above itself; JSON,
    ///     which holds records only, leaves them out, as the screen keeps them out of the table.
    ///   - maximumWidth: a table cuts cells wider than this many cells, with `…` (nil: it
    ///     writes every cell whole).
    ///   - keys: JSON lines' keys, when the cells written are chosen columns (`--columns`):
    ///     the names the table gives them, which their header cells alone would not give
    ///     (`a,a` names its second column `a_2`). Nil: keys from the header row written.
    ///   - keysLead: how many of `keys` name cells that are no input column (the source
    ///     column of several inputs without a header): cells past the keys are named
    ///     `column N` by the input's column.
    ///   - sampleRows: rows a table measures (tests make it small).
    ///   - sink: takes bytes; returns false when they cannot be written.
    public init(format: OutputFormat, lineEnding: [UInt8] = [0x0A], headerRows: Int = 1, byteOrderMark: Bool = false,
                preamble: [UInt8] = [], maximumWidth: Int? = nil, keys: [String]? = nil, keysLead: Int = 0,
                sampleRows: Int = OutputWriter.tableSampleRows, sink: @escaping ([UInt8]) -> Bool) {
        self.format = format
        self.sampleRows = max(1, sampleRows)
        self.maximumWidth = maximumWidth.map { max(1, $0) }
        self.lineEnding = lineEnding
        self.headerRows = headerRows
        self.sink = sink
        if let keys { lines = JSONLines(keys: keys, lead: keysLead) }
        buffer.reserveCapacity(1 << 16)
        if byteOrderMark && (format == .csv || format == .tsv) { buffer.append(contentsOf: [0xEF, 0xBB, 0xBF]) }
        switch format {
        case .csv, .tsv: buffer.append(contentsOf: preamble)
        case .table:
            // As plain lines, controls shown as symbols like any text that reaches a terminal.
            var lines = String(decoding: preamble, as: UTF8.self).split(omittingEmptySubsequences: false,
                                                                      whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            if lines.last?.isEmpty == true { lines.removeLast() }
            for line in lines {
                buffer.append(contentsOf: CellText.glyphs(String(line)).map(\.text).joined().utf8)
                buffer.append(0x0A)
            }
        case .json, .jsonl: break
        }
    }

    /// Adds one record, or a piece of one (see `Row.continuesInNext`); returns false when
    /// output can no longer be written.
    @discardableResult
    public func write(_ row: Row) -> Bool {
        writeRecord(row)
    }

    /// Adds one whole record of an SQL answer, `types` its cells' types: JSON and JSON
    /// lines write a number bare and NULL as `null`; other formats write its text, as
    /// `write(_:)` does (NULL's is empty).
    @discardableResult
    public func write(_ row: Row, types: ArraySlice<ValueType>) -> Bool {
        guard format == .json || format == .jsonl, records >= headerRows, types.count == row.count,
              !row.continuesPrevious && !row.continuesInNext else { return writeRecord(row) }
        if format == .json {
            withBuffer { OutputWriter.appendJSON(row, types: types, isFirst: records == 0, to: &$0) }
        } else {
            withBuffer { lines.append(row, types: types, to: &$0) }
        }
        records += 1
        if buffer.count >= 1 << 16 { flush() }
        return isOpen
    }

    private func writeRecord(_ row: Row) -> Bool {
        if let cellTypes, format == .json || format == .jsonl, records >= headerRows,
           !row.continuesPrevious && !row.continuesInNext {
            // An empty cell without quotes is JSON's null (or a key the record lacks); `""`
            // made by the converter is quoted (`Row.quotedEmpty`).
            let types = (0..<row.count).map { index -> ValueType in
                if row.field(index).isEmpty { return row.quotedEmpty.contains(index) ? .text : .null }
                guard index < cellTypes.count, cellTypes[index] != .text else { return .text }
                return .number
            }
            return write(row, types: types[...])
        }
        switch format {
        case .csv, .tsv:
            let delimiter = format == .csv ? UInt8(ascii: ",") : 0x09
            if row.continuesPrevious || row.continuesInNext {
                var held = self.held
                withBuffer { OutputWriter.appendPiece(row, delimiter: delimiter, lineEnding: lineEnding, held: &held, to: &$0) }
                self.held = held
            } else {
                withBuffer {
                    OutputWriter.appendDelimited(row, delimiter: delimiter, lineEnding: lineEnding, isFirstLine: records == 0, to: &$0)
                }
            }
            endsWithOwnLineEnding = !row.continuesInNext
        case .json: withBuffer { OutputWriter.appendJSON(row, isFirst: records == 0, to: &$0) }
        case .jsonl:
            if records < headerRows {
                if records == 0 { lines.name(from: row) }
                if lines.isHeaderTooLong {
                    failure = "the header row is longer than \(JSONLines.longestHeader >> 20) MiB, too long for JSON keys "
                        + "(--no-header or --output json write it)"
                    isOpen = false
                    return false
                }
            } else {
                // In place: a copy of the state per record cost a retain and a release of each
                // of its arrays, a sixth of the time.
                withBuffer { lines.append(row, to: &$0) }
            }
        case .table:
            if row.continuesPrevious || row.continuesInNext {
                // A record in pieces is written as it comes: the rows so far are measured.
                if tableWidths == nil { flushTableSample(measuring: row) }
                writeTablePiece(row, index: records)
            } else if tableWidths == nil {
                tableSample.append(row)
                tableSampleHeld += row.bytes.count
                largestSampleHeld = max(largestSampleHeld, tableSampleHeld)
                if tableSample.count >= sampleRows || tableSampleHeld >= OutputWriter.tableSampleBytes { flushTableSample() }
            } else {
                writeTableRow(row, index: records)
            }
        }
        if !row.continuesInNext { records += 1 }
        if buffer.count >= 1 << 16 {
            // The last line ending stays: `finish` takes it back if the input had none.
            flush(keeping: format == .csv || format == .tsv ? lineEnding.count : 0)
        }
        return isOpen
    }

    /// Ends the output. `endsWithTerminator` false leaves the last CSV/TSV record without
    /// a line ending, as the input had it.
    public func finish(endsWithTerminator: Bool = true) {
        switch format {
        case .csv, .tsv:
            // A record cut short (damaged input) ends as far as it came.
            if let bytes = held.bytes { withBuffer { OutputWriter.appendEscaped(bytes[...], opening: !held.isQuoted, to: &$0) } }
            held = HeldCell()
            if !endsWithTerminator && endsWithOwnLineEnding && records > 0 && buffer.count >= lineEnding.count {
                buffer.removeLast(lineEnding.count)
            }
        case .json:
            buffer.append(contentsOf: Array((records == 0 ? "[]\n" : "\n]\n").utf8))
        case .jsonl:
            break
        case .table:
            if tableWidths == nil { flushTableSample() }
        }
        flush()
    }

    /// Appends through a local array: appending to the property byte by byte would pay
    /// a runtime exclusivity check per byte.
    func withBuffer(_ body: (inout [UInt8]) -> Void) {
        var local: [UInt8] = []
        swap(&local, &buffer)
        body(&local)
        swap(&local, &buffer)
    }

    /// Hands the buffer to the sink, all but its last `tail` bytes.
    private func flush(keeping tail: Int = 0) {
        let sent = buffer.count - min(tail, buffer.count)
        guard isOpen, sent > 0 else {
            if !isOpen { buffer.removeAll(keepingCapacity: true) }
            return
        }
        isOpen = sink(sent == buffer.count ? buffer : Array(buffer[..<sent]))
        buffer.removeFirst(sent)
    }

    // MARK: CSV and TSV

    /// A record, or a piece of one: a cell that arrives in pieces is always quoted (its
    /// quote opens with its first piece and closes with its last). A record of one empty
    /// cell is written `""`: as an empty line it would be lost after the last line ending,
    /// and readers such as Python's csv skip blank lines. On the first line, a first cell
    /// starting `sep=` is quoted: unquoted, Excel (and csvfreeze) would read the line as
    /// the name of the delimiter, not as a record.
    package static func appendDelimited(_ row: Row, delimiter: UInt8, lineEnding: [UInt8], isFirstLine: Bool = false,
                                to buffer: inout [UInt8]) {
        if row.count == 0 && !row.continuesPrevious && !row.continuesInNext { buffer.append(contentsOf: [0x22, 0x22]) }
        let isLoneCell = row.count == 1 && !row.continuesPrevious
        for index in 0..<row.count {
            let continues = index == 0 && row.continuesPrevious
            let goesOn = index == row.count - 1 && row.continuesInNext
            if index > 0 { buffer.append(delimiter) }
            let field = row.field(index)
            let needsQuotes = continues || goesOn || (isLoneCell && field.isEmpty)
                || (isFirstLine && index == 0 && OutputWriter.looksLikeSeparatorLine(field))
                || needsQuotes(field, delimiter: delimiter)
            if needsQuotes {
                if !continues { buffer.append(0x22) }
                for byte in field {
                    if byte == 0x22 { buffer.append(0x22) }
                    buffer.append(byte)
                }
                if !goesOn { buffer.append(0x22) }
            } else {
                buffer.append(contentsOf: field)
            }
        }
        if !row.continuesInNext { buffer.append(contentsOf: lineEnding) }
    }

    /// The start of a cell that goes on in the next piece of its record: held back until
    /// that piece shows whether more bytes come, so that a cell a piece ends after (a
    /// record of many cells is handed out a part at a time) is written as if whole, and
    /// quoted only where needed, as a file round-trips byte for byte.
    struct HeldCell {
        /// The bytes held (up to `heldLimit`, while none needs quotes), nil when nothing is.
        var bytes: [UInt8]?
        /// The cell's opening quote and earlier pieces are written already.
        var isQuoted = false
        /// The bytes held are known to need no quotes.
        var isPlain = false
    }

    /// Bytes of a cell in pieces held at most while none of them needs quotes: a longer
    /// cell is quoted whatever it holds (it leaves before its end is read).
    static let heldLimit = 16 << 20

    /// A piece of a record (`Row.continuesPrevious` / `continuesInNext`) in CSV or TSV.
    static func appendPiece(_ row: Row, delimiter: UInt8, lineEnding: [UInt8], held: inout HeldCell, to buffer: inout [UInt8]) {
        let needsQuotes: (ArraySlice<UInt8>) -> Bool = { OutputWriter.needsQuotes($0, delimiter: delimiter) }
        for index in 0..<row.count {
            let field = row.field(index)
            let goesOn = index == row.count - 1 && row.continuesInNext
            if index == 0 && row.continuesPrevious {
                // The rest of the held cell.
                if held.isQuoted {
                    appendEscaped(field, opening: false, to: &buffer)
                } else {
                    let start = held.bytes ?? []
                    if field.isEmpty && goesOn { continue }   // nothing new yet: still held
                    if field.isEmpty {
                        // It ended where the piece did: a whole cell.
                        let whole = start[...]
                        if needsQuotes(whole) {
                            appendEscaped(whole, opening: true, to: &buffer)
                            buffer.append(0x22)
                        } else {
                            buffer.append(contentsOf: whole)
                        }
                        held = HeldCell()
                        continue
                    }
                    let plain = (held.isPlain || !needsQuotes(start[...])) && !needsQuotes(field)
                    if plain && goesOn && start.count + field.count <= heldLimit {
                        // Still nothing to quote: held on, to be written as it is if it stays so.
                        var bytes = held.bytes ?? []
                        held.bytes = nil
                        bytes.append(contentsOf: field)
                        held = HeldCell(bytes: bytes, isPlain: true)
                        continue
                    }
                    if plain && !goesOn {
                        buffer.append(contentsOf: start)
                        buffer.append(contentsOf: field)
                        held = HeldCell()
                        continue
                    }
                    appendEscaped(start[...], opening: true, to: &buffer)
                    appendEscaped(field, opening: false, to: &buffer)
                    held.isQuoted = true
                }
                held.bytes = nil
                if goesOn { continue }
                buffer.append(0x22)
                held = HeldCell()
                continue
            }
            if index > 0 { buffer.append(delimiter) }
            if goesOn {
                held = HeldCell(bytes: Array(field), isQuoted: false)
            } else if needsQuotes(field) {
                appendEscaped(field, opening: true, to: &buffer)
                buffer.append(0x22)
            } else {
                buffer.append(contentsOf: field)
            }
        }
        if !row.continuesInNext { buffer.append(contentsOf: lineEnding) }
    }

    /// True when a first line starting with `field` could be read as Excel's `sep=X` (any case).
    static func looksLikeSeparatorLine(_ field: ArraySlice<UInt8>) -> Bool {
        field.count >= 4 && field.prefix(4).map { $0 | 0x20 } == Array("sep=".utf8)
    }

    /// True when `field` must be quoted to be read back as one cell: it holds the
    /// delimiter, a quote or a line break.
    package static func needsQuotes(_ field: ArraySlice<UInt8>, delimiter: UInt8) -> Bool {
        field.contains { $0 == delimiter || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
    }

    /// Bytes of a quoted cell, quotes doubled, with its opening quote when `opening`.
    package static func appendEscaped(_ field: ArraySlice<UInt8>, opening: Bool, to buffer: inout [UInt8]) {
        if opening { buffer.append(0x22) }
        for byte in field {
            if byte == 0x22 { buffer.append(0x22) }
            buffer.append(byte)
        }
    }

    // MARK: JSON

    /// A record, or a piece of one: a string that arrives in pieces opens with the first
    /// and closes with the last.
    static func appendJSON(_ row: Row, isFirst: Bool, to buffer: inout [UInt8]) {
        if !row.continuesPrevious {
            buffer.append(contentsOf: Array((isFirst ? "[\n  [" : ",\n  [").utf8))
        }
        for index in 0..<row.count {
            let continues = index == 0 && row.continuesPrevious
            let goesOn = index == row.count - 1 && row.continuesInNext
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONText.append(row.field(index), opens: !continues, closes: !goesOn, to: &buffer)
        }
        if !row.continuesInNext { buffer.append(UInt8(ascii: "]")) }
    }

    /// A whole record of cells with types (see `write(_:types:)`).
    static func appendJSON(_ row: Row, types: ArraySlice<ValueType>, isFirst: Bool, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: Array((isFirst ? "[\n  [" : ",\n  [").utf8))
        for (index, type) in zip(0..<row.count, types) {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            appendJSONValue(row.field(index), type: type, to: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// A cell as JSON: a number bare, NULL as `null`, text as a string.
    static func appendJSONValue(_ field: ArraySlice<UInt8>, type: ValueType, to buffer: inout [UInt8]) {
        switch type {
        case .number: buffer.append(contentsOf: field)
        case .null: buffer.append(contentsOf: Array("null".utf8))
        case .text: JSONText.append(field, to: &buffer)
        }
    }

    static func appendJSONString(_ string: String, opens: Bool = true, closes: Bool = true, to buffer: inout [UInt8]) {
        var string = string
        string.withUTF8 { JSONText.append(UnsafeRawBufferPointer($0), opens: opens, closes: closes, to: &buffer) }
    }
}

// MARK: The export pipeline's writer

extension OutputWriter: RecordWriting {
    public var formatFailure: String? { failure }

    /// CSV and TSV write a well-quoted record of the same delimiter as its own bytes would.
    public var rawDelimiter: UInt8? {
        switch format {
        case .csv: return UInt8(ascii: ",")
        case .tsv: return 0x09
        case .table, .json, .jsonl: return nil
        }
    }

    @discardableResult
    public func writeRaw(_ bytes: UnsafeRawBufferPointer, records count: Int, lineEnding addsLineEnding: Bool) -> Bool {
        guard isOpen else { return false }
        buffer.append(contentsOf: bytes)
        if addsLineEnding { buffer.append(contentsOf: lineEnding) }
        if !bytes.isEmpty || addsLineEnding { endsWithOwnLineEnding = addsLineEnding }
        records += count
        if buffer.count >= 1 << 16 { flush(keeping: endsWithOwnLineEnding ? lineEnding.count : 0) }
        return isOpen
    }

    @discardableResult
    public func writeFormatted(_ bytes: UnsafeRawBufferPointer, records count: Int) -> Bool {
        guard isOpen else { return false }
        buffer.append(contentsOf: bytes)
        records += count
        if !bytes.isEmpty { endsWithOwnLineEnding = format == .csv || format == .tsv }
        if buffer.count >= 1 << 16 { flush(keeping: endsWithOwnLineEnding ? lineEnding.count : 0) }
        return isOpen
    }

    public func continuation(following unwritten: Int, sink: @escaping ([UInt8]) -> Bool) -> RecordWriting? {
        // Once a table's widths are set, any core lays out later rows alike.
        if format == .table && tableWidths == nil { return nil }
        let lines = tableLines
        let writer = OutputWriter(format: format, lineEnding: lineEnding, headerRows: 0, maximumWidth: maximumWidth,
                                  sampleRows: sampleRows, sink: sink)
        writer.records = records + unwritten
        writer.lines = self.lines
        writer.cellTypes = cellTypes
        writer.tableWidths = tableWidths
        writer.tableLines = lines
        return writer
    }

    public var leadingRecords: Int { format == .table ? max(headerRows, sampleRows) : 0 }

    public func writeWellQuoted(_ bytes: UnsafeRawBufferPointer, delimiter: UInt8, quote: UInt8, columns: [Int]?) -> BulkWrite? {
        // Laid out in bulk where the delimiter is ASCII and the quote a printable character:
        // neither can then be part of a character, nor stand for itself unshown.
        guard format == .table, let tableLines, records >= headerRows, isOpen, delimiter < 0x80, quote >= 0x20, quote < 0x7F
        else { return nil }
        flush()
        guard isOpen else { return BulkWrite(consumed: 0, records: 0, aside: nil) }
        let written = tableLines.write(bytes, delimiter: delimiter, quote: quote, columns: columns) { chunk in
            isOpen = sink(chunk)
            return isOpen
        }
        records += written.records
        return written
    }

    @discardableResult
    public func flushAll() -> Bool {
        flush()
        return isOpen
    }
}
