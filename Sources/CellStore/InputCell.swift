#if canImport(Glibc)
import Glibc
#endif
import CLibCSV
import Synchronization

/// One cell of a record read whole from the input, a piece at a time: what shows, prints
/// and counts a cell longer than the parser keeps in memory (it keeps the first MiB).
///
/// The row says where its record starts (`Row.origin`) and how long the cell is; the cell's
/// first byte is found by scanning the record's fields with the parser's rules (quotes,
/// doubled quotes, text after a closing quote, an unclosed quote running to the end), and
/// its value is decoded from there. An unquoted cell's value is its raw bytes, so any
/// window is read directly; decoding a quoted one notes a place every 256 KiB of the value,
/// so a window deep in it is read from the nearest place before it: once a quoted cell has
/// been read through (its first jump to the end), paging costs what is on screen.
public final class InputCell: Sendable {
    /// The cell's length in bytes (its whole value).
    package let length: Int
    /// The cell's column in its record (from 0).
    package let column: Int
    let source: any ByteSource
    let delimiter: UInt8
    let quote: UInt8
    let origin: RecordOrigin
    private let places: Mutex<Places>

    /// Where decoding may start again: a value offset, its raw offset, and the state there.
    struct Place {
        var value: Int
        var raw: Int64
        var mode: FieldDecoder.Mode
    }

    struct Places {
        /// False until the cell's first byte has been looked for; `list` empty if not found.
        var isLocated = false
        /// In order of `value`; the first is the cell's start.
        var list: [Place] = []
    }

    /// Value bytes between the places noted.
    static let placeSpacing = 256 << 10

    /// The clipped cell `column` of `row`, read through `reader`; nil when the cell is not
    /// clipped or its record's start is not known. A cell whose length the row does not
    /// know (its record was still arriving when it was parsed) is measured, by decoding it
    /// to its end, once `reader` covers the whole input; until then it is nil.
    ///
    /// - Complexity: O(1), or O(the cell) to measure it.
    package convenience init?(row: Row, column: Int, reader: RecordReader) {
        guard row.isClipped(column), let origin = row.origin else { return nil }
        if let length = row.fullLength(ofCell: column) {
            self.init(source: reader.source, dialect: reader.dialect, origin: origin, column: column, length: length)
            return
        }
        guard reader.isFinal else { return nil }
        let measuring = InputCell(source: reader.source, dialect: reader.dialect, origin: origin, column: column, length: Int.max)
        var length = 0
        guard measuring.read({ piece in
            length += piece.count
            return true
        }) else { return nil }
        self.init(source: reader.source, dialect: reader.dialect, origin: origin, column: column, length: length)
    }

    package init(source: any ByteSource, dialect: Dialect, origin: RecordOrigin, column: Int, length: Int) {
        self.source = source
        delimiter = dialect.delimiter
        quote = dialect.quote
        self.origin = origin
        self.column = column
        self.length = length
        places = Mutex(Places())
    }

    /// Calls `body` with the cell's bytes from value offset `offset` on, in order, a chunk
    /// at a time, until `body` returns false or the cell ends. Returns false when the
    /// cell cannot be found in the input (it changed since).
    ///
    /// - Complexity: O(the bytes delivered + 256 KiB), once the cell has been found.
    @discardableResult
    package func read(from offset: Int = 0, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard let start = place(before: offset) else { return false }
        var decoder = FieldDecoder(mode: start.mode, delimiter: delimiter, quote: quote)
        var value = start.value
        var raw = start.raw
        var noted: [Place] = []
        var lastNoted = start.value
        let chunk = 64 << 10
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var output: [UInt8] = []
        output.reserveCapacity(chunk)
        var going = true
        while going && value < length {
            let count = source.read(at: raw, into: buffer)
            let bytes = UnsafeBufferPointer(start: buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count: max(0, count))
            output.removeAll(keepingCapacity: true)
            let (used, ended) = decoder.decode(bytes, atEnd: count <= 0, into: &output)
            raw += Int64(used)
            // Only the bytes from `offset` on, and none past the cell's known length.
            let first = max(0, offset - value)
            let last = min(output.count, length - value)
            if first < last {
                going = output[first..<last].withUnsafeBytes { body($0) }
            }
            value += output.count
            if decoder.mode != .quoteSeen && value - lastNoted >= InputCell.placeSpacing {
                noted.append(Place(value: value, raw: raw, mode: decoder.mode))
                lastNoted = value
            }
            if ended || count <= 0 { break }
        }
        if !noted.isEmpty {
            places.withLock { state in
                for place in noted where place.value > (state.list.last?.value ?? Int.max) { state.list.append(place) }
            }
        }
        return true
    }

    /// The cell's bytes in `range` of its value (fewer when the input ends first).
    package func bytes(in range: Range<Int>) -> [UInt8] {
        var result: [UInt8] = []
        let range = range.clamped(to: 0..<length)
        guard !range.isEmpty else { return [] }
        result.reserveCapacity(range.count)
        read(from: range.lowerBound) { piece in
            result.append(contentsOf: piece.prefix(range.upperBound - range.lowerBound - result.count))
            return result.count < range.count
        }
        return result
    }

    /// The last place noted at or before value offset `offset` (finding the cell first).
    private func place(before offset: Int) -> Place? {
        let located = places.withLock { $0.isLocated }
        if !located {
            let start = locate()
            places.withLock { state in
                if !state.isLocated {
                    state.isLocated = true
                    if let start { state.list = [start] }
                }
            }
        }
        return places.withLock { state in
            var low = 0, high = state.list.count - 1
            guard high >= 0 else { return nil }
            // Unquoted, the value is the raw bytes: any offset is a place.
            let first = state.list[0]
            if first.mode == .unquoted { return Place(value: offset, raw: first.raw + Int64(offset), mode: .unquoted) }
            while low < high {
                let middle = (low + high + 1) / 2
                if state.list[middle].value <= offset { low = middle } else { high = middle - 1 }
            }
            return state.list[low]
        }
    }

    /// The cell's first value byte: its record's start found by scanning the records
    /// before it from the origin, then the fields before it skipped.
    private func locate() -> Place? {
        guard var position = recordStart() else { return nil }
        let chunk = 64 << 10
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var field = 0
        while true {
            // At a field's start: is it quoted?
            let count = source.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<1]))
            let isQuoted = count > 0 && buffer[0] == quote
            if field == column {
                return Place(value: 0, raw: position + (isQuoted ? 1 : 0), mode: isQuoted ? .quoted : .unquoted)
            }
            // Skip it, to the byte that ends it.
            var decoder = FieldDecoder(mode: isQuoted ? .quoted : .unquoted, delimiter: delimiter, quote: quote)
            position += isQuoted ? 1 : 0
            var ended = false
            while !ended {
                let count = source.read(at: position, into: buffer)
                let bytes = UnsafeBufferPointer(start: buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count: max(0, count))
                var nothing: [UInt8]?
                let (used, end) = decoder.decode(bytes, atEnd: count <= 0, into: &nothing)
                position += Int64(used)
                ended = end
                if count <= 0 && !end { return nil }
            }
            // The field ends at a delimiter (the next field follows) or the record's end.
            let count2 = source.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<1]))
            guard count2 > 0, buffer[0] == delimiter else { return nil }
            position += 1
            field += 1
        }
    }

    /// Where the record starts: `origin.recordsBefore` records after `origin.offset`.
    private func recordStart() -> Int64? {
        guard origin.recordsBefore > 0 else { return origin.offset }
        var scanner = RecordScanner(dialect: Dialect(delimiter: delimiter, quote: quote))
        let wanted = origin.recordsBefore
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        var position = origin.offset
        var found: Int64?
        var afterCR = false
        while true {
            let count = source.read(at: position, into: buffer)
            if count <= 0 { return found }
            let chunkStart = position
            var done = false
            scanner.scan(UnsafeRawBufferPointer(rebasing: buffer[..<count]), at: chunkStart) { end, endedByCR, records, _ in
                guard !done else { return }
                if records == wanted {
                    // After a CR, the LF of a CRLF (reported next, with the same count) still
                    // belongs to this record.
                    found = chunkStart + Int64(end)
                    afterCR = endedByCR
                    if !endedByCR { done = true }
                } else if records > wanted {
                    done = true
                }
            }
            position += Int64(count)
            if done { return found }
            if found != nil && afterCR && found! < position {
                // The byte after the CR was in this chunk and was no LF.
                return found
            }
        }
    }

    /// The record is the same one: for tests.
    package var recordOrigin: RecordOrigin { origin }
}

extension InputCell: Equatable {
    /// The same reader of the same cell.
    public static func == (lhs: InputCell, rhs: InputCell) -> Bool { lhs === rhs }
}
