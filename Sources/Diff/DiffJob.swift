import CellStore
import Query
import Scan
import Synchronization
import Table

/// The comparison's passes: one over each input at once (two threads), then the alignment
/// or the merge on the comparison's thread, handing rows to the emitter as it goes.
struct DiffJob: Sendable {
    let old: DiffInput
    let new: DiffInput
    let columns: DiffColumns
    let keyColumns: [Int]
    let options: TableDiff.Options
    let core: TableDiff.Core
    let wake: @Sendable () -> Void

    func run(control: ScanControl) -> Bool {
        let phase: TableDiff.Phase
        do throws(DiffError) {
            phase = keyColumns.isEmpty ? try positional(control: control) : try keyed(control: control)
        } catch {
            phase = .failed(error.description)
        }
        core.queue.finish()
        core.phase.withLock { $0 = control.isCancelled ? .cancelled : phase }
        wake()
        return phase == .done
    }

    // MARK: Plans

    /// What the hasher does with each column of `input` (`isOld`: the old table).
    private func plan(isOld: Bool) -> RecordHasher.Plan {
        var slotOfPlace: [Int: Int] = [:]
        for (slot, place) in columns.common.enumerated() { slotOfPlace[place] = slot }
        let places = isOld ? columns.shownOfOld : columns.shownOfNew
        let slots = places.map { slotOfPlace[$0] ?? -1 }
        let keys = places.map { keyColumns.firstIndex(of: $0) ?? -1 }
        let flags = isOld ? [] : places.map { columns.columns[$0].status == .added }
        return RecordHasher.Plan(slots: slots, keys: keys, flags: flags)
    }

    /// Runs `body` for the old input (0) and the new one (1) on two threads.
    private func bothSides<T: Sendable>(_ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = SideResults<T>()
        BackgroundScan<Bool>.runConcurrently(2) { side in
            let result = body(side)
            results.found.withLock { $0[side] = result }
        }
        return results.found.withLock { found -> [T] in (0..<2).compactMap { found[$0] } }
    }

    /// Reads `input` from its first record to its end, handing the hasher each chunk;
    /// false when cancelled.
    private static func read(_ input: DiffInput, into hasher: inout RecordHasher, control: ScanControl,
                             ended: (Int, Int64, inout RecordHasher) -> Bool) -> Bool {
        let reader = input.reader
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset = input.start
        while offset < reader.end {
            if control.isCancelled { return false }
            let wanted = Int(min(Int64(buffer.count), reader.end - offset))
            let count = reader.source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count <= 0 { break }
            _ = hasher.scan(UnsafeRawBufferPointer(rebasing: buffer[..<count]), at: offset, ended: ended)
            offset += Int64(count)
            control.advance(by: Int64(count))
        }
        if reader.isFinal { hasher.finish(ended: ended) }
        return true
    }

    // MARK: By position

    struct Hashes: Sendable {
        var hashes: [UInt64] = []
        var flags: [UInt64] = []
        var sparse: [Int64] = []
    }

    private func positional(control: ScanControl) throws(DiffError) -> TableDiff.Phase {
        let plans = [plan(isOld: true), plan(isOld: false)]
        let inputs = [old, new]
        let sides = bothSides { side -> Hashes? in
            let input = inputs[side]
            var result = Hashes()
            result.hashes = [UInt64](repeating: 0, count: input.dataRecords)
            if side == 1 { result.flags = [UInt64](repeating: 0, count: input.dataRecords / 64 + 1) }
            result.sparse.reserveCapacity(input.dataRecords / RowFetcher.stride + 1)
            var found = 0
            let headerRows = input.headerRows
            var hasher = RecordHasher(dialect: input.reader.dialect, plan: plans[side], firstRecord: 0, at: input.start)
            let complete = DiffJob.read(input, into: &hasher, control: control) { number, start, hasher in
                let index = number - headerRows
                guard index >= 0 else { return true }
                if index < result.hashes.count { result.hashes[index] = hasher.recordHash } else { result.hashes.append(hasher.recordHash) }
                if index % RowFetcher.stride == 0 { result.sparse.append(start) }
                if side == 1 && hasher.hasFlaggedValue {
                    if index / 64 >= result.flags.count { result.flags.append(contentsOf: repeatElement(0, count: index / 64 + 1 - result.flags.count)) }
                    result.flags[index / 64] |= 1 << UInt64(index % 64)
                }
                found = index + 1
                return true
            }
            guard complete else { return nil }
            if found < result.hashes.count { result.hashes.removeSubrange(found...) }
            return result
        }
        guard sides.count == 2, let oldSide = sides[0], let newSide = sides[1] else { return .cancelled }
        core.phase.withLock { $0 = .aligning }
        wake()
        let emitter = RowEmitter(old: RowFetcher(input: old, sparse: oldSide.sparse), new: RowFetcher(input: new, sparse: newSide.sparse),
                                 columns: columns, context: options.context, core: core)
        let oldBase = old.headerRows, newBase = new.headerRows
        let flags = newSide.flags
        func flagged(_ index: Int) -> Bool { index / 64 < flags.count && flags[index / 64] >> UInt64(index % 64) & 1 != 0 }
        var alignment = Alignment(old: oldSide.hashes, new: newSide.hashes)
        var steps = 0
        var meter = ProgressMeter(core: core, stage: .aligning, total: Int64(oldSide.hashes.count + newSide.hashes.count), wake: wake)
        alignment.run(isCancelled: { control.isCancelled || !emitter.isOpen }) { step in
            switch step {
            case .same(let i, let j, let count):
                for offset in 0..<count {
                    emitter.same(old: RecordRef(record: oldBase + i + offset), new: RecordRef(record: newBase + j + offset),
                                 hasNewColumnValues: flagged(j + offset))
                    steps += 1
                    if steps & 0xFFFF == 0 {
                        if control.isCancelled || !emitter.isOpen { return false }
                        meter.advance(to: Int64(2 * (offset + 1) + i + j))
                    }
                }
                meter.advance(to: Int64(i + j + 2 * count))
            case .hunk(let oldRange, let newRange):
                emitter.hunk(old: oldRange.map { RecordRef(record: oldBase + $0) }, new: newRange.map { RecordRef(record: newBase + $0) },
                             newFlags: { flagged($0 - newBase) })
                meter.advance(to: Int64(oldRange.upperBound + newRange.upperBound))
            }
            return !control.isCancelled && emitter.isOpen
        }
        if let (i, j) = alignment.approximateFrom {
            emitter.note { $0.approximateFrom = (oldBase + i, newBase + j) }
        }
        emitter.finish()
        return control.isCancelled ? .cancelled : .done
    }

    // MARK: By key

    struct KeyedSide: Sendable {
        var spilled: [SpillFile] = []
        var last: SortRun
        /// Data records read.
        var count = 0
        var emptyKeys = 0
        var firstEmptyKey: Int?
        var failure: String?
    }

    private func keyed(control: ScanControl) throws(DiffError) -> TableDiff.Phase {
        let plans = [plan(isOld: true), plan(isOld: false)]
        let inputs = [old, new]
        // One order of keys for both tables: the old table's kinds.
        let kinds = keyColumns.map { place -> ColumnKind in
            let column = columns.columns[place].old ?? 0
            return column < old.kinds.count ? old.kinds[column] : .text
        }
        let budget = max(1 << 16, options.memoryBudget / 2)
        var sides = bothSides { side -> KeyedSide? in
            let input = inputs[side]
            var result = KeyedSide(last: SortRun(budget: budget, trailerSize: KeyedTrailer.size))
            var run = SortRun(budget: budget, trailerSize: KeyedTrailer.size)
            var key: [UInt8] = []
            let headerRows = input.headerRows
            var hasher = RecordHasher(dialect: input.reader.dialect, plan: plans[side], firstRecord: 0, at: input.start)
            let complete = DiffJob.read(input, into: &hasher, control: control) { number, start, hasher in
                guard number >= headerRows else { return true }
                DiffKey.encode(hasher, kinds: kinds, into: &key)
                if hasher.keyLengths.contains(0) {
                    result.emptyKeys += 1
                    if result.firstEmptyKey == nil { result.firstEmptyKey = number }
                }
                if run.isFull(adding: key.count) {
                    run.sort()
                    do throws(QueryError) {
                        result.spilled.append(try run.spill())
                    } catch {
                        result.failure = error.description
                        return false
                    }
                    run.removeAll()
                }
                result.count += 1
                KeyedTrailer.withBytes(hash: hasher.recordHash, flagged: hasher.hasFlaggedValue) { trailer in
                    key.withUnsafeBytes { run.append(key: $0, trailer: trailer, record: number, offset: start) }
                }
                return true
            }
            guard complete else { return nil }
            run.sort()
            result.last = run
            return result
        }
        guard sides.count == 2, var oldSide = sides[0], var newSide = sides[1] else { return .cancelled }
        sides = []
        if let failure = oldSide.failure ?? newSide.failure { throw .failed(failure) }
        core.phase.withLock { $0 = .aligning }
        wake()
        let fetchers = [RowFetcher(input: old, sparse: []), RowFetcher(input: new, sparse: [])]
        let emitter = RowEmitter(old: fetchers[0], new: fetchers[1], columns: columns, context: options.context, core: core)
        emitter.note { statistics in
            statistics.emptyKeys = [oldSide.emptyKeys, newSide.emptyKeys]
            statistics.firstEmptyKey = [oldSide.firstEmptyKey, newSide.firstEmptyKey]
        }
        // The matching, in the keys' order, puts each new record (with the old one it
        // matches, if any) and each removed record aside; then both are read back in the
        // files' order. A quarter of the budget each: the sides' runs are held meanwhile.
        var placed = RecordOrder(budget: max(1 << 12, options.memoryBudget / 4), trailerSize: PlacedTrailer.size)
        var removed = RecordOrder(budget: max(1 << 12, options.memoryBudget / 4), trailerSize: 0)
        var meter = ProgressMeter(core: core, stage: .matching, total: Int64(oldSide.count + newSide.count), wake: wake)
        let removedCount: Int
        do throws(QueryError) {
            removedCount = try match(&oldSide, &newSide, fetchers: fetchers, emitter: emitter, control: control, meter: &meter,
                                     placed: &placed, removed: &removed)
        } catch {
            throw .failed(error.description)
        }
        guard !control.isCancelled else { return .cancelled }
        placed.finish()
        removed.finish()
        meter = ProgressMeter(core: core, stage: .ordering, total: Int64(2 * newSide.count + removedCount), wake: wake)
        var count: Int64 = 0
        func goOn() -> Bool {
            count += 1
            if count & 0xFFF != 0 { return true }
            meter.advance(to: count)
            return !control.isCancelled && emitter.isOpen
        }
        // The records both tables have that keep their order; the others moved.
        var kept: KeptOrder
        do throws(QueryError) {
            kept = try KeptOrder(limit: max(1 << 16, options.memoryBudget / 4 / 24))
            var rows = placed.merge()
            while let top = rows.top {
                if let oldRef = PlacedTrailer.read(top).old { try kept.add(oldRef.record) }
                rows.advance()
                guard goOn() else { return .cancelled }
            }
            try kept.finish()
        } catch {
            throw .failed(error.description)
        }
        // In the new file's order, each removed record where the old file had it: before
        // the first record the new file kept that came after it in the old file (daff's
        // order, so that `daff patch` rebuilds the new file's order).
        var rows = placed.merge(), gone = removed.merge()
        var position = 0
        rows: while let top = rows.top {
            let new = RecordRef(record: top.record, offset: top.offset >= 0 ? top.offset : nil)
            let (oldRef, kind, flagged) = PlacedTrailer.read(top)
            if let oldRef {
                while let next = gone.top, next.record < oldRef.record {
                    emitter.removed(old: RecordRef(record: next.record, offset: next.offset >= 0 ? next.offset : nil))
                    gone.advance()
                    guard goOn() else { break rows }
                }
            }
            if let oldRef {
                let isKept = kept.isKept(position, place: oldRef.record)
                position += 1
                if kind != PlacedTrailer.same {
                    emitter.changed(old: oldRef, new: new, hasNewColumnValues: flagged)
                } else if isKept {
                    emitter.same(old: oldRef, new: new, hasNewColumnValues: flagged)
                } else {
                    emitter.moved(old: oldRef, new: new, hasNewColumnValues: flagged)
                }
            } else {
                emitter.added(new: new)
            }
            rows.advance()
            guard goOn() else { break }
        }
        while let next = gone.top, !control.isCancelled && emitter.isOpen {
            emitter.removed(old: RecordRef(record: next.record, offset: next.offset >= 0 ? next.offset : nil))
            gone.advance()
            _ = goOn()
        }
        emitter.finish()
        return control.isCancelled ? .cancelled : .done
    }

    /// Merges both sides' sorted runs by key: records with equal keys are matched in file
    /// order, each new record goes to `placed` with the old one it matches (or none), each
    /// old one left over to `removed`; repeated keys are noted.
    /// Returns how many old records were removed; the sides' runs are let go.
    private func match(_ oldSide: inout KeyedSide, _ newSide: inout KeyedSide, fetchers: [RowFetcher], emitter: RowEmitter,
                       control: ScanControl, meter: inout ProgressMeter,
                       placed: inout RecordOrder, removed: inout RecordOrder) throws(QueryError) -> Int {
        // 64 KiB reads per spilled run, not the sort's 1 MiB: a diff merges two sides' runs
        // at once and kept to the smaller buffer before the runs were shared.
        var merges = [oldSide, newSide].map { side in
            RunMerge(side.spilled.map { RunCursor(file: $0, trailerSize: KeyedTrailer.size, bufferSize: 1 << 16) } + [RunCursor(memory: side.last)])
        }
        // The merge holds the runs now: the sides' own references go, so they are freed with it.
        (oldSide.last, oldSide.spilled) = (SortRun(budget: 0), [])
        (newSide.last, newSide.spilled) = (SortRun(budget: 0), [])
        // Duplicates: the key and record of the entry taken last from each side.
        var previousKey: [[UInt8]] = [[], []]
        var previousRecord = [-1, -1]
        var previousOffset: [Int64] = [0, 0]
        func take(_ side: Int) -> RecordRef? {
            guard let top = merges[side].top else { return nil }
            let ref = RecordRef(record: top.record, offset: top.offset)
            if previousRecord[side] >= 0 && top.key == previousKey[side] {
                let first = (previousRecord[side], previousOffset[side])
                emitter.note { statistics in
                    statistics.duplicateKeys[side] += 1
                    if statistics.firstDuplicate[side] == nil {
                        let row = fetchers[side].row(first.0, offset: first.1)
                        let key = keyColumns.map { place -> String in
                            let column = (side == 0 ? columns.columns[place].old : columns.columns[place].new) ?? 0
                            return row?.string(column) ?? ""
                        }
                        statistics.firstDuplicate[side] = DuplicateKey(key: key, first: first.0, second: ref.record)
                    }
                }
            }
            previousKey[side].removeAll(keepingCapacity: true)
            previousKey[side].append(contentsOf: top.key)
            previousRecord[side] = top.record
            previousOffset[side] = top.offset
            return ref
        }
        func place(_ new: RecordRef, old: RecordRef?, kind: UInt8, flagged: Bool) throws(QueryError) {
            try PlacedTrailer.withBytes(old: old, kind: kind, flagged: flagged) { bytes throws(QueryError) in
                try placed.append(record: new.record, offset: new.offset ?? -1, trailer: bytes)
            }
        }
        var count: Int64 = 0
        var gone = 0
        while true {
            count += 1
            if count & 0xFFF == 0 {
                if control.isCancelled { return gone }
                meter.advance(to: count)
            }
            let o = merges[0].top, n = merges[1].top
            if o == nil && n == nil { break }
            var order = 0
            if let o, let n {
                order = o.prefix != n.prefix ? (o.prefix < n.prefix ? -1 : 1)
                    : o.key.withUnsafeBytes { a in n.key.withUnsafeBytes { b in SortRun.compare(a, b) } }
            } else {
                order = o == nil ? 1 : -1
            }
            if order < 0 {
                if let ref = take(0) {
                    try removed.append(record: ref.record, offset: ref.offset ?? -1, trailer: UnsafeRawBufferPointer(start: nil, count: 0))
                    gone += 1
                }
                merges[0].advance()
            } else if order > 0 {
                let flagged = n.map(KeyedTrailer.isFlagged) ?? false
                if let ref = take(1) { try place(ref, old: nil, kind: PlacedTrailer.added, flagged: flagged) }
                merges[1].advance()
            } else if let o, let n {
                let kind = KeyedTrailer.hash(o) == KeyedTrailer.hash(n) ? PlacedTrailer.same : PlacedTrailer.changed
                let flagged = KeyedTrailer.isFlagged(n)
                guard let oldRef = take(0), let newRef = take(1) else { break }
                try place(newRef, old: oldRef, kind: kind, flagged: flagged)
                count += 1
                merges[0].advance()
                merges[1].advance()
            }
        }
        return gone
    }
}

/// What each side's pass found, handed from its thread.
final class SideResults<T: Sendable>: Sendable {
    let found = Mutex<[Int: T]>([:])
}

/// The bytes a key is sorted and matched by.
enum DiffKey {
    /// Each key cell as the sort encodes it (numbers and dates by value, text in natural
    /// order, ignoring case: the order `--sort` shows), then its exact bytes (a zero byte
    /// written 0 1, the end 0 0), so equal keys are exactly equal values and keys that sort
    /// alike are told apart. A cell longer than `RecordHasher.keyLimit` adds its whole
    /// value's hash after the bytes kept.
    static func encode(_ hasher: RecordHasher, kinds: [ColumnKind], into key: inout [UInt8]) {
        key.removeAll(keepingCapacity: true)
        for index in hasher.keyCells.indices {
            let cell = hasher.keyCells[index]
            let start = key.count
            cell.withUnsafeBytes { KeyEncoding.append($0, kind: index < kinds.count ? kinds[index] : .text, to: &key) }
            if key[start] == KeyEncoding.textClass { key.append(0) }
            for byte in cell {
                key.append(byte)
                if byte == 0 { key.append(1) }
            }
            if hasher.keyLengths[index] > cell.count {
                key.append(0)
                key.append(2)
                withUnsafeBytes(of: hasher.keyHashes[index].bigEndian) { key.append(contentsOf: $0) }
            }
            key.append(0)
            key.append(0)
        }
    }
}
