#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Scan
import Table

// MARK: A view's rows in its order: straight runs, and sorted windows gathered on both cores

extension Exporter {
    /// The rows of `plan.rows`, in its order, as they come.
    func writeSequence() {
        guard let rows = plan.rows else { return }
        var written = 0
        var batch = 2048
        // A sorted view's next window is gathered on both cores while this thread writes
        // the one before (two sets of slots, used in turn).
        var gathering: GatheringWindow?
        var turn = 0
        defer { gathering?.join.wait() }
        func writeGathering() {
            guard let previous = gathering else { return }
            gathering = nil
            let average = writeGathered(previous)
            batch = max(1024, min(1 << 20, Self.windowBytes * 7 / 8 / max(64, average)))
        }
        while !isStopped {
            let version = rows.changes.version
            let complete = rows.isComplete
            let available = min(rows.count, plan.rowLimit ?? Int.max)
            while written < available && !isStopped {
                // Small windows while the view's pass still holds its memory (a sort's
                // merge), full ones after.
                let size = rows.isComplete ? batch : min(batch, 4096)
                let refs = rows.records(in: written..<min(available, written + size))
                if refs.isEmpty { break }
                refresh()
                written += refs.count
                if Self.isStraight(refs) {
                    writeGathering()
                    let average = writeStraight(refs)
                    batch = max(1024, min(1 << 20, Self.windowBytes * 7 / 8 / max(64, average)))
                    continue
                }
                let next = startGathering(refs, into: gatherSets[turn % 2])
                turn += 1
                writeGathering()
                gathering = next
            }
            writeGathering()
            if (complete && written >= available) || written >= (plan.rowLimit ?? Int.max) { break }
            if !isStopped { wait(for: rows.changes, past: version) }
        }
    }

    /// True for records in the file's order with some offsets unknown (a filter): written
    /// straight through, no window.
    private static func isStraight(_ refs: [RecordRef]) -> Bool {
        zip(refs, refs.dropFirst()).allSatisfy { $0.record < $1.record } && refs.contains(where: { $0.offset == nil })
    }

    private func writeStraight(_ refs: [RecordRef]) -> Int {
        var total = 0
        SpanFinder(reader: reader, window: window).forEachSpan(ofRecords: refs.map(\.record)) { span in
            total += span.length
            write(span)
            return !isStopped
        }
        return total / max(1, refs.count)
    }

    /// A window of records whose bytes are being gathered on both cores.
    private struct GatheringWindow {
        let refs: [RecordRef]
        /// The spans found before the gathering (records with no offset).
        let spans: [RecordSpan?]
        let work: ParallelWork
        let halves: Int
        let join: BackgroundScan<Int>.Join
    }

    /// Two sets of windows and storages, used in turn by the windows of a sorted view.
    private var gatherSets: [ParallelWork] {
        if let made = gatherWork { return made }
        let made = [ParallelWork(count: 2, source: reader.source, readSize: window.readSize),
                    ParallelWork(count: 2, source: reader.source, readSize: window.readSize)]
        gatherWork = made
        return made
    }

    /// Finds each record's span in the input's order and starts gathering their bytes on
    /// both cores, each half of the input's order into its own storage through its own
    /// window; `writeGathered` writes them in view order.
    private func startGathering(_ refs: [RecordRef], into work: ParallelWork) -> GatheringWindow {
        var spans = [RecordSpan?](repeating: nil, count: refs.count)
        let order = refs.indices.sorted { (refs[$0].offset ?? -1, refs[$0].record) < (refs[$1].offset ?? -1, refs[$1].record) }
        let finder = SpanFinder(reader: reader, window: window)
        let withoutOffset = order.filter { refs[$0].offset == nil }
        if !withoutOffset.isEmpty {
            var byRecord: [Int: Int] = [:]
            for index in withoutOffset { byRecord[refs[index].record] = index }
            finder.forEachSpan(ofRecords: withoutOffset.map { refs[$0].record }.sorted()) { span in
                if let index = byRecord[span.record] { spans[index] = span }
                return true
            }
        }
        // Records far apart are read each with its neighbours closer than `gap`, in one
        // read: a window over a sorted 1 GiB file reads its records, not the file.
        let gap: Int64 = 4096
        let alone = Int64(max(512, min(4096, 2 * averageRecord)))
        var runEnds = [Int64](repeating: 0, count: order.count)
        var runEnd: Int64 = 0
        for position in order.indices.reversed() {
            guard let offset = refs[order[position]].offset else { continue }
            if runEnd == 0 || runEnd - offset > Int64(window.readSize) || position + 1 >= order.count
                || (refs[order[position + 1]].offset ?? offset) - offset > gap {
                runEnd = offset + alone
            }
            runEnds[position] = runEnd
        }
        let cut = order.count < 4096 ? order.count : order.count / 2
        let halves = [0..<cut, cut..<order.count].filter { !$0.isEmpty }
        let reader = self.reader!, control = self.control, wellQuoted = self.wellQuoted
        let found = spans, readAhead = Int(alone), ends = runEnds
        let join = BackgroundScan<Int>.start(halves.count, threadName: "csvfreeze export",
                                             yieldsToInteractiveThreads: plan.yieldsToInteractiveThreads) { slot in
            let output = work.outputs[slot], window = work.windows[slot]
            output.bytes.removeAll(keepingCapacity: true)
            output.placed.removeAll(keepingCapacity: true)
            // Pages are touched only as they fill: the room a half may need, never doubled.
            output.bytes.reserveCapacity(min(Self.windowBytes / 2 + Self.windowBytes / 8, halves[slot].count * 1024))
            window.readAhead = readAhead
            defer { window.readAhead = window.readSize }
            let finder = SpanFinder(reader: reader, window: window)
            for position in halves[slot] {
                if control.isCancelled { return }
                let index = order[position]
                var span = found[index]
                if let offset = refs[index].offset {
                    window.prefetch(offset..<min(reader.end, max(ends[position], offset + 1)))
                    span = finder.span(ofRecord: refs[index].record, at: offset, isWellQuoted: refs[index].record < wellQuoted)
                }
                guard let span else { continue }
                var place = -1
                if span.length <= Self.longRecord {
                    place = output.bytes.count
                    window.withBytes(span.start..<span.end) { output.bytes.append(contentsOf: $0) }
                }
                output.placed.append((index, place, span))
            }
        }
        return GatheringWindow(refs: refs, spans: spans, work: work, halves: halves.count, join: join)
    }

    /// Waits for a window's gathering and writes its records in view order; returns their
    /// average length.
    private func writeGathered(_ gathered: GatheringWindow) -> Int {
        gathered.join.wait()
        if control.isCancelled { return 1 }
        let refs = gathered.refs, work = gathered.work
        var spans = gathered.spans
        var places = [(slot: Int, place: Int)](repeating: (0, -1), count: refs.count)
        for slot in 0..<gathered.halves {
            for (index, place, span) in work.outputs[slot].placed {
                spans[index] = span
                places[index] = (slot, place)
            }
        }
        var total = 0
        work.outputs[0].bytes.withUnsafeBytes { first in
            work.outputs[1].bytes.withUnsafeBytes { second in
                for index in refs.indices where !isStopped {
                    guard let span = spans[index] else {
                        outcome.failure = "\(plan.name): \(RecordPlace.name(refs[index].record, headerRows: plan.headerRows)) could not be read again"
                        return
                    }
                    total += span.length
                    let (slot, place) = places[index]
                    if place >= 0 {
                        let bytes = slot == 0 ? first : second
                        write(span, bytes: UnsafeRawBufferPointer(rebasing: bytes[place..<(place + span.length)]))
                    } else {
                        write(span)
                    }
                }
            }
        }
        averageRecord = total / max(1, refs.count)
        return averageRecord
    }
}

/// What the two cores gathering a sorted view's window hand back: each slot is written by
/// one thread only, and read by the exporter's thread after both have joined.
final class ParallelWork: @unchecked Sendable {
    // @unchecked: slot `i` of `outputs` and `windows` is touched by worker `i` alone while
    // the workers run (`writeGathered` joins them before the exporter reads a slot).
    final class Output {
        var bytes: [UInt8] = []
        /// A sorted window's records gathered in `bytes`: each one's place in the
        /// window, where its bytes start (-1: a long record, written from the input), and
        /// its span.
        var placed: [(index: Int, place: Int, span: RecordSpan)] = []
    }
    let outputs: [Output]
    /// Each slot's window on the input.
    let windows: [ByteWindow]

    init(count: Int, source: ByteSource, readSize: Int = 1 << 20) {
        outputs = (0..<count).map { _ in Output() }
        windows = (0..<count).map { _ in ByteWindow(source: source, readSize: readSize) }
    }
}
