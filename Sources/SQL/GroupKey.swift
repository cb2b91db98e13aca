import CellStore

/// Group keys as bytes that compare with `memcmp` in SQLite's order, and are equal exactly
/// when SQLite calls the values equal.
///
/// Each group column in turn: NULL is `01`; a number `02`, then its value as a Double in
/// bytes that sort like it, then, for an integer, the integer in such bytes (two integers
/// one Double cannot tell apart still sort), or all ones for a real; text `03`, then its
/// bytes with `00` written `00 FF`, then `00 00`. So NULL < numbers < text, numbers by
/// value (1 and 1.0 are one key: a whole real becomes an integer first), text by its bytes
/// (the BINARY collation). A column sorted descending has its bytes inverted.
///
/// Why bytes that sort: SQLite 3.40 takes a GROUP BY's rows, handed over with equal keys
/// together, to be in the GROUP BY's order as well when the ORDER BY is the same (see
/// DECISIONS.md); grouping by range keeps groups in that order for little more than
/// grouping by hash.
struct GroupKey {
    /// Per group column, whether it sorts descending.
    let descending: [Bool]

    static let realMarker: UInt64 = .max

    /// Appends the key bytes of one group column's value.
    @inline(__always)
    func append(kind: SQLKind, bits: UInt64, text: UnsafeRawBufferPointer, column: Int, to key: inout [UInt8]) {
        let start = key.count
        switch kind {
        case .null:
            key.append(0x01)
        case .integer, .real:
            var value = kind == .real ? Double(bitPattern: bits) : Double(Int64(bitPattern: bits))
            var secondary = kind == .integer ? UInt64(bitPattern: Int64(bitPattern: bits)) ^ (1 << 63) : GroupKey.realMarker
            if kind == .real, let whole = Int64(exactly: value) {
                secondary = UInt64(bitPattern: whole) ^ (1 << 63)
            }
            if value == 0 { value = 0 }   // -0.0 is 0
            let raw = value.bitPattern
            let ordered = raw & (1 << 63) != 0 ? ~raw : raw | (1 << 63)
            key.append(0x02)
            withUnsafeBytes(of: ordered.bigEndian) { key.append(contentsOf: $0) }
            withUnsafeBytes(of: secondary.bigEndian) { key.append(contentsOf: $0) }
        case .text:
            key.append(0x03)
            if let base = text.baseAddress, memchr(base, 0, text.count) != nil {
                for byte in text {
                    key.append(byte)
                    if byte == 0 { key.append(0xFF) }
                }
            } else {
                key.append(contentsOf: text)
            }
            key.append(0)
            key.append(0)
        }
        if descending[column] {
            for index in start..<key.count { key[index] = ~key[index] }
        }
    }

    /// The values of a key, one per group column: (kind, bits) and a text's bytes.
    func decode(_ key: UnsafeRawBufferPointer) -> [(kind: SQLKind, bits: UInt64, text: [UInt8])] {
        var values: [(kind: SQLKind, bits: UInt64, text: [UInt8])] = []
        var index = 0
        for column in descending.indices {
            let invert: UInt8 = descending[column] ? 0xFF : 0
            func byte(_ at: Int) -> UInt8 { at < key.count ? key[at] ^ invert : 0 }
            func word(_ at: Int) -> UInt64 {
                var value: UInt64 = 0
                for offset in 0..<8 { value = value << 8 | UInt64(byte(at + offset)) }
                return value
            }
            switch byte(index) {
            case 0x02:
                let ordered = word(index + 1)
                let secondary = word(index + 9)
                index += 17
                if secondary == GroupKey.realMarker {
                    let raw = ordered & (1 << 63) != 0 ? ordered & ~(1 << 63) : ~ordered
                    values.append((.real, raw, []))
                } else {
                    values.append((.integer, secondary ^ (1 << 63), []))
                }
            case 0x03:
                index += 1
                var text: [UInt8] = []
                while index < key.count {
                    let current = byte(index)
                    if current == 0 {
                        if byte(index + 1) == 0xFF {
                            text.append(0)
                            index += 2
                            continue
                        }
                        index += 2
                        break
                    }
                    text.append(current)
                    index += 1
                }
                values.append((.text, 0, text))
            default:
                index += 1
                values.append((.null, 0, []))
            }
        }
        return values
    }

    /// -1, 0 or 1 as key `a` sorts before, with or after key `b`.
    @inline(__always)
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}

/// Ranges of group keys cut at keys of a sample: partition `2i + 1` holds the rows whose
/// key is boundary `i`, partition `2i` those between boundaries `i - 1` and `i`. A key
/// the sample had thus gets a partition of its own, and partitions in order hold keys in
/// order. The boundaries lie back to back in one array, read by every thread that
/// spreads rows (it never changes after `init`).
final class KeyRanges: Sendable {
    private let bytes: [UInt8]
    /// Where boundary `i` starts; `starts[count]` is where the last one ends.
    private let starts: [Int]
    let count: Int

    var partitionCount: Int { 2 * count + 1 }

    /// True when every row of partition `partition` has one key (a boundary's).
    @inline(__always)
    static func isSingleKey(_ partition: Int) -> Bool { partition & 1 == 1 }

    /// The partition of `key`.
    @inline(__always)
    func partition(of key: UnsafeRawBufferPointer) -> Int {
        let count = self.count
        return bytes.withUnsafeBytes { bytes in
            starts.withUnsafeBufferPointer { starts in
                var low = 0, high = count
                while low < high {
                    let middle = (low + high) / 2
                    let boundary = UnsafeRawBufferPointer(rebasing: bytes[starts[middle]..<starts[middle + 1]])
                    let order = GroupKey.compare(boundary, key)
                    if order == 0 { return 2 * middle + 1 }
                    if order < 0 { low = middle + 1 } else { high = middle }
                }
                return 2 * low
            }
        }
    }

    /// Boundaries from `sample`: every distinct key when there are at most `maximum`,
    /// else `maximum` keys spread evenly through it in order.
    init(sample: [[UInt8]], maximum: Int = 31) {
        var sorted = sample.sorted { a, b in a.withUnsafeBytes { a in b.withUnsafeBytes { GroupKey.compare(a, $0) < 0 } } }
        var distinct: [[UInt8]] = []
        for key in sorted where distinct.last != key { distinct.append(key) }
        sorted = []
        var chosen: [[UInt8]] = []
        if distinct.count <= maximum {
            chosen = distinct
        } else {
            for index in 1...maximum {
                let key = distinct[index * distinct.count / (maximum + 1)]
                if chosen.last != key { chosen.append(key) }
            }
        }
        count = chosen.count
        var starts: [Int] = []
        var offset = 0
        for key in chosen {
            starts.append(offset)
            offset += key.count
        }
        starts.append(offset)
        self.starts = starts
        bytes = chosen.flatMap { $0 }
    }
}

/// Remembers the partitions of recent keys, so that a key seen before costs one hash and
/// one comparison instead of a binary search (a GROUP BY's keys are often few). One per
/// thread; keys longer than `keyBytes` are not remembered.
final class PartitionMemo {
    private static let size = 256
    private static let keyBytes = 64
    private let hashes: UnsafeMutablePointer<UInt64>
    private let partitions: UnsafeMutablePointer<Int32>
    private let lengths: UnsafeMutablePointer<Int32>
    private let keys: UnsafeMutablePointer<UInt8>

    init() {
        hashes = .allocate(capacity: PartitionMemo.size)
        hashes.initialize(repeating: 0, count: PartitionMemo.size)
        partitions = .allocate(capacity: PartitionMemo.size)
        partitions.initialize(repeating: -1, count: PartitionMemo.size)
        lengths = .allocate(capacity: PartitionMemo.size)
        lengths.initialize(repeating: 0, count: PartitionMemo.size)
        keys = .allocate(capacity: PartitionMemo.size * PartitionMemo.keyBytes)
    }

    deinit {
        hashes.deallocate()
        partitions.deallocate()
        lengths.deallocate()
        keys.deallocate()
    }

    /// The partition of `key` in `ranges`.
    @inline(__always)
    func partition(of key: UnsafeRawBufferPointer, in ranges: KeyRanges) -> Int {
        if let known = remembered(key) { return known }
        let partition = ranges.partition(of: key)
        remember(key, partition: partition)
        return partition
    }

    /// The partition remembered for `bytes`, if any.
    @inline(__always)
    func remembered(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count <= PartitionMemo.keyBytes else { return nil }
        let hash = Partitions.hash(bytes, seed: 0x3E30)
        let slot = Int(truncatingIfNeeded: hash) & (PartitionMemo.size - 1)
        guard partitions[slot] >= 0, hashes[slot] == hash, Int(lengths[slot]) == bytes.count else { return nil }
        if bytes.count > 0 && memcmp(keys + slot * PartitionMemo.keyBytes, bytes.baseAddress!, bytes.count) != 0 { return nil }
        return Int(partitions[slot])
    }

    /// Remembers `partition` for `bytes` (unless they are too long to keep).
    @inline(__always)
    func remember(_ bytes: UnsafeRawBufferPointer, partition: Int) {
        guard bytes.count <= PartitionMemo.keyBytes else { return }
        let hash = Partitions.hash(bytes, seed: 0x3E30)
        let slot = Int(truncatingIfNeeded: hash) & (PartitionMemo.size - 1)
        hashes[slot] = hash
        partitions[slot] = Int32(partition)
        lengths[slot] = Int32(bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 {
            (keys + slot * PartitionMemo.keyBytes).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        }
    }
}

/// Up to `capacity` keys chosen evenly at random among all offered (reservoir sampling,
/// seeded, so a query gives the same partitions each time).
struct KeySample {
    let capacity: Int
    private(set) var keys: [[UInt8]] = []
    private var seen = 0
    private var generator = SeededGenerator(seed: 0x5A3F)
    /// The first key offered, and whether another one differed from it.
    private(set) var first: [UInt8]?
    private(set) var hasSeveralKeys = false

    init(capacity: Int) { self.capacity = capacity }

    mutating func offer(_ key: UnsafeRawBufferPointer) {
        if let first {
            if !hasSeveralKeys && !(first.count == key.count && first.withUnsafeBytes { $0.elementsEqual(key) }) {
                hasSeveralKeys = true
            }
        } else {
            first = Array(key)
        }
        seen += 1
        if keys.count < capacity {
            keys.append(Array(key))
        } else {
            let slot = Int(generator.next() % UInt64(seen))
            if slot < capacity { keys[slot] = Array(key) }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
