#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Scan
import Table

// MARK: Records one at a time: a span's own bytes, or its cells

extension Exporter {
    /// Writes `records` (in increasing order), each found from the checkpoint before it.
    func writeRecords(_ records: [Int]) {
        SpanFinder(reader: reader, window: window).forEachSpan(ofRecords: records) { span in
            write(span)
            return !isStopped
        }
    }

    /// Writes one record from its span: its own bytes, or its cells.
    func write(_ span: RecordSpan, bytes given: UnsafeRawBufferPointer? = nil) {
        defer {
            lastRecordWritten = span.record
            countRows(from: span.record, to: span.record + 1)
        }
        // A blank line is written `""` (readers such as Python's csv skip blank lines).
        let isBlank = span.length <= 2 && span.record >= firstBlank
            && (given.map { $0.allSatisfy { $0 == 0x0D || $0 == 0x0A } }
                ?? window.withBytes(span.start..<span.end) { $0.allSatisfy { $0 == 0x0D || $0 == 0x0A } })
        // Read from JSON, the header names columns found late only as cells (see `JSONReport`).
        let isLateHeader = span.record == 0 && reader?.json?.current.lateNames.isEmpty == false
        if writesRawBytes && span.record < wellQuoted && !isBlank && !isLateHeader {
            if let given {
                writer.writeRaw(given, records: 1, lineEnding: !span.hasTerminator)
                if let last = given.last { lastByte = last }
            } else {
                forEachPiece(of: span) { bytes, isLast in
                    writer.writeRaw(bytes, records: isLast ? 1 : 0, lineEnding: isLast && !span.hasTerminator)
                    if let last = bytes.last { lastByte = last }
                }
            }
            if !span.hasTerminator { lastByte = lineEnding.last ?? 0x0A }
            return
        }
        if span.record < wellQuoted && span.hasTerminator && span.length < Self.splitRecord && !isLateHeader, var splitter {
            // A short record the index vouches for: its cells straight from its bytes, as the
            // parser reads them (no cell clipped, no piece), several times faster.
            let split = { (bytes: UnsafeRawBufferPointer) in splitter.split(bytes) { row in self.writeCells(row, record: span.record) } }
            if let given { split(given) } else { window.withBytes(span.start..<span.end, split) }
            self.splitter = splitter
            return
        }
        // As cells: a well-quoted record with a line ending joins the ones before in the
        // parser; others are parsed alone, as a record read from its offset is (the last
        // record of an input that has no line ending may be an open quote, and text after
        // a closing quote is read by the parser's own rule, which needs the record's start).
        let parser: RecordParser
        let isShared = span.hasTerminator && span.record < wellQuoted
        if isShared {
            if self.parser == nil { self.parser = try? RecordParser(dialect: reader.dialect, streams: true) }
            guard let shared = self.parser else { return }
            parser = shared
        } else {
            guard let alone = try? RecordParser(dialect: reader.dialect, streams: true) else { return }
            parser = alone
        }
        var record = span.record
        func feed(_ bytes: UnsafeRawBufferPointer) {
            guard !bytes.isEmpty else { return }
            // A blank line after a record that ended with a lone CR would read as its LF:
            // it is fed as a blank line of a CR, which reads as the same one empty cell.
            if isShared && lastFedCR && bytes.count == 1 && bytes.first == 0x0A {
                let blank: [UInt8] = [0x0D]
                blank.withUnsafeBytes { parser.parse($0) }
                for row in parser.takeRecords() where !isStopped {
                    writeCells(row, record: record)
                    if !row.continuesInNext { record += 1 }
                }
                return
            }
            parser.parse(bytes)
            if isShared { lastFedCR = bytes.last == 0x0D }
            for row in parser.takeRecords() where !isStopped {
                writeCells(row, record: record)
                if !row.continuesInNext { record += 1 }
            }
        }
        if let given {
            feed(given)
        } else {
            forEachPiece(of: span) { bytes, _ in feed(bytes) }
        }
        if !span.hasTerminator {
            parser.finish()
            for row in parser.takeRecords() where !isStopped { writeCells(row, record: record) }
        }
    }

    /// Calls `body` with the bytes of `span`, a mebibyte at a time (the window stays its size).
    private func forEachPiece(of span: RecordSpan, _ body: (UnsafeRawBufferPointer, Bool) -> Void) {
        var position = span.start
        while position < span.end && !isStopped {
            let stop = min(span.end, position + (1 << 20))
            let from = position
            window.withBytes(from..<stop) { body($0, stop == span.end) }
            position = stop
        }
        if span.length > Self.longRecord { window.shrink() }
    }

    /// Writes a record (or a piece) as cells, the columns chosen.
    func writeCells(_ given: Row, record: Int) {
        var given = given
        // No reader when a snapshot (a sheet, a diff) is written.
        if record == 0, let json = reader?.json { given = json.extending(header: given) }
        switch Self.shaped(given, record: record, plan: plan, projection: &projection) {
        case .success(let row?):
            writer.write(row)
            if !row.continuesInNext { lastByte = lineEnding.last ?? 0x0A }
        case .success(nil):
            break
        case .failure(let failure):
            outcome.failure = failure.description
        }
    }

    /// `row` as the plan writes it: its columns chosen (a record in pieces is gathered by
    /// `projection`: nil until its last piece).
    static func shaped(_ row: Row, record: Int, plan: ExportPlan, projection: inout Projection) -> Result<Row?, ExportError> {
        guard let columns = plan.columns else { return .success(row) }
        if row.continuesInNext || row.continuesPrevious || projection.isGathering {
            guard projection.gather(row, columns: columns) else {
                return .failure(.unreadable("\(plan.name): \(RecordPlace.name(record, headerRows: plan.headerRows)) has chosen cells over \(Projection.limit >> 20) MiB in all; "
                                            + "write it without --columns (or hidden columns)"))
            }
            return .success(row.continuesInNext ? nil : projection.take(columns))
        }
        var bytes: [UInt8] = []
        var ends: [Int] = []
        ends.reserveCapacity(columns.count)
        for column in columns {
            bytes.append(contentsOf: row.field(column))
            ends.append(bytes.count)
        }
        var shaped = Row(bytes: bytes, ends: ends)
        if !row.quotedEmpty.isEmpty {
            shaped.quotedEmpty = columns.indices.filter { row.quotedEmpty.contains(columns[$0]) }
        }
        return .success(shaped)
    }
}

/// The chosen cells of a record that arrives in pieces, gathered until its last piece.
struct Projection {
    /// Bytes of chosen cells gathered at most for one record.
    static let limit = 64 << 20
    private var pieces = RecordPieces()
    private var cells: [Int: [UInt8]] = [:]
    private var bytes = 0
    private(set) var isGathering = false

    /// Takes a piece (or a whole record); false past `limit`.
    mutating func gather(_ row: Row, columns: [Int]) -> Bool {
        let first = pieces.place(row)
        isGathering = row.continuesInNext
        for index in 0..<row.count where columns.contains(first + index) {
            let field = row.field(index)
            cells[first + index, default: []].append(contentsOf: field)
            bytes += field.count
        }
        return bytes <= Self.limit
    }

    /// The record's chosen cells, in order; gathering starts again.
    mutating func take(_ columns: [Int]) -> Row {
        var result: [UInt8] = []
        var ends: [Int] = []
        for column in columns {
            result.append(contentsOf: cells[column] ?? [])
            ends.append(result.count)
        }
        cells = [:]
        bytes = 0
        isGathering = false
        return Row(bytes: result, ends: ends)
    }
}
