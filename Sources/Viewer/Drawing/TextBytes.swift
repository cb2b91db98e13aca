import CellStore
import Synchronization

/// The bytes a pane wraps: a cell's slice of its row, shared, or a cell longer than the
/// parser keeps, read from the input a window at a time as the pane pages through it.
///
/// Indices are those of the slice, or the cell's value offsets (from 0) when read from the
/// input. Only windows near what is on screen are held (`WindowedCell`).
struct TextBytes: Sendable {
    private let slice: ArraySlice<UInt8>
    private let input: WindowedCell?

    init(_ slice: ArraySlice<UInt8>) {
        self.slice = slice
        input = nil
    }

    /// The whole of `cell`, read from the input.
    init(_ cell: InputCell) {
        slice = []
        input = WindowedCell(cell)
    }

    /// True when the bytes come from the input (the row holds only the cell's start).
    var isFromInput: Bool { input != nil }

    /// How many windows have been read from the input so far: the work a pane has done on
    /// a cell longer than the row keeps (0 for a slice).
    var windowsRead: Int { input?.windowsRead ?? 0 }

    var startIndex: Int { input == nil ? slice.startIndex : 0 }
    var endIndex: Int { input?.cell.length ?? slice.endIndex }
    var count: Int { endIndex - startIndex }
    var isEmpty: Bool { count == 0 }

    @inline(__always)
    subscript(index: Int) -> UInt8 {
        guard let input else { return slice[index] }
        return input.byte(at: index)
    }

    /// The bytes in `range` (a few, around a line), copied when they come from the input.
    func bytes(in range: Range<Int>) -> ArraySlice<UInt8> {
        guard let input else { return slice[range] }
        return ArraySlice(range.map { input.byte(at: $0) })
    }

    /// The first byte from `start` on (before `end`) that is a line break, or nil.
    func firstBreak(from start: Int, before end: Int) -> Int? {
        var index = start
        while index < end {
            let byte = self[index]
            if byte == 0x0A || byte == 0x0D { return index }
            index += 1
        }
        return nil
    }

    /// The same bytes: the same slice storage, or the same cell read from the input.
    func isSame(as other: TextBytes) -> Bool {
        if let input, let theirs = other.input { return input === theirs }
        guard input == nil && other.input == nil, slice.indices == other.slice.indices else { return false }
        let same = slice.withUnsafeBufferPointer { left in
            other.slice.withUnsafeBufferPointer { right in left.baseAddress == right.baseAddress }
        }
        return same || slice.elementsEqual(other.slice)
    }
}

/// A cell read from the input, by windows of 64 KiB, the last few kept: a pane asks for
/// bytes one at a time around what it lays out, and going back wraps at most 64 KiB.
final class WindowedCell: Sendable {
    let cell: InputCell
    private let windows: Mutex<[(start: Int, bytes: [UInt8])]>
    private let reads = Atomic<Int>(0)

    static let windowSize = 64 << 10
    /// Windows kept: a screen's worth and the region before it.
    static let kept = 6

    init(_ cell: InputCell) {
        self.cell = cell
        windows = Mutex([])
    }

    var windowsRead: Int { reads.load(ordering: .relaxed) }

    /// The byte at value offset `index` (0 when the input no longer has it).
    func byte(at index: Int) -> UInt8 {
        let start = index - index % WindowedCell.windowSize
        if let byte = windows.withLock({ list -> UInt8? in
            guard let found = list.lastIndex(where: { $0.start == start }) else { return nil }
            let offset = index - start
            return offset < list[found].bytes.count ? list[found].bytes[offset] : 0
        }) {
            return byte
        }
        // Read outside the lock: a read may take a while (a gzip input inflates).
        reads.add(1, ordering: .relaxed)
        let bytes = cell.bytes(in: start..<min(cell.length, start + WindowedCell.windowSize))
        return windows.withLock { list in
            list.removeAll { $0.start == start }
            list.append((start, bytes))
            if list.count > WindowedCell.kept { list.removeFirst(list.count - WindowedCell.kept) }
            let offset = index - start
            return offset < bytes.count ? bytes[offset] : 0
        }
    }
}
