import Foundation
import Query

/// One input's (key, record) entries gathered up to a memory budget, then sorted into a
/// run, as the sort's runs are (`SortRun`), with each record's hash and flag beside it.
///
/// A key is bytes that compare with `memcmp` in the order a diff shows keys (see
/// `DiffKey`); equal keys keep the file's order, so duplicates are matched in order.
struct KeyedRun {
    struct Entry {
        var prefix: UInt64
        var keyStart: UInt32
        var keyLength: UInt32
        var record: Int
        var offset: Int64
        var hash: UInt64
        var flagged: Bool
    }

    private(set) var entries: [Entry] = []
    private(set) var arena: [UInt8] = []
    let entryLimit: Int
    let arenaLimit: Int

    init(budget: Int) {
        entryLimit = max(16, budget / 2 / MemoryLayout<Entry>.stride)
        arenaLimit = max(1 << 12, budget / 2)
    }

    var isEmpty: Bool { entries.isEmpty }

    func isFull(adding length: Int) -> Bool {
        !entries.isEmpty && (entries.count >= entryLimit || arena.count + length > arenaLimit)
    }

    mutating func append(key: [UInt8], record: Int, offset: Int64, hash: UInt64, flagged: Bool) {
        if entries.capacity == 0 {
            // Reserved whole (pages are touched only as they fill), so the arrays never
            // double past the budget.
            entries.reserveCapacity(entryLimit)
            arena.reserveCapacity(arenaLimit)
        }
        let start = arena.count
        arena.append(contentsOf: key)
        entries.append(Entry(prefix: KeyedRun.prefix(of: key[...]), keyStart: UInt32(start), keyLength: UInt32(key.count),
                             record: record, offset: offset, hash: hash, flagged: flagged))
    }

    static func prefix(of key: ArraySlice<UInt8>) -> UInt64 {
        var prefix: UInt64 = 0
        var index = key.startIndex
        for _ in 0..<8 {
            prefix = prefix << 8 | UInt64(index < key.endIndex ? key[index] : 0)
            index += 1
        }
        return prefix
    }

    mutating func sort() {
        arena.withUnsafeBytes { arena in
            entries.sort { a, b in
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                let order = KeyedRun.compare(UnsafeRawBufferPointer(rebasing: arena[Int(a.keyStart)..<Int(a.keyStart + a.keyLength)]),
                                             UnsafeRawBufferPointer(rebasing: arena[Int(b.keyStart)..<Int(b.keyStart + b.keyLength)]))
                return order != 0 ? order < 0 : a.record < b.record
            }
        }
    }

    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    func key(_ index: Int) -> ArraySlice<UInt8> {
        let entry = entries[index]
        return arena[Int(entry.keyStart)..<Int(entry.keyStart + entry.keyLength)]
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
    }

    /// Writes the sorted entries to a spill file: the key's length (4 bytes), the record,
    /// offset and hash (8 each), the flag (1), then the key.
    func spill() throws(QueryError) -> SpillFile {
        let file = try SpillFile()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        for index in entries.indices {
            let entry = entries[index]
            withUnsafeBytes(of: entry.keyLength.littleEndian) { buffer.append(contentsOf: $0) }
            withUnsafeBytes(of: Int64(entry.record).littleEndian) { buffer.append(contentsOf: $0) }
            withUnsafeBytes(of: entry.offset.littleEndian) { buffer.append(contentsOf: $0) }
            withUnsafeBytes(of: entry.hash.littleEndian) { buffer.append(contentsOf: $0) }
            buffer.append(entry.flagged ? 1 : 0)
            buffer.append(contentsOf: key(index))
            if buffer.count >= 1 << 20 {
                try file.append(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try file.append(buffer)
        return file
    }
}

/// One sorted run read in order during the merge: in memory, or from its spill file.
final class KeyedCursor {
    static let headerSize = 29
    private let memory: KeyedRun?
    private let file: SpillFile?
    private var index = 0
    private var fileOffset: Int64 = 0
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private(set) var key: [UInt8] = []
    private(set) var prefix: UInt64 = 0
    private(set) var record = 0
    private(set) var offset: Int64 = 0
    private(set) var hash: UInt64 = 0
    private(set) var flagged = false
    private(set) var isValid = false

    init(memory: KeyedRun) {
        self.memory = memory
        file = nil
        advance()
    }

    init(file: SpillFile) {
        memory = nil
        self.file = file
        advance()
    }

    func advance() {
        if let memory {
            isValid = index < memory.entries.count
            guard isValid else { return }
            let entry = memory.entries[index]
            key.removeAll(keepingCapacity: true)
            key.append(contentsOf: memory.key(index))
            prefix = entry.prefix
            record = entry.record
            offset = entry.offset
            hash = entry.hash
            flagged = entry.flagged
            index += 1
            return
        }
        let header = KeyedCursor.headerSize
        guard ensure(header) else {
            isValid = false
            return
        }
        let length = Int(integer(UInt32.self, at: 0))
        guard ensure(header + length) else {
            isValid = false
            return
        }
        record = Int(integer(Int64.self, at: 4))
        offset = integer(Int64.self, at: 12)
        hash = integer(UInt64.self, at: 20)
        flagged = buffer[bufferStart + 28] != 0
        key.removeAll(keepingCapacity: true)
        key.append(contentsOf: buffer[(bufferStart + header)..<(bufferStart + header + length)])
        prefix = KeyedRun.prefix(of: key[...])
        bufferStart += header + length
        isValid = true
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, at position: Int) -> T {
        var value: T = 0
        for byte in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(buffer[bufferStart + position + byte]) }
        return value
    }

    private func ensure(_ count: Int) -> Bool {
        guard let file else { return false }
        if buffer.count - bufferStart >= count { return true }
        buffer.removeSubrange(..<bufferStart)
        bufferStart = 0
        let wanted = max(count, 1 << 16) - buffer.count
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: wanted))
        let read = buffer.withUnsafeMutableBytes { file.read(at: fileOffset, into: UnsafeMutableRawBufferPointer(rebasing: $0[old...])) }
        buffer.removeLast(wanted - read)
        fileOffset += Int64(read)
        return buffer.count >= count
    }

    func precedes(_ other: KeyedCursor) -> Bool {
        if prefix != other.prefix { return prefix < other.prefix }
        let order = key.withUnsafeBytes { a in other.key.withUnsafeBytes { b in KeyedRun.compare(a, b) } }
        return order != 0 ? order < 0 : record < other.record
    }
}

/// Merges one input's sorted runs into its entries in key order.
struct KeyedMerge {
    private var heap: [KeyedCursor]

    init(_ cursors: [KeyedCursor]) {
        heap = cursors.filter(\.isValid)
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// The cursor holding the next entry (valid until `advance()`), or nil at the end.
    var top: KeyedCursor? { heap.first }

    mutating func advance() {
        guard let top = heap.first else { return }
        top.advance()
        if !top.isValid {
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
        }
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count && heap[right].precedes(heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
