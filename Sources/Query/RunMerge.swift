import CellStore

/// One sorted run read in order during the merge: in memory, or from its spill file
/// through a buffer of its own.
package final class RunCursor: HeapOrdered {
    private let memory: SortRun?
    private let file: SpillFile?
    private let trailerSize: Int
    private var index = 0
    private var fileOffset: Int64 = 0
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    /// The current entry (valid while `isValid`).
    package private(set) var key: [UInt8] = []
    /// The current entry's trailer (`trailerSize` bytes; empty for the sort).
    package private(set) var trailer: [UInt8] = []
    package private(set) var prefix: UInt64 = 0
    package private(set) var record = 0
    package private(set) var offset: Int64 = 0
    package private(set) var isValid = false

    package init(memory: SortRun) {
        self.memory = memory
        file = nil
        trailerSize = memory.trailerSize
        advance()
    }

    /// A cursor over a spill file written by a run whose trailers are `trailerSize` bytes.
    package init(file: SpillFile, trailerSize: Int = 0, bufferSize: Int = 1 << 20) {
        memory = nil
        self.file = file
        self.trailerSize = trailerSize
        buffer.reserveCapacity(bufferSize)
        advance()
    }

    /// Moves to the next entry.
    package func advance() {
        if let memory {
            isValid = index < memory.entries.count
            guard isValid else { return }
            let entry = memory.entries[index]
            key.removeAll(keepingCapacity: true)
            key.append(contentsOf: memory.key(index))
            if trailerSize > 0 {
                trailer.removeAll(keepingCapacity: true)
                trailer.append(contentsOf: memory.trailer(index))
            }
            prefix = entry.prefix
            record = entry.record
            offset = entry.offset
            index += 1
            return
        }
        guard ensure(20), let length = readInteger(UInt32.self, at: 0).map(Int.init), ensure(20 + length + trailerSize) else {
            isValid = false
            return
        }
        record = Int(readInteger(Int64.self, at: 4) ?? 0)
        offset = readInteger(Int64.self, at: 12) ?? 0
        let keyStart = bufferStart + 20, keyEnd = keyStart + length
        key.removeAll(keepingCapacity: true)
        key.append(contentsOf: buffer[keyStart..<keyEnd])
        if trailerSize > 0 {
            trailer.removeAll(keepingCapacity: true)
            trailer.append(contentsOf: buffer[keyEnd..<(keyEnd + trailerSize)])
        }
        prefix = key.withUnsafeBytes { SortRun.prefix(of: $0) }
        bufferStart = keyEnd + trailerSize
        isValid = true
    }

    private func readInteger<T: FixedWidthInteger>(_ type: T.Type, at position: Int) -> T? {
        var value: T = 0
        withUnsafeMutableBytes(of: &value) { target in
            buffer.withUnsafeBytes { source in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[(bufferStart + position)...].prefix(MemoryLayout<T>.size)))
            }
        }
        return T(littleEndian: value)
    }

    /// Makes sure `count` bytes from `bufferStart` are in the buffer; false at the end.
    private func ensure(_ count: Int) -> Bool {
        guard let file else { return false }
        if buffer.count - bufferStart >= count { return true }
        buffer.removeSubrange(..<bufferStart)
        bufferStart = 0
        let wanted = max(count, buffer.capacity, 1 << 16) - buffer.count
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: wanted))
        let read = buffer.withUnsafeMutableBytes { file.read(at: fileOffset, into: UnsafeMutableRawBufferPointer(rebasing: $0[old...])) }
        buffer.removeLast(wanted - read)
        fileOffset += Int64(read)
        return buffer.count >= count
    }

    /// True when this cursor's entry comes before `other`'s.
    package func precedes(_ other: RunCursor) -> Bool {
        if prefix != other.prefix { return prefix < other.prefix }
        let order = key.withUnsafeBytes { a in other.key.withUnsafeBytes { b in SortRun.compare(a, b) } }
        return order != 0 ? order < 0 : record < other.record
    }
}

/// Merges sorted runs in one pass with a binary heap of their cursors.
package struct RunMerge {
    private var heap: MinHeap<RunCursor>

    package init(_ cursors: [RunCursor]) {
        heap = MinHeap(cursors.filter(\.isValid))
    }

    /// The cursor holding the next entry (valid until `advance()`), or nil at the end.
    package var top: RunCursor? { heap.top }

    /// Moves past the entry at `top`.
    package mutating func advance() {
        guard let top = heap.top else { return }
        top.advance()
        if top.isValid { heap.topChanged() } else { heap.pop() }
    }

    /// The next entry's record and offset, or nil at the end.
    mutating func next() -> (record: Int, offset: Int64)? {
        guard let top = heap.top else { return nil }
        let result = (top.record, top.offset)
        advance()
        return result
    }
}
