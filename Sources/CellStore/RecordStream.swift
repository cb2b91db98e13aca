#if canImport(Glibc)
import Glibc
#endif

/// Reads an input once from start to end and hands over each record, in constant memory:
/// the path for output modes (`--output`, or stdout not a terminal).
package enum RecordStream {
    /// The result of a pass.
    package struct Summary: Sendable {
        package var dialect: Dialect
        package var records: Int
        /// True when the input's last byte ended a record.
        package var endsWithTerminator: Bool
        /// Where compressed input broke off, if it did: every record before was delivered.
        package var damage: String?
    }

    /// What the start of the input says, known before the first record.
    package struct Start: Sendable {
        package var dialect: Dialect
        /// True when the input starts with a UTF-8 byte-order mark (skipped when parsing,
        /// written back by CSV and TSV output so a file round-trips byte for byte).
        package var hasByteOrderMark: Bool
        /// The lines before the table (with their line ends) as the input has them.
        package var preamble: [UInt8]
        /// True when the records were made from JSON: an empty cell without quotes is a
        /// null (or a missing key), `""` a quoted one (`Row.quotedEmpty`).
        package var isJSON = false
    }

    /// Streams the input `spec` describes, calling `body` with each record in order.
    /// `body` returns false to stop early (the reader of our output went away). A cell
    /// longer than the parser's cell limit comes in pieces: rows marked `continuesInNext`
    /// and `continuesPrevious` (see `Row`), so memory stays bounded whatever the cells.
    /// The text is converted from the spec's encoding (or what a byte-order mark says) to
    /// UTF-8; where it is not valid in it, `damage` says so once every record is delivered.
    /// Nothing is spooled, so the spec's spool limit does not apply; nor does following.
    @discardableResult
    package static func forEach(_ spec: InputSpec, started: ((Start) -> Void)? = nil,
                               _ body: (Row) -> Bool) throws(CellStoreError) -> Summary {
        let spec = try spec.resolvingFormat()
        let path = try spec.readablePath()
        let (delimiter, quote, preamble) = (spec.delimiter, spec.quote, spec.preamble)
        let reader: TextReader
        let name: String?
        /// The input's name in messages, and whether its bytes come through a decompressor.
        let inputName: String, isPacked: Bool
        if spec.format == .xlsx {
            reader = try TextReader.sheet(spec)
            (name, inputName, isPacked) = (path, spec.name, true)
        } else {
            let opened = try OpenedInput.open(path: path, encoding: spec.encoding)
            reader = try opened.sequentialReader(json: try opened.jsonMode(format: spec.format))
            name = path == nil || path == "-" ? nil : opened.tableName
            (inputName, isPacked) = (opened.name, opened.compression != nil)
        }
        var damage: PackedDamage?
        /// The next bytes: a count, 0 at the end or where compressed data breaks off.
        func next(_ buffer: inout [UInt8]) -> Int {
            guard damage == nil else { return 0 }
            do {
                return try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            } catch let error as PackedDamage {
                damage = error
            } catch {
                damage = PackedDamage(.unreadable("\(error)"), at: 0)
            }
            return 0
        }
        let chunkSize = 1 << 18
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        // Gather the start (up to 64 KiB or the end) to judge the BOM and the dialect.
        var start: [UInt8] = []
        var ended = false
        while start.count < 1 << 16 {
            let count = next(&buffer)
            if count == 0 { ended = true; break }
            start.append(contentsOf: buffer[..<count])
        }
        var (dialect, dataStart, _, preambleStart) = Loader.judgeStart(start, fileName: name, delimiter: delimiter, quote: quote,
                                                                       preamble: preamble)
        if reader.jsonReport != nil {
            // CSV this program made from JSON: nothing to guess, and no key is a preamble.
            (dialect, dataStart, preambleStart) = (Dialect.madeFromJSON, 0, 0)
        }
        dialect.encoding = reader.encodingName
        dialect.overruledEncoding = reader.overruledEncoding
        let bomLength = start.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        // An Excel `sep=` line is left out: the output has a delimiter of its own.
        started?(Start(dialect: dialect, hasByteOrderMark: bomLength > 0, preamble: Array(start[preambleStart..<dataStart]),
                       isJSON: reader.jsonReport != nil))
        let parser = try RecordParser(dialect: dialect, streams: true)
        var records = 0
        var lastByte: UInt8 = start.last ?? 0x0A
        var stopped = false

        func deliver() {
            for row in parser.takeRecords() where !stopped {
                if !row.continuesInNext { records += 1 }
                if !body(row) { stopped = true }
            }
        }
        parser.parse(start[dataStart...])
        deliver()
        while !ended && !stopped {
            let count = next(&buffer)
            if count == 0 { break }
            lastByte = buffer[count - 1]
            parser.parse(buffer[..<count])
            deliver()
        }
        // Where compressed data breaks off, the bytes after the last record's end are a
        // record cut short: written, they would pass for a whole one.
        if !stopped && damage == nil {
            parser.finish()
            deliver()
        }
        let endsWithTerminator = damage != nil || lastByte == 0x0A || lastByte == 0x0D
        if let damage, case .unreadable(let why) = damage.kind, !isPacked {
            throw CellStoreError.unreadable(inputName, why)
        }
        return Summary(dialect: dialect, records: records, endsWithTerminator: endsWithTerminator,
                       damage: damage?.description ?? reader.encodingProblem ?? reader.jsonReport?.breakNote)
    }
}

/// Where each piece of a streamed record sits in its record, for readers that want a
/// cell by its column: a piece's first cell is a later cell of the same record.
package struct RecordPieces: Sendable {
    /// The record's cell number of the next piece's first cell.
    private var nextFirstCell = 0

    package init() {}

    /// Takes the rows of a stream in order and returns the record's cell number of `row`'s
    /// cell 0 (0 for a whole record, and for the first piece of one).
    package mutating func place(_ row: Row) -> Int {
        let first = row.continuesPrevious ? nextFirstCell : 0
        // The next piece goes on with this one's last cell.
        nextFirstCell = row.continuesInNext ? first + max(row.count, 1) - 1 : 0
        return first
    }
}
