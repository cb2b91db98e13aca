#if canImport(Glibc)
import Glibc
#endif

/// Keys, record numbers and offsets gathered up to a memory budget, then sorted into a run.
///
/// An entry's key is the concatenation of its sort keys' encodings (see `KeyEncoding`),
/// with a descending key's payload inverted, so that plain byte order is the sort's order;
/// equal keys keep the file's order (the record number breaks ties). The first 8 bytes of
/// the key ride along as an integer, so most comparisons never look at the key bytes.
///
/// The diff's keyed runs are these runs too: each of its entries carries a fixed-size
/// trailer (the record's hash and flag) stored in the arena after the key, never
/// compared. The sort's trailer is empty, so its entries stay 32 bytes and its spill
/// format is unchanged.
package struct SortRun: Sendable {
    package struct Entry: Sendable {
        var prefix: UInt64
        var keyStart: UInt32
        var keyLength: UInt32
        var record: Int
        var offset: Int64
    }

    private(set) var entries: [Entry] = []
    private(set) var arena: [UInt8] = []
    /// Entries and key bytes a run holds at most: half the budget each, reserved at the
    /// first entry (pages are touched only as they fill), so the arrays never grow past it.
    let entryLimit: Int
    let arenaLimit: Int
    /// Bytes each entry carries after its key, in the arena and in the spill file.
    package let trailerSize: Int

    package init(budget: Int = 1 << 30, trailerSize: Int = 0) {
        entryLimit = max(16, budget / 2 / MemoryLayout<Entry>.stride)
        arenaLimit = max(1 << 12, budget / 2)
        self.trailerSize = trailerSize
    }

    package var isEmpty: Bool { entries.isEmpty }

    /// True when an entry with a key of `length` bytes does not fit any more.
    package func isFull(adding length: Int) -> Bool {
        !entries.isEmpty && (entries.count >= entryLimit || arena.count + length + trailerSize > arenaLimit)
    }

    /// Appends an entry; `trailer` holds `trailerSize` bytes (nothing for the sort).
    package mutating func append(key: UnsafeRawBufferPointer, trailer: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                                 record: Int, offset: Int64) {
        if entries.capacity == 0 {
            entries.reserveCapacity(entryLimit)
            arena.reserveCapacity(arenaLimit)
        }
        let start = arena.count
        arena.append(contentsOf: key)
        if trailerSize > 0 { arena.append(contentsOf: trailer.prefix(trailerSize)) }
        entries.append(Entry(prefix: Self.prefix(of: key), keyStart: UInt32(start), keyLength: UInt32(key.count),
                             record: record, offset: offset))
    }

    static func prefix(of key: UnsafeRawBufferPointer) -> UInt64 {
        var prefix: UInt64 = 0
        for index in 0..<8 { prefix = prefix << 8 | UInt64(index < key.count ? key[index] : 0) }
        return prefix
    }

    /// Sorts the entries by key, then record.
    package mutating func sort() {
        arena.withUnsafeBytes { arena in
            entries.sort { a, b in
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                let order = Self.compare(UnsafeRawBufferPointer(rebasing: arena[Int(a.keyStart)..<Int(a.keyStart + a.keyLength)]),
                                         UnsafeRawBufferPointer(rebasing: arena[Int(b.keyStart)..<Int(b.keyStart + b.keyLength)]))
                return order != 0 ? order < 0 : a.record < b.record
            }
        }
    }

    /// Byte order, a shorter key first when it is a prefix of the other.
    package static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// The key of entry `index`.
    func key(_ index: Int) -> ArraySlice<UInt8> {
        let entry = entries[index]
        return arena[Int(entry.keyStart)..<Int(entry.keyStart + entry.keyLength)]
    }

    /// The trailer of entry `index`.
    func trailer(_ index: Int) -> ArraySlice<UInt8> {
        let end = Int(entries[index].keyStart + entries[index].keyLength)
        return arena[end..<(end + trailerSize)]
    }

    package mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
    }

    /// Writes the sorted entries to a spill file: for each, the key's length (4 bytes),
    /// the record and the offset (8 each), then the key and its trailer.
    package func spill() throws(QueryError) -> SpillFile {
        let file = try SpillFile()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        for index in entries.indices {
            let entry = entries[index]
            Self.appendHeader(UInt32(entry.keyLength), Int64(entry.record), entry.offset, to: &buffer)
            let start = Int(entry.keyStart)
            buffer.append(contentsOf: arena[start..<(start + Int(entry.keyLength) + trailerSize)])
            if buffer.count >= 1 << 20 {
                try file.append(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try file.append(buffer)
        return file
    }

    static func appendHeader(_ length: UInt32, _ record: Int64, _ offset: Int64, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: length.littleEndian) { buffer.append(contentsOf: $0) }
        withUnsafeBytes(of: record.littleEndian) { buffer.append(contentsOf: $0) }
        withUnsafeBytes(of: offset.littleEndian) { buffer.append(contentsOf: $0) }
    }
}

/// Builds composite keys from a record's key cells.
struct KeyBuilder {
    let keys: [SortKey]
    let kinds: [ColumnKind]
    /// For each key, the slot of its column among the extractor's columns.
    let slots: [Int]
    /// The distinct key columns, in the extractor's order.
    let columns: [Int]
    private var key: [UInt8] = []

    init(keys: [SortKey], kinds: [ColumnKind]) {
        self.keys = keys
        self.kinds = kinds
        var columns: [Int] = []
        for key in keys where !columns.contains(key.column) { columns.append(key.column) }
        self.columns = columns
        slots = keys.map { key in columns.firstIndex(of: key.column)! }
    }

    /// Calls `body` with the key of a record whose key columns' cells are `cells` (in
    /// `columns` order).
    mutating func withKey<R>(cells: [[UInt8]], _ body: (UnsafeRawBufferPointer) -> R) -> R {
        key.removeAll(keepingCapacity: true)
        for (index, sortKey) in keys.enumerated() {
            let start = key.count
            cells[slots[index]].withUnsafeBytes { KeyEncoding.appendSortKey($0, kind: kinds[index], to: &key) }
            if sortKey.descending && key[start] != KeyEncoding.emptyClass {
                for position in (start + 1)..<key.count { key[position] = ~key[position] }
            }
        }
        return key.withUnsafeBytes(body)
    }

    /// The key of a parsed record's cells.
    mutating func key(of fields: (Int) -> ArraySlice<UInt8>) -> [UInt8] {
        let cells = columns.map { Array(fields($0).prefix(KeyExtractor.cellLimit)) }
        return withKey(cells: cells) { Array($0) }
    }
}
