import CellStore
import Scan
import Synchronization
import Table

/// The pass behind `FilteredRecords`.
struct FilterJob: Sendable {
    let input: PassInput
    let headerRows: Int
    let filters: [RecordFilter]
    let patterns: [CompiledPattern]
    let base: (any RecordSequence)?
    /// Whether a plain file's raw bytes may decide alone that nothing is kept.
    let decidesFromRawBytes: Bool
    let core: FilteredRecords.Core
    let wake: @Sendable () -> Void
    /// Records searched in one step (the first matches show after the first step).
    static let step = 1 << 16
    /// Threads that search raw bytes for a literal while the loader waits (the cores).
    static let rawWorkers = max(1, min(2, BackgroundThread.processorCount))

    /// For each filter, the only columns whose cells count (nil: all).
    private var shownColumns: [Set<Int>?] {
        filters.map { filter in filter.column == nil ? filter.columns.map(Set.init) : nil }
    }

    /// What can be read now: the records known, whether they are all, a search over them.
    private struct Round {
        var known = 0
        var isFinal: Bool
        /// What progress counts (bytes, or records) in all, and before a record.
        var total: Int64 = 0
        var doneBefore: (Int) -> Int64 = { _ in 0 }
        /// Nil while nothing can be read yet (the input's dialect is not known).
        var search: ((CompiledPattern, Int?) -> CellSearch)?
        /// The first record of the last checkpoint at or before a byte offset (an input's).
        var recordAt: ((Int64) -> Int)?
        /// Which of some records hold a value in a range in a column (a typed filter).
        var ranged: ((ValueRange, Int, Range<Int>, ScanControl) -> [Bool])?
    }

    private func round() -> Round {
        switch input {
        case .rows(let rows):
            return Round(known: rows.count, isFinal: true, total: Int64(rows.count), doneBefore: { Int64($0) },
                         search: { CellSearch(rows: rows, pattern: $0, column: $1) },
                         ranged: { range, column, records, _ in
                             rows.rows(in: records).map { row in row.field(column).withUnsafeBytes { range.contains($0) } }
                         })
        case .readers(let readers):
            let progress = readers.progress
            guard let scanInput = ScanInput(readers: readers) else { return Round(isFinal: progress.isComplete) }
            return Round(known: progress.isComplete ? progress.rowCount : scanInput.indexedRecords, isFinal: progress.isComplete,
                         total: scanInput.byteCount, doneBefore: { Self.bytesBefore(record: $0, readers: readers) },
                         search: { CellSearch(input: scanInput, pattern: $0, column: $1) },
                         recordAt: { offset in
                             let checkpoints = scanInput.reader.checkpoints
                             return checkpoints.index(atOrBefore: .offset(offset)).map { checkpoints[$0].row } ?? 0
                         },
                         ranged: { range, column, records, control in
                             Self.rangeMatches(scanInput.reader, range: range, column: column, records: records, control: control)
                         })
        }
    }

    func run(control: ScanControl) -> Bool {
        // Records that end before this offset hold no match (nil: any may).
        var noneBefore: Int64?
        if decidesFromRawBytes {
            switch rawFinding(control: control) {
            case .absent:
                core.decidedFromRawBytes.store(true, ordering: .relaxed)
                return finish(cancelled: control.isCancelled)
            case .candidate(let offset): noneBefore = offset
            case .cancelled, nil: break
            }
        }
        // Over a base, the record bits are found first, then laid over its rows.
        var records = RankedBitmap()
        var covered = 0   // records looked at so far
        /// The records up to `end` are looked at: their rows shown (over no base), the bytes counted.
        func publish(to end: Int, doneBefore: (Int) -> Int64) {
            if base == nil {
                core.rows.withLock { $0 = records }
                core.changes.notify()
                wake()
            }
            core.done.store(doneBefore(end), ordering: .relaxed)
            covered = end
        }
        let shown = shownColumns
        while true {
            if control.isCancelled { return finish(cancelled: true) }
            let version = changes?.version ?? 0
            let round = round()
            guard let search = round.search, covered < round.known else {
                if round.isFinal { break }
                if round.search != nil { core.state.withLock { $0.following = true } }
                if let changes { control.wait(for: changes, past: version) }
                continue
            }
            core.total.store(round.total, ordering: .relaxed)
            if let noneBefore, let first = round.recordAt?(noneBefore), first > covered {
                // Passed over unsearched: no raw byte before the first candidate matches.
                let end = min(first, round.known)
                records.extend(to: end, members: [])
                publish(to: end, doneBefore: round.doneBefore)
                continue
            }
            let end = min(round.known, covered + Self.step)
            var keep = [Bool](repeating: true, count: end - covered)
            for (index, pattern) in patterns.enumerated() {
                var matched = [Bool](repeating: false, count: end - covered)
                let allowed = shown[index]
                if let range = filters[index].range, let column = filters[index].column, let ranged = round.ranged {
                    matched = ranged(range, column, covered..<end, control)
                } else {
                    search(pattern, filters[index].column).forEachMatch(in: covered..<end, control: control) { record, columns in
                        if let allowed, !columns.contains(where: allowed.contains) { return true }
                        matched[record - covered] = true
                        return true
                    }
                }
                let inverted = filters[index].inverted
                for position in keep.indices where keep[position] { keep[position] = matched[position] != inverted }
            }
            if control.isCancelled { return finish(cancelled: true) }
            let members = keep.indices.compactMap { keep[$0] && covered + $0 >= headerRows ? covered + $0 : nil }
            records.extend(to: end, members: members)
            publish(to: end, doneBefore: round.doneBefore)
        }
        if let base { layOver(base, records: records, control: control) }
        return finish(cancelled: control.isCancelled)
    }

    /// What the raw bytes after the header say of the filters that keep matching records,
    /// each a literal (`RawAbsence`): `absent` when one is found nowhere (then no record is
    /// kept, whatever the others say, and no record boundary is needed), else where the
    /// first candidate of the last to have one starts. Only over a plain file, whose bytes
    /// are all there from the start; nil when no filter is such a literal.
    private func rawFinding(control: ScanControl) -> RawAbsence.Finding? {
        guard case .readers(let readers) = input, readers.isPlainFile, let reader = readers.current(),
              let first = reader.checkpoints.first else { return nil }
        let quote: UInt8? = reader.dialect.isQuoting ? reader.dialect.quote : nil
        let searches = filters.indices.compactMap { index in
            filters[index].inverted || filters[index].range != nil ? nil
                : RawAbsence(pattern: patterns[index].text, ignoresCase: patterns[index].ignoresCase, quote: quote)
        }
        guard !searches.isEmpty else { return nil }
        let start = Self.dataStart(reader, from: first.offset, headerRows: headerRows)
        // The index is not needed unless a candidate is found: the loader waits meanwhile.
        return readers.holdingLoader {
            var latest: Int64 = 0
            for search in searches {
                let finding = search.search(reader.source, from: start, to: reader.end, workers: Self.rawWorkers,
                                            isCancelled: { control.isCancelled })
                guard case .candidate(let offset) = finding else { return finding }
                latest = max(latest, offset)
            }
            return .candidate(at: latest)
        }
    }

    /// Where the records after `headerRows` start, as far as the first 64 KiB show (else
    /// `from`, before them: a search from there finds more, never less).
    static func dataStart(_ reader: RecordReader, from: Int64, headerRows: Int) -> Int64 {
        guard headerRows > 0 else { return from }
        let wanted = Int(min(Int64(1 << 16), reader.end - from))
        guard wanted > 0 else { return from }
        var bytes = [UInt8](repeating: 0, count: wanted)
        let count = bytes.withUnsafeMutableBytes { reader.source.read(at: from, into: $0) }
        guard count > 0 else { return from }
        var scanner = RecordScanner(dialect: reader.dialect)
        var found: Int?
        bytes.withUnsafeBytes { buffer in
            scanner.scan(UnsafeRawBufferPointer(rebasing: buffer[..<count]), at: from) { end, _, records, _ in
                // After a CR, a LF that follows still belongs to the header: searched too.
                if found == nil && records >= headerRows { found = end }
            }
        }
        return from + Int64(found ?? 0)
    }

    /// For each of `records` (indexed, whole), whether its cell in `column` reads as a value
    /// in `range`: the column's cells read from the checkpoint before them with the field
    /// kernel, as a sort reads its keys.
    static func rangeMatches(_ reader: RecordReader, range: ValueRange, column: Int, records: Range<Int>,
                             control: ScanControl) -> [Bool] {
        var matched = [Bool](repeating: false, count: records.count)
        let checkpoints = reader.checkpoints
        guard !checkpoints.isEmpty, !records.isEmpty else { return matched }
        let start = checkpoints[checkpoints.index(atOrBefore: .record(records.lowerBound)) ?? 0]
        var extractor = KeyExtractor(dialect: reader.dialect, columns: [column], firstRecord: start.row, at: start.offset)
        var done = false
        func ended(_ record: Int, _ offset: Int64, _ cells: [[UInt8]]) {
            guard record < records.upperBound else {
                done = true
                return
            }
            if record >= records.lowerBound { matched[record - records.lowerBound] = cells[0].withUnsafeBytes { range.contains($0) } }
        }
        let stretch = Stretch(start: start.offset, end: reader.end, firstRecord: start.row, endsInput: reader.isFinal)
        _ = reader.read(stretch, isCancelled: { control.isCancelled || done }) { bytes, offset in
            extractor.scan(bytes, at: offset, ended: ended)
        }
        if !done && stretch.endsInput && !control.isCancelled { extractor.finish(ended: ended) }
        return matched
    }

    /// What to wait on for more records: the loader's progress (rows are all there).
    private var changes: ChangeSignal? {
        if case .readers(let readers) = input { return readers.changes }
        return nil
    }

    private static func bytesBefore(record: Int, readers: RecordReaders) -> Int64 {
        guard let reader = readers.current() else { return 0 }
        let checkpoints = reader.checkpoints
        guard let first = checkpoints.first else { return 0 }
        return checkpoints[checkpoints.index(atOrBefore: .record(record)) ?? 0].offset - first.offset
    }

    /// Lays the record bits over the rows of `base`, in its order, as its rows come.
    private func layOver(_ base: any RecordSequence, records: RankedBitmap, control: ScanControl) {
        var rows = RankedBitmap()
        while !control.isCancelled {
            let version = base.changes.version
            let complete = base.isComplete
            let available = base.count
            while rows.length < available && !control.isCancelled {
                let window = rows.length..<min(available, rows.length + Self.step)
                let refs = base.records(in: window)
                let members = refs.enumerated().compactMap { records.contains($1.record) ? window.lowerBound + $0 : nil }
                rows.extend(to: window.lowerBound + refs.count, members: members)
                core.rows.withLock { $0 = rows }
                core.changes.notify()
                wake()
                if refs.isEmpty { break }
            }
            if complete && rows.length >= available { return }
            control.wait(for: base.changes, past: version)
        }
    }

    private func finish(cancelled: Bool) -> Bool {
        core.state.withLock { $0.complete = true; $0.following = false }
        core.changes.notify()
        wake()
        return !cancelled
    }
}
