import CZlib
import Synchronization

/// The decompressed bytes of a gzip file, read at any offset without a decompressed copy:
/// a read inflates from the nearest access point before it (see `GzipIndex`).
///
/// While the file is being indexed, the chunks just inflated by the indexing pass are
/// served as they are (the loader scans them right away); a few recently inflated spans
/// are cached, and a read that continues where the last one ended goes on inflating
/// from there, so reading in order costs one pass.
package final class GzipSource: ByteSource {
    let file: FileSource
    let index: GzipIndex
    private let produced = Atomic<Int64>(0)
    private let recent = Mutex<[Span]>([])
    private let reader: SpanReader
    /// Chunks of the indexing pass kept, and spans of random reads cached.
    static let recentChunks = 4
    static let cachedSpans = 8
    /// A span is as long as the read that makes it asks, within these bounds: a record
    /// read alone asks kilobytes, a scan megabytes.
    static let spanSize = 1 << 18
    static let smallestSpan = 1 << 14

    struct Span {
        var start: Int64
        var bytes: [UInt8]
        var end: Int64 { start + Int64(bytes.count) }
    }

    package init(file: FileSource, index: GzipIndex) {
        self.file = file
        self.index = index
        reader = SpanReader(file: file, index: index)
    }

    /// Decompressed bytes known so far.
    package var length: Int64 { produced.load(ordering: .acquiring) }

    /// Reads that had to start inflating from an access point (for tests).
    var cursorsStarted: Int { reader.cursorsStarted.load(ordering: .relaxed) }

    /// Takes the next chunk of the indexing pass; called by the one thread that indexes.
    func append(_ chunk: [UInt8]) {
        let start = produced.load(ordering: .relaxed)
        recent.withLock { spans in
            spans.append(Span(start: start, bytes: chunk))
            if spans.count > GzipSource.recentChunks { spans.removeFirst() }
        }
        produced.store(start + Int64(chunk.count), ordering: .releasing)
    }

    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let wanted = Int(min(Int64(buffer.count), length - offset))
        guard wanted > 0, offset >= 0 else { return 0 }
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted])
        if let count = recent.withLock({ GzipSource.copy(from: $0, at: offset, into: target) }) { return count }
        let spanLength = min(GzipSource.spanSize, max(GzipSource.smallestSpan, wanted))
        guard let span = reader.span(at: offset, length: spanLength) else { return 0 }
        return GzipSource.copy(from: [span], at: offset, into: target) ?? 0
    }

    /// Copies from the span holding `offset`, if any.
    static func copy(from spans: [Span], at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let span = spans.last(where: { $0.start <= offset && offset < $0.end }) else { return nil }
        let from = Int(offset - span.start)
        let count = min(buffer.count, span.bytes.count - from)
        span.bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[from..<(from + count)])) }
        return count
    }
}

/// Random reads for `GzipSource`: an LRU of inflated spans, and a few cursors that go on
/// inflating from where a read ended. Readers on several threads (a search's shares,
/// each reading in order) each continue their own cursor, in parallel: a cursor is taken
/// out of the pool while it inflates, and given back after.
final class SpanReader: Sendable {
    let file: FileSource
    let index: GzipIndex
    private let cache = Mutex<[GzipSource.Span]>([])
    private let cursors = Mutex<[CursorBox]>([])
    /// Cursors started from an access point so far (each inflates up to `spacing` before
    /// its first byte): reading in order should need one per reader.
    let cursorsStarted = Atomic<Int>(0)
    /// Cursors kept between reads: one per reader running in order, with room to spare.
    static let keptCursors = 4

    /// A cursor is used by one thread at a time: the one that took it from the pool.
    final class CursorBox: @unchecked Sendable {
        // @unchecked, and why it is safe: a box is reachable from one place at a time,
        // the `cursors` pool (under its lock) or the one `span(at:length:)` call that took
        // it out, which alone inflates with the cursor before it puts the box back.
        let cursor: GzipCursor
        init(_ cursor: GzipCursor) { self.cursor = cursor }
    }

    init(file: FileSource, index: GzipIndex) {
        self.file = file
        self.index = index
    }

    /// A span of inflated bytes that holds `offset` (`length` bytes from there when new),
    /// or nil when they cannot be read.
    func span(at offset: Int64, length: Int) -> GzipSource.Span? {
        let cached = cache.withLock { spans -> GzipSource.Span? in
            guard let found = spans.lastIndex(where: { $0.start <= offset && offset < $0.end }) else { return nil }
            let span = spans.remove(at: found)
            spans.append(span)
            return span
        }
        if let cached { return cached }
        guard let point = index.point(atOrBefore: offset) else { return nil }
        // Go on from a cursor that is before the offset and no farther back than the point.
        let taken = cursors.withLock { pool -> CursorBox? in
            guard let found = pool.lastIndex(where: { $0.cursor.position <= offset && $0.cursor.position >= point.output })
            else { return nil }
            return pool.remove(at: found)
        }
        let box: CursorBox
        if let taken {
            box = taken
        } else {
            guard let window = index.window(for: point) else { return nil }
            box = CursorBox(GzipCursor(file: file, point: point, window: window))
            cursorsStarted.add(1, ordering: .relaxed)
        }
        guard let span = SpanReader.inflate(box.cursor, at: offset, length: length) else { return nil }
        cursors.withLock { pool in
            pool.append(box)
            if pool.count > SpanReader.keptCursors { pool.removeFirst() }
        }
        cache.withLock { spans in
            spans.append(span)
            if spans.count > GzipSource.cachedSpans { spans.removeFirst() }
        }
        return span
    }

    /// Inflates with `cursor` up to `offset`, then a span from there (nil when the data
    /// ends or breaks first: the cursor is then of no more use).
    private static func inflate(_ cursor: GzipCursor, at offset: Int64, length: Int) -> GzipSource.Span? {
        var bytes = [UInt8](repeating: 0, count: max(length, GzipSource.spanSize))
        while cursor.position < offset {
            let skip = Int(min(Int64(bytes.count), offset - cursor.position))
            let got = bytes.withUnsafeMutableBytes {
                cursor.inflate(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<skip]))
            }
            if got <= 0 { return nil }
        }
        let got = bytes.withUnsafeMutableBytes { cursor.inflate(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<length])) }
        guard got > 0 else { return nil }
        bytes.removeLast(bytes.count - got)
        return GzipSource.Span(start: offset, bytes: bytes)
    }
}

/// Inflates a gzip file from an access point on, member after member.
final class GzipCursor {
    private let file: FileSource
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    /// The next compressed byte to read into `input`.
    private var inputOffset: Int64
    /// Raw deflate from an access point; gzip (header and trailer read by zlib) after the
    /// first member end.
    private var isRaw = true
    private var isBroken = false
    /// Offset in the decompressed data of the next byte this cursor produces.
    private(set) var position: Int64

    init(file: FileSource, point: GzipIndex.Point, window: [UInt8]) {
        self.file = file
        position = point.output
        inputOffset = point.input
        input = .allocate(byteCount: 1 << 16, alignment: 16)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard csvfreeze_inflate_init2(stream, -15) == Z_OK else {
            isBroken = true
            return
        }
        if point.bits > 0 {
            var byte: UInt8 = 0
            let got = withUnsafeMutableBytes(of: &byte) { file.read(at: point.input - 1, into: $0) }
            if got != 1 { isBroken = true }
            inflatePrime(stream, Int32(point.bits), Int32(byte >> (8 - point.bits)))
        }
        if !window.isEmpty {
            window.withUnsafeBufferPointer { _ = inflateSetDictionary(stream, $0.baseAddress, uInt($0.count)) }
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
    }

    /// Inflates up to `buffer.count` bytes; returns how many (0 when the data ends or breaks).
    func inflate(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !isBroken, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        stream.pointee.next_out = base.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(buffer.count)
        while stream.pointee.avail_out > 0 {
            if stream.pointee.avail_in == 0 && !refill() { break }
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            if status == Z_STREAM_END {
                if isRaw && !skip(8) { break }   // the member's trailer, which raw inflate leaves
                isRaw = false
                inflateReset2(stream, 31)
                continue
            }
            if status != Z_OK && status != Z_BUF_ERROR {
                isBroken = true
                break
            }
        }
        let count = buffer.count - Int(stream.pointee.avail_out)
        position += Int64(count)
        return count
    }

    private func refill() -> Bool {
        let count = file.read(at: inputOffset, into: input)
        guard count > 0, let base = input.baseAddress else { return false }
        inputOffset += Int64(count)
        stream.pointee.next_in = base.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_in = UInt32(count)
        return true
    }

    private func skip(_ count: Int) -> Bool {
        var left = count
        while left > 0 {
            if stream.pointee.avail_in == 0 && !refill() { return false }
            let step = min(left, Int(stream.pointee.avail_in))
            stream.pointee.next_in += step
            stream.pointee.avail_in -= UInt32(step)
            left -= step
        }
        return true
    }
}
