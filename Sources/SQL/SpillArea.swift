#if canImport(Glibc)
import Glibc
#endif
import CellStore

/// A temporary file in `$TMPDIR` for what does not fit a memory budget (grouped rows),
/// written by one thread (`SpillArea`), read by any (`SpillFile`).
///
/// It is unlinked the moment it is made, so nothing is left behind on any way out: the
/// system frees its space when the descriptor closes, which `deinit` does, or the
/// process's end.
final class SpillFile: Sendable {
    private let file: UnlinkedFile

    init() throws(SQLError) {
        do {
            file = try UnlinkedFile(tag: "sql")
        } catch {
            throw .engine(error.message)
        }
    }

    /// Writes `bytes` at `offset` (pwrite: an explicit offset, safe beside readers).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SQLError) {
        let failure = file.write(bytes, at: offset)
        guard failure == 0 else { throw .engine("cannot write a temporary file: \(String(cString: strerror(failure)))") }
    }

    /// Reads `buffer.count` bytes at `offset`; false when they are not all there.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        file.read(at: offset, into: buffer) == buffer.count
    }
}

/// The writing end of a spill file: appends, and knows where the end is. It belongs to
/// the partitions that spill to it.
final class SpillArea {
    let file: SpillFile
    private(set) var length: Int64 = 0

    init() throws(SQLError) { file = try SpillFile() }

    /// Appends `bytes`; returns where they start.
    func append(_ bytes: UnsafeRawBufferPointer) throws(SQLError) -> Int64 {
        let start = length
        try file.write(bytes, at: start)
        length += Int64(bytes.count)
        return start
    }
}

/// A growable run of bytes with no reference counting and no exclusivity checks: what
/// the grouping appends to once per cell.
struct ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    /// Frees the memory; the buffer must not be used after.
    func release() { base.deallocate() }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    mutating func removeAll() { count = 0 }

    /// Takes the first `count` bytes of the capacity as filled (written through `base`).
    mutating func setCount(_ count: Int) {
        precondition(count <= capacity)
        self.count = count
    }

    @inline(__always)
    mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        var grown = capacity * 2
        while grown < count + more { grown *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = grown
    }

    /// Gives the memory back down to `limit` bytes when it grew past it (after a spill).
    mutating func shrink(to limit: Int) {
        guard capacity > limit, count <= limit else { return }
        let smaller = UnsafeMutablePointer<UInt8>.allocate(capacity: max(16, limit))
        smaller.update(from: base, count: count)
        base.deallocate()
        base = smaller
        capacity = max(16, limit)
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func append(word: UInt64) {
        reserve(8)
        UnsafeMutableRawPointer(base + count).storeBytes(of: word.littleEndian, as: UInt64.self)
        count += 8
    }

    /// An unsigned LEB128 number.
    @inline(__always)
    mutating func append(varint: UInt64) {
        reserve(10)
        var value = varint
        while value >= 0x80 {
            base[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count += 1
            value >>= 7
        }
        base[count] = UInt8(value)
        count += 1
    }
}

/// Reads what `ByteBuffer` wrote.
struct ByteReader {
    let base: UnsafePointer<UInt8>
    let end: Int
    var index: Int

    init(_ bytes: UnsafeRawBufferPointer, from index: Int = 0) {
        base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        end = bytes.count
        self.index = index
    }

    var isAtEnd: Bool { index >= end }

    @inline(__always)
    mutating func byte() -> UInt8 {
        let value = base[index]
        index += 1
        return value
    }

    @inline(__always)
    mutating func word() -> UInt64 {
        let value = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
        index += 8
        return UInt64(littleEndian: value)
    }

    @inline(__always)
    mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = base[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// The next `count` bytes.
    @inline(__always)
    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        let slice = UnsafeRawBufferPointer(start: base + index, count: count)
        index += count
        return slice
    }
}
