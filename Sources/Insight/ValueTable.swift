#if canImport(Glibc)
import Glibc
#endif
import CFieldScan

/// Counts per distinct value, keyed by the value's bytes: an open-addressing hash table
/// whose keys live back to back in one byte arena, so counting a cell allocates nothing.
///
/// Entries stay in the order their values were first added, and each remembers the first
/// record it was seen in (for ties: first appearance wins).
struct ValueTable {
    struct Entry {
        var hash: UInt64
        /// Where the value's bytes are in the arena (a budget keeps it far below 4 GiB);
        /// the top bit of `length` marks a long value's key (see `LongValue.key`).
        var start: UInt32
        var length: UInt32
        var count: Int
        /// The first record the value was seen in (Int.max: not seen yet).
        var first: Int

        /// True for a long value, counted under its key.
        var isLong: Bool { length & Entry.longFlag != 0 }
        /// Bytes the entry has in the arena.
        var storedLength: Int { Int(length & ~Entry.longFlag) }
        static let longFlag: UInt32 = 1 << 31
    }

    private(set) var arena: [UInt8] = []
    private(set) var entries: [Entry] = []
    /// Per slot: -1, or an entry's index in the low `indexBits` bits and above them a tag
    /// from its hash's top bits, so that a lookup passes over an entry of another value
    /// without loading it (most lookups of a column of unique values find nothing).
    private var slots: [Int32] = []
    private var mask = 0
    private var indexBits = 0
    /// The hash's top `31 − indexBits` bits are the tag (`tagShift` is 64 less that).
    private var tagShift: UInt64 = 64

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        setSlots(size)
    }

    /// Empty slots, `size` (a power of two) of them.
    private mutating func setSlots(_ size: Int) {
        slots = Array(repeating: -1, count: size)
        mask = size - 1
        indexBits = mask.nonzeroBitCount
        tagShift = UInt64(min(64, 64 - (31 - indexBits)))
    }

    /// The tag of hash `hash`, in place above a slot's index (0 when no bit is left for one).
    @inline(__always)
    private func tag(_ hash: UInt64) -> Int {
        tagShift >= 64 ? 0 : Int(truncatingIfNeeded: hash >> tagShift) << indexBits
    }

    var count: Int { entries.count }

    /// Bytes held, roughly: what the budget is checked against.
    var memoryCost: Int { arena.capacity + entries.capacity * MemoryLayout<Entry>.stride + slots.count * 4 + 64 }

    /// The bytes of entry `index`'s value (of a long value, its key).
    func value(_ index: Int) -> [UInt8] {
        let entry = entries[index]
        return Array(arena[Int(entry.start)..<(Int(entry.start) + entry.storedLength)])
    }

    /// Entry `index`'s value as shown: its bytes, or a long value's start and whole length.
    func shown(_ index: Int) -> (value: [UInt8], wholeLength: Int?) {
        let entry = entries[index]
        let stored = arena[Int(entry.start)..<(Int(entry.start) + entry.storedLength)]
        guard entry.isLong else { return (Array(stored), nil) }
        let (bytes, length) = LongValue.shown(ofKey: stored)
        return (Array(bytes), length)
    }

    /// Starts loading the slot a value of hash `hash` is looked up in first.
    /// (Mutating only so that a call through a sink's arrays borrows the table in place:
    /// a copy would retain its arrays for each cell.)
    @inline(__always)
    mutating func prefetch(hash: UInt64) {
        slots.withUnsafeBufferPointer { cf_prefetch($0.baseAddress! + (Int(truncatingIfNeeded: hash) & mask)) }
    }

    /// Starts loading the entry in the slot a value of hash `hash` is looked up in first
    /// (best after `prefetch(hash:)` has loaded the slot).
    @inline(__always)
    mutating func prefetchEntry(hash: UInt64) {
        let value = Int(slots.withUnsafeBufferPointer { $0[Int(truncatingIfNeeded: hash) & mask] })
        guard value >= 0 else { return }
        entries.withUnsafeBufferPointer { cf_prefetch($0.baseAddress! + (value & mask)) }
    }

    /// Adds `by` to the value's count, inserting it unless `inserts` is false; returns
    /// false when the value was not there and was not inserted. `isLong`: `bytes` is a
    /// long value's key.
    @inline(__always)
    @discardableResult
    mutating func add(_ bytes: UnsafeRawBufferPointer, hash: UInt64, record: Int, by amount: Int = 1, inserts: Bool = true,
                      isLong: Bool = false) -> Bool {
        var slot = Int(truncatingIfNeeded: hash) & mask
        let length = bytes.count
        let stored = UInt32(truncatingIfNeeded: length) | (isLong ? Entry.longFlag : 0)
        let tagged = tag(hash)
        while true {
            let value = Int(slots[slot])
            if value < 0 { break }
            let index = value & mask
            if value - index == tagged && entries[index].hash == hash && entries[index].length == stored {
                let start = Int(entries[index].start)
                let same = length == 0 || arena.withUnsafeBufferPointer { ValueTable.equal(UnsafeRawPointer($0.baseAddress! + start), bytes.baseAddress!, length) }
                if same {
                    entries[index].count += amount
                    if record < entries[index].first { entries[index].first = record }
                    return true
                }
            }
            slot = (slot + 1) & mask
        }
        guard inserts else { return false }
        let start = arena.count
        if length > 0 { arena.append(contentsOf: bytes) }
        slots[slot] = Int32(truncatingIfNeeded: tagged | entries.count)
        entries.append(Entry(hash: hash, start: UInt32(truncatingIfNeeded: start), length: stored,
                             count: amount, first: record))
        if entries.count * 2 > slots.count { grow() }
        return true
    }

    /// True when the `count` bytes at `a` and at `b` are the same: word by word, without
    /// a call for the short values most cells hold.
    @inline(__always)
    static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        guard count <= 32 else { return memcmp(a, b, count) == 0 }
        var index = 0
        while index + 8 <= count {
            if a.loadUnaligned(fromByteOffset: index, as: UInt64.self) != b.loadUnaligned(fromByteOffset: index, as: UInt64.self) {
                return false
            }
            index += 8
        }
        while index < count {
            if a.load(fromByteOffset: index, as: UInt8.self) != b.load(fromByteOffset: index, as: UInt8.self) { return false }
            index += 1
        }
        return true
    }

    /// The entry holding the value, if any.
    func index(of bytes: UnsafeRawBufferPointer, hash: UInt64, isLong: Bool) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        let stored = UInt32(truncatingIfNeeded: bytes.count) | (isLong ? Entry.longFlag : 0)
        let tagged = tag(hash)
        while true {
            let value = Int(slots[slot])
            if value < 0 { return nil }
            let index = value & mask
            if value - index == tagged && entries[index].hash == hash && entries[index].length == stored {
                let start = Int(entries[index].start)
                if bytes.count == 0 || arena.withUnsafeBufferPointer({ memcmp($0.baseAddress! + start, bytes.baseAddress!, bytes.count) == 0 }) {
                    return index
                }
            }
            slot = (slot + 1) & mask
        }
    }

    private mutating func grow() {
        rehash(size: slots.count * 2)
    }

    private mutating func rehash(size: Int) {
        setSlots(size)
        for (index, entry) in entries.enumerated() {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: tag(entry.hash) | index)
        }
    }

    /// Adds the counts of `other`, a table with the same values in the same order.
    mutating func addCounts(ofSameValues other: ValueTable) {
        precondition(other.entries.count == entries.count)
        for index in entries.indices {
            entries[index].count += other.entries[index].count
            entries[index].first = min(entries[index].first, other.entries[index].first)
        }
    }

    /// Calls `body` with each entry and its value's bytes, in order of insertion.
    func forEach(_ body: (Entry, UnsafeRawBufferPointer) -> Void) {
        arena.withUnsafeBytes { bytes in
            for entry in entries {
                body(entry, UnsafeRawBufferPointer(rebasing: bytes[Int(entry.start)..<(Int(entry.start) + entry.storedLength)]))
            }
        }
    }

    /// Keeps the entries whose count is above `cut`, less `cut`, in the same order, in
    /// place: their bytes move down the arena and nothing new is allocated.
    /// The slots are sized for `room` entries from then on (small, so lookups stay in cache).
    mutating func dropCounts(upTo cut: Int, room: Int) {
        var kept = 0
        var end = 0
        arena.withUnsafeMutableBytes { bytes in
            for index in entries.indices where entries[index].count > cut {
                var entry = entries[index]
                let length = entry.storedLength
                if Int(entry.start) != end && length > 0 {
                    memmove(bytes.baseAddress! + end, bytes.baseAddress! + Int(entry.start), length)
                }
                entry.start = UInt32(end)
                entry.count -= cut
                end += length
                entries[kept] = entry
                kept += 1
            }
        }
        arena.removeLast(arena.count - end)
        entries.removeLast(entries.count - kept)
        var size = 16
        while size < max(room, kept) * 2 { size <<= 1 }
        rehash(size: size)
    }

    /// The indexes of the `limit` entries with the highest counts, highest first, ties in
    /// order of first appearance.
    func top(_ limit: Int) -> [Int] {
        let before: (Int, Int) -> Bool = { a, b in
            let x = entries[a], y = entries[b]
            return x.count != y.count ? x.count > y.count : x.first != y.first ? x.first < y.first : a < b
        }
        if limit >= entries.count { return entries.indices.sorted(by: before) }
        guard limit > 0 else { return [] }
        // A bounded selection: keep the best `limit` seen, re-sorting only when a batch fills.
        // An entry is passed over only when it ranks below the worst of a sorted, full
        // `limit` (the last one appended is not the worst until the batch is sorted).
        var kept: [Int] = []
        kept.reserveCapacity(limit * 2)
        var worst: Int?
        for index in entries.indices {
            if let worst, !before(index, worst) { continue }
            kept.append(index)
            if kept.count >= limit * 2 || (worst == nil && kept.count == limit) {
                kept.sort(by: before)
                kept.removeLast(kept.count - limit)
                worst = kept.last
            }
        }
        kept.sort(by: before)
        return Array(kept.prefix(limit))
    }
}
