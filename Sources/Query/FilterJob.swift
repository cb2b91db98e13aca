import CellStore
import Foundation
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
    let core: FilteredRecords.Core
    let wake: @Sendable () -> Void
    /// Records searched in one step (the first matches show after the first step).
    static let step = 1 << 16

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
    }

    private func round() -> Round {
        switch input {
        case .rows(let rows):
            return Round(known: rows.count, isFinal: true, total: Int64(rows.count), doneBefore: { Int64($0) },
                         search: { CellSearch(rows: rows, pattern: $0, column: $1) })
        case .readers(let readers):
            let progress = readers.progress
            guard let scanInput = ScanInput(readers: readers) else { return Round(isFinal: progress.isComplete) }
            return Round(known: progress.isComplete ? progress.rowCount : scanInput.indexedRecords, isFinal: progress.isComplete,
                         total: scanInput.byteCount, doneBefore: { Self.bytesBefore(record: $0, readers: readers) },
                         search: { CellSearch(input: scanInput, pattern: $0, column: $1) })
        }
    }

    func run(control: ScanControl) -> Bool {
        // Over a base, the record bits are found first, then laid over its rows.
        var records = RankedBitmap()
        var covered = 0   // records looked at so far
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
            let end = min(round.known, covered + Self.step)
            var keep = [Bool](repeating: true, count: end - covered)
            for (index, pattern) in patterns.enumerated() {
                var matched = [Bool](repeating: false, count: end - covered)
                let allowed = shown[index]
                search(pattern, filters[index].column).forEachMatch(in: covered..<end, control: control) { record, columns in
                    if let allowed, !columns.contains(where: allowed.contains) { return true }
                    matched[record - covered] = true
                    return true
                }
                let inverted = filters[index].inverted
                for position in keep.indices where keep[position] { keep[position] = matched[position] != inverted }
            }
            if control.isCancelled { return finish(cancelled: true) }
            let members = keep.indices.compactMap { keep[$0] && covered + $0 >= headerRows ? covered + $0 : nil }
            records.extend(to: end, members: members)
            if base == nil {
                core.rows.withLock { $0 = records }
                core.changes.notify()
                wake()
            }
            core.done.store(round.doneBefore(end), ordering: .relaxed)
            covered = end
        }
        if let base { layOver(base, records: records, control: control) }
        return finish(cancelled: control.isCancelled)
    }

    /// What to wait on for more records: the loader's progress (rows are all there).
    private var changes: ChangeSignal? {
        if case .readers(let readers) = input { return readers.changes }
        return nil
    }

    private static func bytesBefore(record: Int, readers: RecordReaders) -> Int64 {
        guard let reader = readers.current() else { return 0 }
        let start = reader.checkpoints.first?.offset ?? 0
        var low = 0, high = reader.checkpoints.count - 1
        guard high >= 0 else { return 0 }
        while low < high {
            let middle = (low + high + 1) / 2
            if reader.checkpoints[middle].row <= record { low = middle } else { high = middle - 1 }
        }
        return reader.checkpoints[low].offset - start
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
