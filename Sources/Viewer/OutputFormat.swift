import CellStore

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
public final class OutputWriter {
    let format: OutputFormat
    let lineEnding: [UInt8]
    let sink: ([UInt8]) -> Bool
    private var buffer: [UInt8] = []
    private var records = 0
    private var tableSample: [Row] = []
    /// JSON lines: the header's names, and where in the record the pieces have got to.
    var lines = JSONLines()
    /// A table's record whose long cell is still arriving in pieces (only its first piece
    /// is kept: a table clips it anyway).
    private var tablePending: Row?
    private var tableWidths: [Int]?
    private let headerRows: Int
    /// False once the sink refused more (the reader went away), or on a `failure`.
    public private(set) var isOpen = true
    /// Why the output stopped when the input cannot be written in this format.
    public private(set) var failure: String?
    /// CSV and TSV: the last cell of a piece, not written yet (see `appendPiece`).
    private var held = HeldCell()

    /// Rows an aligned table measures before it writes anything.
    static let tableSampleRows = 1000
    static let tableMaximumWidth = 50

    /// - Parameters:
    ///   - lineEnding: what ends a record in CSV and TSV (the input's own, to round-trip).
    ///   - headerRows: header rows, underlined in a table.
    ///   - byteOrderMark: the input started with a UTF-8 byte-order mark; CSV and TSV
    ///     start with one too (JSON must not, and a table is for reading).
    ///   - preamble: the lines before the table (a title, `#` notes), as they were in the
    ///     input: CSV and TSV write them back as they were, a table above itself; JSON,
    ///     which holds records only, leaves them out, as the screen keeps them out of the table.
    ///   - sink: takes bytes; returns false when they cannot be written.
    public init(format: OutputFormat, lineEnding: [UInt8] = [0x0A], headerRows: Int = 1, byteOrderMark: Bool = false,
                preamble: [UInt8] = [], sink: @escaping ([UInt8]) -> Bool) {
        self.format = format
        self.lineEnding = lineEnding
        self.headerRows = headerRows
        self.sink = sink
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
        if format == .table {
            guard let whole = OutputWriter.joining(row, to: &tablePending) else { return isOpen }
            return writeRecord(whole)
        }
        return writeRecord(row)
    }

    /// Joins the pieces of a record for a table, keeping only the start of a long cell.
    static func joining(_ row: Row, to pending: inout Row?) -> Row? {
        var whole: Row
        if row.continuesPrevious, let start = pending {
            whole = start
            for index in 1..<max(1, row.count) {
                whole.bytes.append(contentsOf: row.field(index))
                whole.ends.append(whole.bytes.count)
            }
        } else {
            whole = row
        }
        whole.continuesPrevious = false
        whole.continuesInNext = false
        if row.continuesInNext {
            pending = whole
            return nil
        }
        pending = nil
        return whole
    }

    private func writeRecord(_ row: Row) -> Bool {
        switch format {
        case .csv, .tsv:
            let delimiter = format == .csv ? UInt8(ascii: ",") : 0x09
            if row.continuesPrevious || row.continuesInNext {
                var held = self.held
                withBuffer { OutputWriter.appendPiece(row, delimiter: delimiter, lineEnding: lineEnding, held: &held, to: &$0) }
                self.held = held
            } else {
                withBuffer { OutputWriter.appendDelimited(row, delimiter: delimiter, lineEnding: lineEnding, to: &$0) }
            }
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
                var state = lines
                withBuffer { state.append(row, to: &$0) }
                lines = state
            }
        case .table:
            if tableWidths == nil {
                tableSample.append(row)
                if tableSample.count >= OutputWriter.tableSampleRows { flushTableSample() }
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
            if !endsWithTerminator && records > 0 && buffer.count >= lineEnding.count {
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
    private func withBuffer(_ body: (inout [UInt8]) -> Void) {
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
    /// and readers such as Python's csv skip blank lines.
    static func appendDelimited(_ row: Row, delimiter: UInt8, lineEnding: [UInt8], to buffer: inout [UInt8]) {
        if row.count == 0 && !row.continuesPrevious && !row.continuesInNext { buffer.append(contentsOf: [0x22, 0x22]) }
        let isLoneCell = row.count == 1 && !row.continuesPrevious
        for index in 0..<row.count {
            let continues = index == 0 && row.continuesPrevious
            let goesOn = index == row.count - 1 && row.continuesInNext
            if index > 0 { buffer.append(delimiter) }
            let field = row.field(index)
            let needsQuotes = continues || goesOn || (isLoneCell && field.isEmpty)
                || field.contains { $0 == delimiter || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
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
        /// The bytes held (at most one piece's), nil when nothing is held.
        var bytes: [UInt8]?
        /// The cell's opening quote and earlier pieces are written already.
        var isQuoted = false
    }

    /// A piece of a record (`Row.continuesPrevious` / `continuesInNext`) in CSV or TSV.
    static func appendPiece(_ row: Row, delimiter: UInt8, lineEnding: [UInt8], held: inout HeldCell, to buffer: inout [UInt8]) {
        let needsQuotes: (ArraySlice<UInt8>) -> Bool = { field in
            field.contains { $0 == delimiter || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
        }
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

    /// Bytes of a quoted cell, quotes doubled, with its opening quote when `opening`.
    static func appendEscaped(_ field: ArraySlice<UInt8>, opening: Bool, to buffer: inout [UInt8]) {
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
            OutputWriter.appendJSONString(row.string(index), opens: !continues, closes: !goesOn, to: &buffer)
        }
        if !row.continuesInNext { buffer.append(UInt8(ascii: "]")) }
    }

    static func appendJSONString(_ string: String, opens: Bool = true, closes: Bool = true, to buffer: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        if opens { buffer.append(0x22) }
        for byte in string.utf8 {
            switch byte {
            case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: buffer.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: buffer.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: buffer.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20:
                buffer.append(contentsOf: Array("\\u00".utf8))
                buffer.append(hex[Int(byte >> 4)])
                buffer.append(hex[Int(byte & 0xF)])
            default: buffer.append(byte)
            }
        }
        if closes { buffer.append(0x22) }
    }

    // MARK: Aligned table

    private func flushTableSample() {
        var widths: [Int] = []
        for row in tableSample {
            if row.count > widths.count { widths.append(contentsOf: repeatElement(0, count: row.count - widths.count)) }
            for index in 0..<row.count {
                widths[index] = max(widths[index], CellText.width(row.field(index), limit: OutputWriter.tableMaximumWidth))
            }
        }
        tableWidths = widths.map { min(max(1, $0), OutputWriter.tableMaximumWidth) }
        for (index, row) in tableSample.enumerated() { writeTableRow(row, index: index) }
        tableSample = []
    }

    private func writeTableRow(_ row: Row, index: Int) {
        guard let widths = tableWidths else { return }
        let isHeader = index < headerRows
        withBuffer { buffer in
            OutputWriter.appendTableRow(row, widths: widths, isHeader: isHeader, to: &buffer)
            if index == headerRows - 1 {
                let total = widths.reduce(0, +) + max(0, widths.count - 1) * 2
                buffer.append(contentsOf: Array(String(repeating: "─", count: max(1, total)).utf8))
                buffer.append(0x0A)
            }
        }
    }

    static func appendTableRow(_ row: Row, widths: [Int], isHeader: Bool, to buffer: inout [UInt8]) {
        let start = buffer.count
        for column in 0..<max(row.count, 1) {
            if column > 0 { buffer.append(contentsOf: [0x20, 0x20]) }
            let field = row.field(column)
            // Columns no sampled row reached get the width of their own cell.
            let width = column < widths.count ? widths[column] : max(1, CellText.width(field, limit: tableMaximumWidth))
            let alignRight = !isHeader && CellText.isNumber(field)
            if field.count <= width && field.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                // Printable ASCII that fits: copied as it is, the common case.
                let padding = width - field.count
                if alignRight { buffer.append(contentsOf: repeatElement(0x20, count: padding)) }
                buffer.append(contentsOf: field)
                if !alignRight { buffer.append(contentsOf: repeatElement(0x20, count: padding)) }
            } else {
                for cell in CellText.layout(field, width: width, alignRight: alignRight, style: .plain) {
                    buffer.append(contentsOf: cell.text.utf8)
                }
            }
        }
        while buffer.count > start && buffer[buffer.count - 1] == 0x20 { buffer.removeLast() }
        buffer.append(0x0A)
    }
}
