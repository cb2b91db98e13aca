/// Reads records in order from any record on, with a parser of its own: what a background
/// task (a search) uses, since `CellStore` belongs to the UI thread.
package struct RecordReader: Sendable {
    package let source: ByteSource
    package let checkpoints: [Checkpoint]
    package let dialect: Dialect
    /// Bytes that may be read, and whether they end the input.
    package let end: Int64
    package let isFinal: Bool
    /// Records indexed before any quoting problem (while the input is still being read).
    package let wellQuotedRecords: Int
    /// The first blank line indexed, if any (Int.max: none so far).
    package let firstBlankRecord: Int
    /// For CSV made from JSON: the names of columns found after the header was written,
    /// added to record 0 (see `JSONReport.extending(header:)`).
    package var json: JSONReport? = nil

    /// Calls `body` with each record's number and cells from `first` on, in order, until
    /// `body` returns false or the known records end.
    /// - Complexity: reads from the checkpoint before `first` to where `body` stops.
    package func forEachRecord(from first: Int, _ body: (Int, Row) -> Bool) {
        guard let parser = try? RecordParser(dialect: dialect) else { return }
        guard !checkpoints.isEmpty else { return }
        let start = checkpoints[checkpoints.index(atOrBefore: .record(first)) ?? 0]
        var number = start.row
        var offset = start.offset
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        func deliver() -> Bool {
            for var row in parser.takeRecords() {
                defer { number += 1 }
                if !row.clipped.isEmpty { row.origin = RecordOrigin(offset: start.offset, recordsBefore: number - start.row) }
                if number == 0, let json { row = json.extending(header: row) }
                if number >= first && !body(number, row) { return false }
            }
            return true
        }
        while offset < end {
            let wanted = Int(min(Int64(buffer.count), end - offset))
            let count = source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count <= 0 { break }
            parser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
            if !deliver() { return }
        }
        if isFinal {
            parser.finish()
            _ = deliver()
        }
    }
}

extension RecordReader {
    /// A reader of the records the loader's `state` holds, up to `end`; nil until the
    /// dialect is known.
    init?(_ state: IndexState, source: ByteSource, end: Int64, isFinal: Bool, json: JSONReport? = nil) {
        guard let dialect = state.dialect else { return nil }
        self.init(source: source, checkpoints: state.checkpoints, dialect: dialect, end: end, isFinal: isFinal,
                  wellQuotedRecords: state.wellQuotedRecords, firstBlankRecord: state.firstBlankRecord,
                  json: json?.isJSON == true ? json : nil)
    }

    /// The same input as `reader`, as if the index had reached only checkpoint `last` and
    /// `end` bytes could be read (for tests of readers of an input still loading).
    package init(_ reader: RecordReader, asIfIndexedTo last: Int, end: Int64) {
        let checkpoints = Array(reader.checkpoints[...min(last, reader.checkpoints.count - 1)])
        self.init(source: reader.source, checkpoints: checkpoints, dialect: reader.dialect, end: end, isFinal: false,
                  wellQuotedRecords: min(reader.wellQuotedRecords, checkpoints.last?.row ?? 0),
                  firstBlankRecord: reader.firstBlankRecord)
    }
}

extension CellStore {
    /// A reader of the records known now, for use on another thread: with the table's
    /// edits in place (`patch`), unless `patched` is false (rows the store itself read,
    /// whose origins are the file's offsets).
    package func recordReader(patched: Bool = true) -> RecordReader? {
        let json = loader.jsonReport
        let reader = loader.shared.withLock {
            RecordReader($0, source: loader.source, end: $0.available, isFinal: $0.progress.isComplete, json: json)
        }
        return patched ? reader?.patched(patch) : reader
    }

    /// Wakes the event loop (as news from the loader does): for background tasks.
    public var wake: @Sendable () -> Void { loader.onChange }
}

extension RecordReader {
    /// Record `number`, read alone from `offset` where it starts when that is known, else
    /// parsed from the checkpoint before it. Safe on any thread (reads with `pread`).
    package func record(_ number: Int, at offset: Int64?) -> Row? {
        guard let offset else {
            var found: Row?
            forEachRecord(from: number) { index, row in
                if index == number { found = row }
                return false
            }
            return found
        }
        guard let parser = try? RecordParser(dialect: dialect) else { return nil }
        var position = offset
        var chunk = 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        let limit = Int64(RecordParser.Limits().record) * 2
        // The scanner finds where the record ends, so only its bytes are parsed, not the
        // records after it that the read brought along.
        var scanner = RecordScanner(dialect: dialect)
        while position < end && position - offset < limit {
            let wanted = Int(min(Int64(chunk), end - position))
            let count = buffer.withUnsafeMutableBytes { source.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }
            if count <= 0 { break }
            var recordEnd: Int?
            buffer.withUnsafeBytes { bytes in
                scanner.scan(UnsafeRawBufferPointer(rebasing: bytes[..<count])) { end, _, records, _ in
                    if recordEnd == nil && records > 0 { recordEnd = end }
                }
            }
            buffer.withUnsafeBytes { parser.parse(UnsafeRawBufferPointer(rebasing: $0[..<(recordEnd ?? count)])) }
            position += Int64(count)
            if parser.recordCount > 0 { break }
            chunk = min(chunk * 4, 1 << 20)
            if buffer.count < chunk { buffer = [UInt8](repeating: 0, count: chunk) }
        }
        if parser.recordCount == 0 && isFinal && position >= end { parser.finish() }
        var row = parser.takeRecords().first ?? parser.partialRecord()
        if row?.clipped.isEmpty == false { row?.origin = RecordOrigin(offset: offset) }
        if number == 0, let json, let header = row { return json.extending(header: header) }
        return row
    }
}
