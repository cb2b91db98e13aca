#if canImport(Glibc)
import Glibc
#endif

/// Rows spread over partitions by their group key (see `KeyRanges`), in runs of one key,
/// kept in memory up to a budget and spilled to a temporary file past it.
///
/// A partition's bytes are runs: a 16-byte header (the key's length, the rows, the rows'
/// bytes, the piece of the input they come from, as 32-bit numbers), the key, then the
/// rows. A row that has the key of the run before it in its partition, from the same
/// piece, joins that run, so a key of many rows is written once per run, not once per
/// row. Runs never straddle a spill or a piece.
///
/// Not `Sendable`: one thread fills a set of partitions (its memory is raw, for speed);
/// what it hands to another thread is the `FilledPartitions` that `finished()` makes.
final class Partitions {
    static let headerBytes = 16

    let count: Int
    /// Bytes held in memory before everything is spilled.
    let budget: Int
    private let buffers: UnsafeMutablePointer<ByteBuffer>
    /// Per partition: where its open run's header is (-1: none), its rows and key length.
    private let runs: UnsafeMutablePointer<(start: Int, rows: UInt32, keyLength: Int)>
    private(set) var segments: [[(offset: Int64, length: Int)]]
    private(set) var spill: SpillArea?
    private(set) var memory = 0
    private var bodyStart = 0
    /// The piece the rows added now come from.
    private var piece: UInt32 = 0

    init(count: Int, budget: Int) {
        self.count = max(1, count)
        self.budget = budget
        buffers = .allocate(capacity: self.count)
        runs = .allocate(capacity: self.count)
        for index in 0..<self.count {
            (buffers + index).initialize(to: ByteBuffer(capacity: 256))
            (runs + index).initialize(to: (-1, 0, 0))
        }
        segments = Array(repeating: [], count: self.count)
    }

    deinit {
        for index in 0..<count { buffers[index].release() }
        buffers.deinitialize(count: count)
        buffers.deallocate()
        runs.deallocate()
    }

    /// Starts a row of key `key` in partition `partition` (its run's, or a new run's);
    /// the row's bytes are then appended with `body`, and the row ended with `endRow`.
    /// `isSingleKey`: every row of the partition has one key, so the run's is this one.
    @inline(__always)
    func beginRow(key: UnsafeRawBufferPointer, partition: Int, isSingleKey: Bool = false) {
        let run = runs[partition]
        let buffer = buffers + partition
        bodyStart = buffer.pointee.count
        if run.start >= 0 && (isSingleKey || (run.keyLength == key.count
            && (key.count == 0 || memcmp(buffer.pointee.base + run.start + Partitions.headerBytes, key.baseAddress!, key.count) == 0))) {
            runs[partition].rows += 1
        } else {
            closeRun(partition)
            let start = buffer.pointee.count
            buffer.pointee.reserve(Partitions.headerBytes)
            for _ in 0..<Partitions.headerBytes { buffer.pointee.append(0) }
            buffer.pointee.append(key)
            runs[partition] = (start, 1, key.count)
        }
    }

    /// Starts a row in the open run of `partition`, a partition of a single key (so the
    /// row's key is the run's), without its key's bytes; false when no run is open.
    @inline(__always)
    func continueRun(_ partition: Int) -> Bool {
        guard runs[partition].start >= 0 else { return false }
        bodyStart = buffers[partition].count
        runs[partition].rows += 1
        return true
    }

    /// Where a row's bytes go.
    @inline(__always)
    func body(_ partition: Int) -> UnsafeMutablePointer<ByteBuffer> { buffers + partition }

    /// Ends the row begun last (its run's header and key count if it started one); spills
    /// when the budget is reached.
    @inline(__always)
    func endRow(partition: Int) throws(SQLError) {
        memory += buffers[partition].count - bodyStart
        if memory >= budget { try spillAll() }
    }

    /// The rows added from now on come from piece `index` (runs of earlier pieces close).
    func startPiece(_ index: Int) {
        for partition in 0..<count { closeRun(partition) }
        piece = UInt32(truncatingIfNeeded: index)
    }

    /// Adds a whole run as it was written (a partition split again).
    func add(run: UnsafeRawBufferPointer, partition: Int) throws(SQLError) {
        closeRun(partition)
        buffers[partition].append(run)
        memory += run.count
        if memory >= budget { try spillAll() }
    }

    /// Writes the header of `partition`'s open run.
    private func closeRun(_ partition: Int) {
        let run = runs[partition]
        guard run.start >= 0 else { return }
        let buffer = buffers[partition]
        let header = UnsafeMutableRawPointer(buffer.base + run.start)
        let bodyLength = buffer.count - run.start - Partitions.headerBytes - run.keyLength
        header.storeBytes(of: UInt32(run.keyLength).littleEndian, as: UInt32.self)
        header.storeBytes(of: run.rows.littleEndian, toByteOffset: 4, as: UInt32.self)
        header.storeBytes(of: UInt32(bodyLength).littleEndian, toByteOffset: 8, as: UInt32.self)
        header.storeBytes(of: piece.littleEndian, toByteOffset: 12, as: UInt32.self)
        runs[partition].start = -1
    }

    /// Writes every partition's runs to the spill file and empties memory.
    func spillAll() throws(SQLError) {
        if spill == nil { spill = try SpillArea() }
        guard let spill else { return }
        for partition in 0..<count {
            closeRun(partition)
            let buffer = buffers + partition
            guard buffer.pointee.count > 0 else { continue }
            let offset = try spill.append(buffer.pointee.bytes)
            segments[partition].append((offset, buffer.pointee.count))
            buffer.pointee.removeAll()
            buffer.pointee.shrink(to: 64 << 10)
        }
        memory = 0
    }

    /// Closes every run: the partitions are complete, and what they hold moves to a value
    /// any thread may read (the bytes in memory are copied, at most the budget, and freed
    /// here). The partitions are not to be used after.
    func finished() -> FilledPartitions {
        var held: [[UInt8]] = []
        for partition in 0..<count {
            closeRun(partition)
            let buffer = buffers + partition
            held.append(Array(buffer.pointee.bytes))
            buffer.pointee.removeAll()
            buffer.pointee.shrink(to: 16)
        }
        memory = 0
        return FilledPartitions(file: spill?.file, segments: segments, memory: held)
    }

    /// A key's hash, for bringing equal keys together (a multiply-and-mix over 8-byte words, then MurmurHash3's finalizer).
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = seed &+ UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 29
            index += 8
        }
        if index < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while index < count {
                tail |= UInt64(bytes[index]) << shift
                shift += 8
                index += 1
            }
            hash = (hash ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        }
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }
}

/// A set of partitions once filled: their spilled segments and the bytes they held in
/// memory, read by the thread that gathers them.
struct FilledPartitions: Sendable {
    let file: SpillFile?
    let segments: [[(offset: Int64, length: Int)]]
    let memory: [[UInt8]]

    /// What partition `partition` holds: its spilled segments, then its bytes in memory.
    func parts(_ partition: Int) -> [PartitionPart] {
        var parts: [PartitionPart] = []
        if let file {
            parts += segments[partition].map { PartitionPart.spilled(file, $0.offset, $0.length) }
        }
        if !memory[partition].isEmpty { parts.append(.memory(memory[partition])) }
        return parts
    }
}

/// A stretch of one partition's runs: spilled to a file, or in memory.
enum PartitionPart: Sendable {
    case spilled(SpillFile, Int64, Int)
    case memory([UInt8])

    var length: Int {
        switch self {
        case .spilled(_, _, let length): length
        case .memory(let bytes): bytes.count
        }
    }

    /// The part's bytes, read into `buffer` (valid until the buffer is used again).
    func load(into buffer: inout ByteBuffer) throws(SQLError) -> UnsafeRawBufferPointer {
        buffer.removeAll()
        switch self {
        case .memory(let bytes):
            bytes.withUnsafeBytes { buffer.append($0) }
        case .spilled(let file, let offset, let length):
            buffer.reserve(length)
            guard file.read(at: offset, into: UnsafeMutableRawBufferPointer(start: buffer.base, count: length)) else {
                throw .engine("cannot read back a temporary file")
            }
            buffer.setCount(length)
        }
        return buffer.bytes
    }
}

/// One run, as read back.
struct Run {
    /// The whole run, header included.
    var bytes: UnsafeRawBufferPointer
    var key: UnsafeRawBufferPointer
    var rows: Int
    /// The rows' bytes.
    var body: UnsafeRawBufferPointer
    /// The piece of the input the rows come from.
    var piece: Int

    /// The run at `index` of `bytes`, and where the next one starts; nil at the end.
    static func read(in bytes: UnsafeRawBufferPointer, at index: Int) throws(SQLError) -> (run: Run, end: Int)? {
        guard index + Partitions.headerBytes <= bytes.count else { return nil }
        let keyLength = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self)))
        let rows = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self)))
        let bodyLength = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 8, as: UInt32.self)))
        let piece = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 12, as: UInt32.self)))
        let keyStart = index + Partitions.headerBytes
        let end = keyStart + keyLength + bodyLength
        guard end <= bytes.count else { throw .engine("a temporary file was read back damaged") }
        let run = Run(bytes: UnsafeRawBufferPointer(rebasing: bytes[index..<end]),
                      key: UnsafeRawBufferPointer(rebasing: bytes[keyStart..<(keyStart + keyLength)]),
                      rows: rows, body: UnsafeRawBufferPointer(rebasing: bytes[(keyStart + keyLength)..<end]), piece: piece)
        return (run, end)
    }

    /// The runs in `bytes`, in order.
    static func forEach(in bytes: UnsafeRawBufferPointer, _ visit: (Run) throws(SQLError) -> Void) throws(SQLError) {
        var index = 0
        while let (run, end) = try read(in: bytes, at: index) {
            try visit(run)
            index = end
        }
    }
}

/// The runs of one worker's parts of a partition, in order, a part in memory at a time.
struct RunStream {
    private let parts: [PartitionPart]
    private var next = 0
    private var buffer = ByteBuffer(capacity: 64)
    private var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    private var offset = 0

    init(_ parts: [PartitionPart]) { self.parts = parts }

    /// Frees the buffer; the stream must not be used after.
    func release() { buffer.release() }

    /// The next run (valid until the next call), or nil.
    mutating func nextRun() throws(SQLError) -> Run? {
        while true {
            if let (run, end) = try Run.read(in: bytes, at: offset) {
                offset = end
                return run
            }
            guard next < parts.count else { return nil }
            bytes = try parts[next].load(into: &buffer)
            next += 1
            offset = 0
        }
    }
}

/// The runs of several workers' parts of a partition, merged in the order of the pieces
/// they come from: the input's order, whichever worker read a piece.
struct MergedRuns {
    private var streams: [RunStream]
    private var heads: [Run?]

    init(_ parts: [[PartitionPart]]) throws(SQLError) {
        streams = parts.map(RunStream.init)
        heads = []
        for index in streams.indices { heads.append(try streams[index].nextRun()) }
    }

    func release() { streams.forEach { $0.release() } }

    /// The next run (valid until the next call), or nil.
    mutating func nextRun() throws(SQLError) -> Run? {
        // The stream of the run given last moves on only now: its buffer held that run.
        if pending >= 0 {
            heads[pending] = try streams[pending].nextRun()
            pending = -1
        }
        var chosen = -1
        for (index, head) in heads.enumerated() {
            guard let head else { continue }
            if chosen < 0 || head.piece < heads[chosen]!.piece { chosen = index }
        }
        guard chosen >= 0 else { return nil }
        pending = chosen
        return heads[chosen]
    }

    private var pending = -1
}
