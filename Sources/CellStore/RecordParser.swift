import CLibCSV

/// A libcsv parser set up the way a viewer needs it, turning bytes into records.
///
/// libcsv is set to trim nothing and to report every terminator, and this type adds the
/// two rules libcsv leaves to its caller: the LF of a CRLF ends no extra record, and a
/// blank line is a record with one empty cell. A record's cells are copied inside the
/// callback, because libcsv reuses its buffer.
package final class RecordParser {
    /// What the callbacks fill in. It lives as long as the parser, since one record's
    /// fields may arrive over several `parse` calls. It is a struct behind a pointer, not
    /// a class, because class property access pays a runtime exclusivity check on every
    /// field, which doubled the cost of parsing.
    struct Context {
        let collectsCells: Bool
        var bytes: [UInt8] = []
        var ends: [Int] = []
        var fieldsInRecord = 0
        var lastTerminator: Int32 = 0
        var records: [Row] = []
        var recordCount = 0
        var widestRecord = 0

        init(collectsCells: Bool) { self.collectsCells = collectsCells }

        mutating func field(_ pointer: UnsafeMutableRawPointer?, _ length: Int) {
            fieldsInRecord += 1
            guard collectsCells else { return }
            if let pointer, length > 0 {
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: length))
            }
            ends.append(bytes.count)
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
                if collectsCells { ends.append(0) }
            }
            lastTerminator = terminator
            recordCount += 1
            if fieldsInRecord > widestRecord { widestRecord = fieldsInRecord }
            fieldsInRecord = 0
            if collectsCells {
                records.append(Row(bytes: bytes, ends: ends))
                bytes.removeAll(keepingCapacity: true)
                ends.removeAll(keepingCapacity: true)
            }
        }
    }

    private let parser: UnsafeMutablePointer<csv_parser>
    private let context: UnsafeMutablePointer<Context>

    /// Creates a parser; with `collectsCells` false it only counts records and fields.
    package init(dialect: Dialect, collectsCells: Bool = true) throws(CellStoreError) {
        parser = .allocate(capacity: 1)
        context = .allocate(capacity: 1)
        context.initialize(to: Context(collectsCells: collectsCells))
        guard csv_init(parser, UInt8(CSV_REPALL_NL)) == 0 else {
            parser.deallocate()
            context.deinitialize(count: 1)
            context.deallocate()
            throw .parserSetup
        }
        csv_set_delim(parser, dialect.delimiter)
        csv_set_quote(parser, dialect.quote)
        csv_set_space_func(parser, cf_csv_never_space)
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
        _ = csv_parse(parser, base, buffer.count, { pointer, length, data in
            data!.assumingMemoryBound(to: Context.self).pointee.field(pointer, length)
        }, { terminator, data in
            data!.assumingMemoryBound(to: Context.self).pointee.endRecord(terminator)
        }, UnsafeMutableRawPointer(context))
    }

    /// Feeds bytes from an array slice.
    package func parse(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Ends the input: a last record with no terminator is completed.
    package func finish() {
        _ = csv_fini(parser, { pointer, length, data in
            data!.assumingMemoryBound(to: Context.self).pointee.field(pointer, length)
        }, { terminator, data in
            data!.assumingMemoryBound(to: Context.self).pointee.endRecord(terminator)
        }, UnsafeMutableRawPointer(context))
    }

    /// Hands over the records completed since the last call.
    package func takeRecords() -> [Row] {
        let records = context.pointee.records
        context.pointee.records = []
        return records
    }

    /// Parses a whole in-memory input (for tests and small inputs).
    package static func records(in bytes: [UInt8], dialect: Dialect) throws(CellStoreError) -> [Row] {
        let parser = try RecordParser(dialect: dialect)
        parser.parse(bytes[...])
        parser.finish()
        return parser.takeRecords()
    }
}
