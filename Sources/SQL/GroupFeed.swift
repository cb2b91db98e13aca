import CellStore
import Dispatch
import Scan
import Synchronization

/// Memory a grouped scan may hold: per worker while rows are spread over partitions, and
/// for one partition while its keys are brought together.
struct GroupingBudget: Sendable {
    var spreading = 8 << 20
    var gathering = 16 << 20
}

/// The rows of one scan with rows of equal group keys together, the groups in the keys'
/// order, for a GROUP BY that the table takes on (SQLite then aggregates as the rows come,
/// instead of sorting them all first).
///
/// First a sample of the keys (from pieces spread through the input) cuts the keys into
/// ranges (`KeyRanges`); then every row is typed and written to its range's partition, on
/// two threads (`Partitions`, spilled to a temporary file past the budget). Then each
/// partition in order: one that fits the budget is read whole, its runs brought together
/// by key and handed over in the keys' order; a larger one of a single key is handed over
/// as it is read; any other is cut into ranges again from a sample of its own keys. Rows
/// equal for SQLite's `GROUP BY` have equal keys (see `GroupKey`).
final class GroupFeed: BatchSource {
    /// Batches for the cursor, four at most; a failure ends them.
    private let queue: BoundedQueue<Result<RowBatch, SQLError>>
    private let finished = DispatchSemaphore(value: 0)
    private let changes: ChangeSignal

    /// Pieces read for the first sample of keys, and keys kept from them.
    static let samplePieces = 16
    static let sampleKeys = 16_384

    init(input: ScanInput, readers: RecordReaders, request: ScanRequest, workers: Int, budget: GroupingBudget,
         control: QueryControl) {
        let queue = BoundedQueue<Result<RowBatch, SQLError>>(limit: 4)
        self.queue = queue
        changes = readers.changes
        let finished = self.finished
        BackgroundThread.start(name: "csvfreeze sql group") {
            do {
                let isStopped: @Sendable () -> Bool = { control.isCancelled || queue.isClosed }
                let codec = GroupKey(descending: request.groupDescending)
                let source = PieceSource(readers: readers, records: request.records, limit: request.pieceBytes, control: control)
                let ranges = try GroupFeed.sample(source, input: input, request: request, codec: codec, isStopped: isStopped)
                let spread = try GroupFeed.spread(source, input: input, request: request,
                                                  workers: source.isFinal && source.knownCount <= 1 ? 1 : max(1, workers),
                                                  budget: budget, codec: codec, ranges: ranges, control: control,
                                                  isStopped: isStopped)
                var emitter = RunEmitter(request: request, codec: codec, queue: queue)
                for partition in 0..<ranges.partitionCount {
                    if isStopped() { throw SQLError.cancelled }
                    try GroupFeed.gather(spread.map { $0.parts(partition) }, depth: 0, budget: budget, emitter: &emitter)
                }
                emitter.flush()
            } catch {
                queue.push(.failure(error as? SQLError ?? .engine("\(error)")))
            }
            queue.finish()
            finished.signal()
        }
    }

    deinit {
        queue.close()
        // A thread waiting for the index to reach its piece looks again, and stops.
        changes.notify()
        finished.wait()
    }

    func next() throws(SQLError) -> RowBatch? { try queue.pop()?.get() }

    /// Key ranges from a sample of the keys of up to `samplePieces` pieces: spread through
    /// the input when its index is complete, else its first ones (a sample only balances
    /// the partitions; any keys give right answers).
    static func sample(_ source: PieceSource, input: ScanInput, request: ScanRequest, codec: GroupKey,
                       isStopped: () -> Bool) throws(SQLError) -> KeyRanges {
        let fields = RecordFields(input: input, request: request, bufferSize: Int(request.pieceBytes))
        var sink = SamplingSink(request: request, codec: codec, capacity: sampleKeys)
        var indices: [Int]
        if source.isFinal {
            let count = source.knownCount
            indices = Array(stride(from: 0, to: count, by: max(1, count / samplePieces)))
        } else {
            indices = Array(0..<samplePieces)
        }
        for index in indices {
            guard let item = source.item(index, isCancelled: isStopped) else { break }
            fields.read(item, into: &sink, isCancelled: isStopped)
            if let failure = fields.failure { throw failure }
        }
        if isStopped() { throw .cancelled }
        return KeyRanges(sample: sink.sample.keys)
    }

    /// Reads every piece into partitions on `workers` threads, one set each: worker `w`
    /// takes pieces `w`, `w + workers`… (so the answer is the same from run to run, a
    /// float sum's too, and the runs can be merged back into the input's order).
    static func spread(_ source: PieceSource, input: ScanInput, request: ScanRequest, workers: Int, budget: GroupingBudget,
                       codec: GroupKey, ranges: KeyRanges, control: QueryControl,
                       isStopped: @escaping @Sendable () -> Bool) throws(SQLError) -> [FilledPartitions] {
        let results = Mutex<[Int: Result<FilledPartitions, SQLError>]>([:])
        let work: @Sendable (Int) -> Void = { worker in
            let outcome: Result<FilledPartitions, SQLError>
            do throws(SQLError) {
                let fields = RecordFields(input: input, request: request, bufferSize: Int(request.pieceBytes))
                let partitions = Partitions(count: ranges.partitionCount, budget: max(1, budget.spreading / workers))
                var sink = GroupingSink(request: request, codec: codec, ranges: ranges, partitions: partitions)
                var index = worker
                while let item = source.item(index, isCancelled: isStopped) {
                    partitions.startPiece(index)
                    fields.read(item, into: &sink, isCancelled: isStopped)
                    if let failure = fields.failure ?? sink.failure { throw failure }
                    control.noteRead(item.piece.byteCount)
                    index += workers
                }
                if isStopped() { throw SQLError.cancelled }
                outcome = .success(partitions.finished())
            } catch {
                outcome = .failure(error)
            }
            results.withLock { $0[worker] = outcome }
        }
        Workers.run(workers, work)
        var all: [FilledPartitions] = []
        for worker in 0..<workers {
            guard let outcome = results.withLock({ $0[worker] }) else { throw .cancelled }
            all.append(try outcome.get())
        }
        return all
    }

    /// Hands over the rows of one partition (each worker's `parts`), key by key in the
    /// keys' order, a key's rows in the input's order.
    static func gather(_ parts: [[PartitionPart]], depth: Int, budget: GroupingBudget,
                       emitter: inout RunEmitter) throws(SQLError) {
        let total = parts.reduce(0) { $0 + $1.reduce(0) { $0 + $1.length } }
        guard total > 0 else { return }
        if total <= budget.gathering || depth >= 12 {
            // It fits: read it whole, bring each key's runs together, keys in order.
            var whole = ByteBuffer(capacity: total)
            defer { whole.release() }
            var merged = try MergedRuns(parts)
            defer { merged.release() }
            while let run = try merged.nextRun() { whole.append(run.bytes) }
            var runs: [Run] = []
            try Run.forEach(in: whole.bytes) { run throws(SQLError) in runs.append(run) }
            let chains = KeyChains(runs.map(\.key))
            for group in chains.groupsInOrder(key: { runs[$0].key }) {
                try chains.forEachRun(ofGroup: group) { index throws(SQLError) in try emitter.emit(runs[index]) }
            }
            return
        }
        // Too large: a sample of its keys says whether it holds one key (handed over as it is
        // read again) or several (cut into ranges again).
        var sample = KeySample(capacity: sampleKeys)
        var first = try MergedRuns(parts)
        while let run = try first.nextRun() { sample.offer(run.key) }
        first.release()
        var again = try MergedRuns(parts)
        defer { again.release() }
        if !sample.hasSeveralKeys {
            while let run = try again.nextRun() { try emitter.emit(run) }
            return
        }
        let ranges = KeyRanges(sample: sample.keys)
        let rest = Partitions(count: ranges.partitionCount, budget: budget.gathering)
        while let run = try again.nextRun() { try rest.add(run: run.bytes, partition: ranges.partition(of: run.key)) }
        let filled = rest.finished()
        for partition in 0..<ranges.partitionCount {
            try gather([filled.parts(partition)], depth: depth + 1, budget: budget, emitter: &emitter)
        }
    }
}

/// Groups equal keys: for each distinct key, in the order first seen, the indices of the
/// runs that have it, chained (an open-addressing table over the keys' hashes).
struct KeyChains {
    /// Per group, its first run; per run, the next run of its group (-1: none).
    private var first: [Int32] = []
    private var next: [Int32]

    init(_ keys: [UnsafeRawBufferPointer]) {
        next = [Int32](repeating: -1, count: keys.count)
        var last: [Int32] = []
        var size = 16
        while size < keys.count * 2 { size <<= 1 }
        var table = [Int32](repeating: -1, count: size)
        var hashes = [UInt64](repeating: 0, count: size)
        for (index, key) in keys.enumerated() {
            let hash = Partitions.hash(key, seed: 0x5EED)
            var slot = Int(truncatingIfNeeded: hash) & (size - 1)
            while true {
                let group = Int(table[slot])
                if group < 0 {
                    table[slot] = Int32(first.count)
                    hashes[slot] = hash
                    first.append(Int32(index))
                    last.append(Int32(index))
                    break
                }
                if hashes[slot] == hash, keys[Int(first[group])].elementsEqual(key) {
                    next[Int(last[group])] = Int32(index)
                    last[group] = Int32(index)
                    break
                }
                slot = (slot + 1) & (size - 1)
            }
        }
    }

    /// The groups, sorted by their keys (`key` gives a run's key).
    func groupsInOrder(key: (Int) -> UnsafeRawBufferPointer) -> [Int] {
        Array(first.indices).sorted { GroupKey.compare(key(Int(first[$0])), key(Int(first[$1]))) < 0 }
    }

    /// Calls `visit` with the index of each run of group `group`.
    func forEachRun(ofGroup group: Int, _ visit: (Int) throws(SQLError) -> Void) throws(SQLError) {
        var index = Int(first[group])
        while index >= 0 {
            try visit(index)
            index = Int(next[index])
        }
    }
}

/// Builds a row's group key from its typed cells.
struct KeyBuilder {
    let groupSlots: [Int]
    let codec: GroupKey
    private(set) var key: [UInt8] = []

    init(groupSlots: [Int], codec: GroupKey) {
        self.groupSlots = groupSlots
        self.codec = codec
        key.reserveCapacity(256)
    }

    @inline(__always)
    mutating func build(_ typed: UnsafePointer<(kind: SQLKind, bits: UInt64)>, cells: UnsafePointer<UnsafeRawBufferPointer>) {
        key.removeAll(keepingCapacity: true)
        for (column, slot) in groupSlots.enumerated() {
            codec.append(kind: typed[slot].kind, bits: typed[slot].bits, text: cells[slot], column: column, to: &key)
        }
    }
}

/// Memory a sink keeps per row, freed with it.
final class TypedCells {
    let cells: UnsafeMutablePointer<(kind: SQLKind, bits: UInt64)>

    init(width: Int) {
        cells = .allocate(capacity: max(1, width))
        cells.initialize(repeating: (.null, 0), count: max(1, width))
    }

    deinit { cells.deallocate() }
}

/// Offers each row's key to a sample.
struct SamplingSink: RowSink {
    private var builder: KeyBuilder
    private let typed: TypedCells
    private let isNumber: [Bool]
    private(set) var sample: KeySample

    init(request: ScanRequest, codec: GroupKey, capacity: Int) {
        isNumber = request.isNumber
        builder = KeyBuilder(groupSlots: request.groupSlots, codec: codec)
        typed = TypedCells(width: request.columns.count)
        sample = KeySample(capacity: capacity)
    }

    mutating func row(record: Int, offset: Int64, cells: UnsafePointer<UnsafeRawBufferPointer>) {
        for slot in builder.groupSlots { typed.cells[slot] = SQLTyping.type(cells[slot], isNumber: isNumber[slot]) }
        builder.build(typed.cells, cells: cells)
        builder.key.withUnsafeBytes { sample.offer($0) }
    }
}

/// Types each row's cells and writes it to the partition of its key's range.
///
/// A row is its record number, then each slot: a tag (0 NULL, 1 integer, 2 real, 3 text,
/// 4 the key's own value), and the value. A group column's value is the key's unless it
/// is a whole real (1.0 is keyed as 1, and must come back as 1.0).
struct GroupingSink: RowSink {
    let width: Int
    /// Per slot, whether its column is a number column.
    let isNumber: [Bool]
    let isGroupSlot: [Bool]
    let ranges: KeyRanges
    let partitions: Partitions
    private var builder: KeyBuilder
    private let typed: TypedCells
    private let memo = PartitionMemo()
    /// With one group column: the partitions of its cells as written, so a cell seen before
    /// in a partition of its own key's costs no key at all.
    private let cellMemo: PartitionMemo?
    private let groupSlot: Int
    private(set) var failure: SQLError?

    init(request: ScanRequest, codec: GroupKey, ranges: KeyRanges, partitions: Partitions) {
        cellMemo = request.groupSlots.count == 1 ? PartitionMemo() : nil
        groupSlot = request.groupSlots.first ?? 0
        width = request.columns.count
        isNumber = request.isNumber
        var isGroup = [Bool](repeating: false, count: width)
        for slot in request.groupSlots { isGroup[slot] = true }
        isGroupSlot = isGroup
        self.ranges = ranges
        self.partitions = partitions
        builder = KeyBuilder(groupSlots: request.groupSlots, codec: codec)
        typed = TypedCells(width: width)
    }

    mutating func row(record: Int, offset: Int64, cells: UnsafePointer<UnsafeRawBufferPointer>) {
        guard failure == nil else { return }
        let typed = self.typed.cells
        for slot in 0..<width { typed[slot] = SQLTyping.type(cells[slot], isNumber: isNumber[slot]) }
        var partition = -1
        if let cellMemo, let known = cellMemo.remembered(cells[groupSlot]), KeyRanges.isSingleKey(known), partitions.continueRun(known) {
            partition = known
        } else {
            builder.build(typed, cells: cells)
            partition = builder.key.withUnsafeBytes { key in
                let partition = memo.partition(of: key, in: ranges)
                partitions.beginRow(key: key, partition: partition, isSingleKey: KeyRanges.isSingleKey(partition))
                return partition
            }
            cellMemo?.remember(cells[groupSlot], partition: partition)
        }
        let body = partitions.body(partition)
        body.pointee.append(varint: UInt64(record))
        for slot in 0..<width {
            let (kind, bits) = typed[slot]
            if isGroupSlot[slot] && (kind != .real || Int64(exactly: Double(bitPattern: bits)) == nil) {
                body.pointee.append(4)
                continue
            }
            switch kind {
            case .null: body.pointee.append(0)
            case .integer, .real:
                body.pointee.append(kind.rawValue)
                body.pointee.append(word: bits)
            case .text:
                body.pointee.append(3)
                body.pointee.append(varint: UInt64(cells[slot].count))
                body.pointee.append(cells[slot])
            }
        }
        do {
            try partitions.endRow(partition: partition)
        } catch {
            failure = error
        }
    }
}

/// Turns runs back into batches of typed rows and queues them for the cursor.
struct RunEmitter {
    let width: Int
    let groupSlots: [Int]
    let codec: GroupKey
    let queue: BoundedQueue<Result<RowBatch, SQLError>>
    private var batch: RowBatch
    /// The run's key as values, by slot.
    private var keyValues: [(kind: SQLKind, bits: UInt64, text: [UInt8])]
    /// The run's key as cells of the current batch (a text stored in it once per run and
    /// batch, not once per row).
    private var keyCells: [SQLCell]

    init(request: ScanRequest, codec: GroupKey, queue: BoundedQueue<Result<RowBatch, SQLError>>) {
        width = request.columns.count
        groupSlots = request.groupSlots
        self.codec = codec
        self.queue = queue
        batch = RowBatch(width: width)
        keyValues = Array(repeating: (.null, 0, []), count: width)
        keyCells = Array(repeating: .null, count: width)
    }

    mutating func emit(_ run: Run) throws(SQLError) {
        for (column, value) in codec.decode(run.key).enumerated() where column < groupSlots.count {
            keyValues[groupSlots[column]] = value
        }
        storeKey()
        var reader = ByteReader(run.body)
        var batch = self.batch
        let width = self.width
        for _ in 0..<run.rows {
            if batch.isFull {
                try flushFull()
                batch = self.batch
            }
            let record = Int(reader.varint())
            let cells = batch.appendRow(record: record)
            for slot in 0..<width {
                switch reader.byte() {
                case 0: cells[slot] = .null
                case 1: cells[slot] = SQLCell(bits: reader.word(), length: 0, kind: .integer)
                case 2: cells[slot] = SQLCell(bits: reader.word(), length: 0, kind: .real)
                case 3:
                    let text = reader.bytes(Int(reader.varint()))
                    cells[slot] = SQLCell(bits: UInt64(batch.storeText(text)), length: Int32(text.count), kind: .text)
                default:
                    cells[slot] = keyCells[slot]
                }
            }
        }
    }

    /// Puts the key's values in the current batch's cells.
    private mutating func storeKey() {
        for slot in groupSlots {
            let (kind, bits, text) = keyValues[slot]
            keyCells[slot] = kind == .text
                ? SQLCell(bits: UInt64(text.withUnsafeBytes { batch.storeText($0) }), length: Int32(text.count), kind: .text)
                : SQLCell(bits: bits, length: 0, kind: kind)
        }
    }

    private mutating func flushFull() throws(SQLError) {
        guard queue.push(.success(batch)) else { throw .cancelled }
        batch = RowBatch(width: width)
        storeKey()
    }

    /// Queues the last batch.
    mutating func flush() {
        if batch.count > 0 { queue.push(.success(batch)) }
        batch = RowBatch(width: width, capacity: 1)
    }
}
