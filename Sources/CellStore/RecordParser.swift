#if canImport(Glibc)
import Glibc
#endif
import CLibCSV

/// A libcsv parser set up the way a viewer needs it, turning bytes into records, in
/// bounded memory whatever the input.
///
/// libcsv is set to trim nothing and to report every terminator, and this type adds the
/// rules libcsv leaves to its caller: the LF of a CRLF ends no extra record, a blank line
/// is a record with one empty cell, and text after a closing quote is appended to the
/// field, which then ends at the next delimiter or line end (libcsv would keep the field
/// quoted to the end of the input). A `RecordScanner` runs one chunk ahead of libcsv to
/// find that text; libcsv never sees it.
///
/// No cell or record is buffered without limit: a cell longer than `limits.cell` bytes is
/// clipped (its row says which cells were), or, in streaming mode, handed out in pieces
/// (rows marked `continuesInNext` / `continuesPrevious`); cells past `limits.cells` in one
/// record are counted, not kept. Streaming keeps every cell: a record of many cells is
/// handed out `limits.pieceCells` cells (or `limits.record` bytes) at a time.
package final class RecordParser {
    /// How much of a record is kept.
    package struct Limits: Sendable {
        /// Bytes kept of one cell.
        package var cell: Int
        /// Bytes kept of one record, past which further cells keep `smallCell` bytes.
        package var record: Int
        /// Bytes kept of a cell once a record has reached `record` bytes (16 once it has
        /// reached twice that, so that a record's bytes stay bounded with a million cells).
        package var smallCell: Int
        /// Cells kept of one record: the most fields a record held in memory may have
        /// (`fieldLimit`); streaming keeps every cell.
        package var cells: Int
        /// Streaming: the most cells handed out in one piece of a record.
        package var pieceCells: Int
        /// How much libcsv is given at a time, so that a field can be clipped while it grows.
        package var slice: Int

        package init(cell: Int = 1 << 20, record: Int = 8 << 20, smallCell: Int = 256, cells: Int = Limits.fieldLimit,
                     pieceCells: Int = 1 << 16, slice: Int = 1 << 16) {
            self.cell = max(16, cell)
            self.record = max(self.cell, record)
            self.smallCell = max(16, smallCell)
            self.cells = max(1, cells)
            self.pieceCells = max(2, pieceCells)
            self.slice = max(1, slice)
        }

        /// The most fields of one record that are held in memory (the screen, sorted and
        /// filtered output, a saved view): 1,048,576. Streamed output has no limit.
        package static let fieldLimit = 1 << 20
    }

    /// What the callbacks fill in. It lives as long as the parser, since one record's
    /// fields may arrive over several `parse` calls. It is a struct behind a pointer, not
    /// a class, because class property access pays a runtime exclusivity check on every
    /// field, which doubled the cost of parsing.
    struct Context {
        let collectsCells: Bool
        let streams: Bool
        let limits: Limits
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var clipped: [Int] = []
        var clippedLengths: [Int] = []
        var quotedEmpty: [Int] = []
        var omittedCells = 0
        var fieldsInRecord = 0
        var lastTerminator: Int32 = 0
        var records: [Row] = []
        var recordCount = 0
        var widestRecord = 0
        /// Text after a closing quote, appended to the field libcsv submits next.
        var suffix: [UInt8] = []
        /// The field being read lost bytes to the cell limit.
        var fieldClipped = false
        /// Bytes of the field being read that were dropped before it ended.
        var dropped = 0
        /// The field's end was not read (a record shown as far as it came).
        var lengthUnknown = false
        /// Streaming: the record's first cell goes on from the last row handed out.
        var continuesPrevious = false

        init(collectsCells: Bool, streams: Bool, limits: Limits) {
            self.collectsCells = collectsCells
            self.streams = streams
            self.limits = limits
        }

        /// Bytes the field being read may keep.
        var allowance: Int {
            if streams { return Int.max }
            let left = limits.record - bytes.count
            if left >= limits.smallCell { return min(limits.cell, left) }
            return bytes.count < 2 * limits.record ? limits.smallCell : 16
        }

        mutating func field(_ pointer: UnsafeMutableRawPointer?, _ length: Int) {
            fieldsInRecord += 1
            defer {
                suffix.removeAll(keepingCapacity: true)
                fieldClipped = false
                dropped = 0
            }
            guard collectsCells else { return }
            guard streams || ends.count < limits.cells else {
                omittedCells += 1
                return
            }
            let start = bytes.count
            // libcsv passes no pointer for an empty field without quotes (CSV_EMPTY_IS_NULL).
            if pointer != nil && length == 0 && suffix.isEmpty && !fieldClipped { quotedEmpty.append(ends.count) }
            let allowance = self.allowance
            var clipped = fieldClipped
            if let pointer, length > 0 {
                let kept = min(length, allowance)
                clipped = clipped || kept < length
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: kept))
            }
            if !suffix.isEmpty {
                let kept = min(suffix.count, max(0, allowance - (bytes.count - start)))
                clipped = clipped || kept < suffix.count
                bytes.append(contentsOf: suffix[..<kept])
            }
            if clipped {
                // Never end a clipped cell in the middle of a character.
                bytes.removeSubrange(RecordParser.characterBoundary(bytes[start...])...)
                self.clipped.append(ends.count)
                clippedLengths.append(lengthUnknown ? -1 : length + suffix.count + dropped)
            }
            ends.append(bytes.count)
            if streams && (ends.count >= limits.pieceCells || bytes.count >= limits.record) { splitPiece() }
        }

        /// Streaming: hands out the record so far, so that a record of millions of cells
        /// streams in bounded memory. The next piece starts with an empty cell that ends the
        /// last one here (the cells of a piece and the one it continues are joined).
        mutating func splitPiece() {
            records.append(currentRow(continuesInNext: true))
            clearRecord()
            ends.append(0)
            continuesPrevious = true
        }

        mutating func endRecord(_ terminator: Int32) {
            if fieldsInRecord == 0 {
                // libcsv reports a terminator with no fields before it. Right after a CR
                // that is the LF of a CRLF; anything else is a blank line.
                if terminator == 0x0A && lastTerminator == 0x0D {
                    lastTerminator = terminator
                    return
                }
                fieldsInRecord = 1
                if collectsCells { ends.append(bytes.count) }
            }
            lastTerminator = terminator
            recordCount += 1
            if fieldsInRecord > widestRecord { widestRecord = fieldsInRecord }
            fieldsInRecord = 0
            if collectsCells {
                records.append(currentRow(continuesInNext: false))
                clearRecord()
            }
        }

        /// The record so far as a row of its own, copied into arrays of its size. Handing
        /// out `bytes` itself would share its buffer, and `removeAll(keepingCapacity:)` on a
        /// shared buffer allocates a new one as large: every later row then held as much as
        /// the longest cell (a 140 KB cell cost an `mmap` per record, 28 s instead of 1 s).
        func currentRow(continuesInNext: Bool) -> Row {
            var row = Row(bytes: Context.ownCopy(bytes), ends: Context.ownCopy(ends), clipped: clipped, omittedCells: omittedCells,
                          continuesPrevious: continuesPrevious, continuesInNext: continuesInNext)
            row.clippedLengths = clippedLengths
            if !quotedEmpty.isEmpty { row.quotedEmpty = quotedEmpty }
            return row
        }

        static func ownCopy<Element>(_ array: [Element]) -> [Element] {
            [Element](unsafeUninitializedCapacity: array.count) { buffer, count in
                count = buffer.initialize(fromContentsOf: array)
            }
        }

        mutating func clearRecord() {
            bytes.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            clipped.removeAll()
            clippedLengths.removeAll()
            quotedEmpty.removeAll()
            omittedCells = 0
            continuesPrevious = false
        }
    }

    private let parser: UnsafeMutablePointer<csv_parser>
    private let context: UnsafeMutablePointer<Context>
    /// Runs one chunk ahead of libcsv to find text after closing quotes.
    private var lookout: RecordScanner
    private let delimiter: UInt8
    /// False with `--quote none` (see `unquotedStretch`).
    private let quotes: Bool
    /// True while reading text after a closing quote that has not ended yet.
    private var inStrayText = false
    private var strayPositions: [Int] = []

    /// Creates a parser; with `collectsCells` false it only counts records and fields. With
    /// `streams` true a long cell is handed out in pieces rather than clipped.
    package init(dialect: Dialect, collectsCells: Bool = true, streams: Bool = false,
                 limits: Limits = Limits()) throws(CellStoreError) {
        parser = .allocate(capacity: 1)
        context = .allocate(capacity: 1)
        context.initialize(to: Context(collectsCells: collectsCells, streams: streams, limits: limits))
        lookout = RecordScanner(dialect: dialect)
        delimiter = dialect.delimiter
        quotes = dialect.isQuoting
        guard csv_init(parser, UInt8(CSV_REPALL_NL | CSV_EMPTY_IS_NULL)) == 0 else {
            parser.deallocate()
            context.deinitialize(count: 1)
            context.deallocate()
            throw .parserSetup
        }
        csv_set_delim(parser, dialect.delimiter)
        csv_set_quote(parser, dialect.quote)
        csv_set_space_func(parser, cf_csv_never_space)
        // libcsv grows its field buffer by this much at a time (128 bytes by default, which
        // made long cells cost a reallocation every 128 bytes).
        csv_set_blk_size(parser, 64 << 10)
        // Terminators stay libcsv's own (CR and LF), tested inline rather than by a call.
    }

    deinit {
        csv_free(parser)
        parser.deallocate()
        context.deinitialize(count: 1)
        context.deallocate()
    }

    /// Records completed so far (blank lines included, CRLF counted once).
    package var recordCount: Int { context.pointee.recordCount }
    /// The most cells any completed record had.
    package var widestRecord: Int { context.pointee.widestRecord }

    /// Feeds bytes; completed records are collected (see `takeRecords`).
    package func parse(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        strayPositions.removeAll(keepingCapacity: true)
        lookout.scan(buffer, strayText: { [unowned self] in strayPositions.append($0) })
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var index = 0
        if inStrayText { index = takeStrayText(bytes, from: 0, to: buffer.count) }
        for position in strayPositions where position >= index {
            feed(bytes, from: index, to: position)
            index = takeStrayText(bytes, from: position, to: buffer.count)
        }
        feed(bytes, from: index, to: buffer.count)
    }

    /// Feeds bytes from an array slice.
    package func parse(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Ends the input: a last record with no terminator is completed.
    package func finish() {
        inStrayText = false
        _ = csv_fini(parser, { pointer, length, data in
            data!.assumingMemoryBound(to: Context.self).pointee.field(pointer, length)
        }, { terminator, data in
            data!.assumingMemoryBound(to: Context.self).pointee.endRecord(terminator)
        }, UnsafeMutableRawPointer(context))
    }

    /// Hands over the records completed since the last call (and, streaming, the pieces).
    package func takeRecords() -> [Row] {
        let records = context.pointee.records
        context.pointee.records = []
        return records
    }

    /// The record being read, as far as it has been read (nil between records): what is
    /// shown of a record whose end is too far away to wait for.
    package func partialRecord() -> Row? {
        let state = parser.pointee.pstate
        var copy = context.pointee
        guard state != 0 || copy.fieldsInRecord > 0 else { return nil }
        var length = parser.pointee.entry_pos
        if state == 3 { length -= 1 }   // the closing quote libcsv holds tentatively
        copy.fieldClipped = true        // its end is not known
        copy.lengthUnknown = true
        if state == 1 {
            copy.field(nil, 0)
        } else {
            copy.field(parser.pointee.entry_buf.map { UnsafeMutableRawPointer($0) }, length)
        }
        return copy.currentRow(continuesInNext: false)
    }

    /// Parses a whole in-memory input (for tests and small inputs).
    package static func records(in bytes: [UInt8], dialect: Dialect, limits: Limits = Limits()) throws(CellStoreError) -> [Row] {
        let parser = try RecordParser(dialect: dialect, limits: limits)
        parser.parse(bytes[...])
        parser.finish()
        return parser.takeRecords()
    }

    /// The end of the last whole character in `bytes` (UTF-8): where a cut text may stop.
    package static func characterBoundary<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Int where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = bytes.endIndex
        var steps = 0
        while index > bytes.startIndex && steps < 4 {
            let byte = bytes[index - 1]
            if byte & 0xC0 != 0x80 {
                // A lead byte (or ASCII): keep it only if its whole sequence is there.
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return length <= steps + 1 ? bytes.endIndex : index - 1
            }
            index -= 1
            steps += 1
        }
        return bytes.endIndex
    }

    // MARK: Feeding libcsv

    /// Gives libcsv `bytes[start..<end]` a slice at a time, keeping its field buffer bounded.
    private func feed(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int) {
        var index = start
        let slice = context.pointee.limits.slice
        while index < end {
            var count = min(slice, end - index)
            if !quotes { count = unquotedStretch(bytes + index, count) }
            _ = csv_parse(parser, bytes + index, count, { pointer, length, data in
                data!.assumingMemoryBound(to: Context.self).pointee.field(pointer, length)
            }, { terminator, data in
                data!.assumingMemoryBound(to: Context.self).pointee.endRecord(terminator)
            }, UnsafeMutableRawPointer(context))
            index += count
            boundField()
        }
    }

    /// With no quoting, sets libcsv's quote to a byte that does not occur in the `count`
    /// bytes at `bytes`, so that no field there can open as quoted (libcsv has no setting
    /// for "no quote", and every byte value may occur in data); returns how many of those
    /// bytes it holds for: all of them, unless every byte value occurs (then 255, which
    /// always leave one out). Changing the quote between calls is safe: with none ever
    /// opened, libcsv is never inside a quoted field.
    private func unquotedStretch(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
        // 0xFF never occurs in UTF-8: one vector search settles the usual case.
        if memchr(bytes, 0xFF, count) == nil {
            csv_set_quote(parser, 0xFF)
            return count
        }
        var length = count
        while true {
            var seen = [Bool](repeating: false, count: 256)
            for index in 0..<length { seen[Int(bytes[index])] = true }
            if let absent = seen.firstIndex(of: false) {
                csv_set_quote(parser, UInt8(absent))
                return length
            }
            length = min(length, 255)
        }
    }

    /// Keeps the field libcsv is building within its allowance: clipped, or handed out as
    /// a piece when streaming. Inside a field (state 2), or after a quote in a quoted field
    /// (state 3), when libcsv's buffer ends with that quote, which it may still take back
    /// (a closing quote) or keep (the first of a doubled one): it stays last.
    private func boundField() {
        let limit = context.pointee.streams ? context.pointee.limits.cell : context.pointee.allowance
        let state = parser.pointee.pstate
        guard state == 2 || state == 3, let buffer = parser.pointee.entry_buf else { return }
        let held = state == 3 ? 1 : 0
        let length = parser.pointee.entry_pos
        guard length - held > limit else { return }
        if context.pointee.streams {
            let cut = RecordParser.characterBoundary(UnsafeBufferPointer(start: buffer, count: length - held))
            handOutPiece(UnsafeRawBufferPointer(start: buffer, count: cut))
            memmove(buffer, buffer + cut, length - cut)
            parser.pointee.entry_pos = length - cut
        } else {
            if held == 1 { buffer[limit] = buffer[length - 1] }
            parser.pointee.entry_pos = limit + held
            context.pointee.fieldClipped = true
            context.pointee.dropped += length - held - limit
        }
    }

    /// Streaming: hands out the record so far with `piece` as the start of its last cell.
    private func handOutPiece(_ piece: UnsafeRawBufferPointer) {
        guard context.pointee.collectsCells else { return }
        context.pointee.bytes.append(contentsOf: piece)
        context.pointee.ends.append(context.pointee.bytes.count)
        context.pointee.records.append(context.pointee.currentRow(continuesInNext: true))
        context.pointee.clearRecord()
        context.pointee.continuesPrevious = true
    }

    /// Takes text after a closing quote from `start` up to the next delimiter or line end
    /// (which libcsv then reads, ending the field it holds); returns where it stopped.
    private func takeStrayText(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
            index += 1
        }
        inStrayText = index == end
        appendSuffix(UnsafeBufferPointer(start: bytes + start, count: index - start))
        return index
    }

    private func appendSuffix(_ text: UnsafeBufferPointer<UInt8>) {
        guard context.pointee.collectsCells, text.count > 0 else { return }
        if context.pointee.streams {
            context.pointee.suffix.append(contentsOf: text)
            guard context.pointee.suffix.count > context.pointee.limits.cell,
                  let buffer = parser.pointee.entry_buf else { return }
            // Hand out the quoted part and the text so far; libcsv keeps only its
            // tentative closing quote, which it drops when the field ends.
            var piece = Array(UnsafeBufferPointer(start: buffer, count: max(0, parser.pointee.entry_pos - 1)))
            let suffix = context.pointee.suffix
            let cut = RecordParser.characterBoundary(suffix[...])
            piece.append(contentsOf: suffix[..<cut])
            context.pointee.suffix = Array(suffix[cut...])
            buffer[0] = buffer[max(0, parser.pointee.entry_pos - 1)]
            parser.pointee.entry_pos = 1
            piece.withUnsafeBytes { handOutPiece($0) }
        } else {
            let held = parser.pointee.entry_pos + context.pointee.suffix.count
            let room = max(0, context.pointee.allowance - held)
            if text.count > room {
                context.pointee.fieldClipped = true
                context.pointee.dropped += text.count - room
            }
            context.pointee.suffix.append(contentsOf: text.prefix(room))
        }
    }
}
