import Query
import Synchronization
import Table

/// The aligned rows of a diff as runs: a run is rows of one kind whose old records (and
/// new records) follow one another, kept as its first row's; so a long stretch of same
/// records by position costs one entry, and a row is found by a binary search.
///
/// Runs past `memoryLimit` go to a temporary file in blocks of `blockSize`, keeping only
/// each block's first row in memory (a keyed diff of a file whose order changed has a run
/// a row): memory stays bounded whatever the tables' size, and a row is found by a binary
/// search over the blocks, then one block read (a few blocks are kept read).
struct DiffEntries: Sendable {
    static let same: UInt8 = 0, changed: UInt8 = 1, added: UInt8 = 2, removed: UInt8 = 3
    /// The same values, and values in columns only the new table has (daff's `+`).
    static let filled: UInt8 = 4
    /// The same values, elsewhere in the new table (daff's `:`).
    static let moved: UInt8 = 5

    struct Entry: Equatable {
        var kind: UInt8
        var old: RecordRef?
        var new: RecordRef?
    }

    /// Runs in memory, one array per field (the runs after those spilled).
    private var starts: [Int] = []
    private var kinds: [UInt8] = []
    private var olds: [Int] = []
    private var news: [Int] = []
    private var oldOffsets: [Int64] = []
    private var newOffsets: [Int64] = []
    /// Runs spilled, and the first row of each block of them.
    private var spill: Spill?
    private var blockStarts: [Int] = []
    private(set) var count = 0
    let memoryLimit: Int
    let blockSize: Int
    /// Fields of a run in the file.
    private static let fields = 6

    /// Runs kept in memory: between `memoryLimit` and twice as many (and a block).
    init(memoryLimit: Int = 1 << 16, blockSize: Int = 1024) {
        self.blockSize = max(1, blockSize)
        self.memoryLimit = max(self.blockSize, memoryLimit)
    }

    /// Runs in memory and in the file.
    var runCount: Int { blockStarts.count * blockSize + starts.count }

    mutating func append(kind: UInt8, old: RecordRef?, new: RecordRef?) {
        defer { count += 1 }
        if let last = kinds.indices.last, kinds[last] == kind {
            let length = count - starts[last]
            let oldFollows = old.map { olds[last] >= 0 && $0.record == olds[last] + length } ?? (olds[last] < 0)
            let newFollows = new.map { news[last] >= 0 && $0.record == news[last] + length } ?? (news[last] < 0)
            if oldFollows && newFollows { return }
        }
        starts.append(count)
        kinds.append(kind)
        olds.append(old?.record ?? -1)
        news.append(new?.record ?? -1)
        oldOffsets.append(old?.offset ?? -1)
        newOffsets.append(new?.offset ?? -1)
        // The last run may still grow: only whole blocks before it leave memory, half the
        // limit at a time, so each run is moved in memory once at most.
        if starts.count >= 2 * memoryLimit + blockSize { spillBlocks(max(1, memoryLimit / blockSize)) }
    }

    /// Moves the first `blocks` blocks of runs in memory to the file; if the file cannot
    /// be written, they stay in memory (and are tried again later).
    private mutating func spillBlocks(_ blocks: Int) {
        if spill == nil { spill = try? Spill() }
        guard let spill else { return }
        let moved = blocks * blockSize
        var values: [Int64] = []
        values.reserveCapacity(moved * Self.fields)
        for index in 0..<moved {
            values += [Int64(starts[index]), Int64(kinds[index]), Int64(olds[index]), Int64(news[index]),
                       oldOffsets[index], newOffsets[index]]
        }
        do throws(QueryError) {
            try spill.file.append(values)
        } catch {
            return
        }
        for block in 0..<blocks { blockStarts.append(starts[block * blockSize]) }
        starts.removeFirst(moved)
        kinds.removeFirst(moved)
        olds.removeFirst(moved)
        news.removeFirst(moved)
        oldOffsets.removeFirst(moved)
        newOffsets.removeFirst(moved)
    }

    /// Aligned row `index` (from 0, below `count`).
    func entry(_ index: Int) -> Entry {
        if let first = starts.first, index >= first || blockStarts.isEmpty {
            let run = Self.lastAtOrBefore(index, in: starts)
            return Self.entry(index, start: starts[run], kind: kinds[run], old: olds[run], new: news[run],
                              oldOffset: oldOffsets[run], newOffset: newOffsets[run])
        }
        guard let spill, !blockStarts.isEmpty else { return Entry(kind: Self.same, old: nil, new: nil) }
        let block = Self.lastAtOrBefore(index, in: blockStarts)
        let values = spill.block(block, size: blockSize * Self.fields)
        // The block's starts are every sixth value.
        var low = 0, high = blockSize - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Int(values[middle * Self.fields]) <= index { low = middle } else { high = middle - 1 }
        }
        let base = low * Self.fields
        return Self.entry(index, start: Int(values[base]), kind: UInt8(truncatingIfNeeded: values[base + 1]),
                          old: Int(values[base + 2]), new: Int(values[base + 3]),
                          oldOffset: values[base + 4], newOffset: values[base + 5])
    }

    private static func entry(_ index: Int, start: Int, kind: UInt8, old: Int, new: Int, oldOffset: Int64, newOffset: Int64) -> Entry {
        let step = index - start
        func ref(_ record: Int, _ offset: Int64) -> RecordRef? {
            guard record >= 0 else { return nil }
            return RecordRef(record: record + step, offset: step == 0 && offset >= 0 ? offset : nil)
        }
        return Entry(kind: kind, old: ref(old, oldOffset), new: ref(new, newOffset))
    }

    /// The last place in `values` (ascending, not empty) whose value is at most `value`.
    private static func lastAtOrBefore(_ value: Int, in values: [Int]) -> Int {
        var low = 0, high = values.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if values[middle] <= value { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The temporary file of spilled runs and the blocks of it read lately (shared by the
    /// screen and the passes reading a snapshot: blocks never change once written).
    final class Spill: Sendable {
        let file: SpillFile
        private let read = Mutex<[Int: [Int64]]>([:])
        static let blocksKept = 8

        init() throws(QueryError) { file = try SpillFile() }

        func block(_ number: Int, size: Int) -> [Int64] {
            if let values = read.withLock({ $0[number] }) { return values }
            var values = [Int64](repeating: 0, count: size)
            let bytes = values.withUnsafeMutableBytes { file.read(at: Int64(number * size * 8), into: $0) }
            // A short read (a failing disk) leaves zeros: a same row, never a crash.
            if bytes < size * 8 { values.replaceSubrange((bytes / 8)..., with: repeatElement(0, count: size - bytes / 8)) }
            read.withLock { kept in
                if kept.count >= Self.blocksKept { kept.removeAll(keepingCapacity: true) }
                kept[number] = values
            }
            return values
        }
    }
}
