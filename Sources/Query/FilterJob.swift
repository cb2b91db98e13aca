import CellStore
import Foundation
import Scan
import Synchronization
import Table

/// The pass behind `FilteredRecords`.
struct FilterJob: Sendable {
    let readers: RecordReaders
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

    func run(control: ScanControl) -> Bool {
        // Over a base, the record bits are found first, then laid over its rows.
        var records = RankedBitmap()
        var covered = 0   // records looked at so far
        let shown = shownColumns
        while true {
            if control.isCancelled { return finish(cancelled: true) }
            let version = readers.changes.version
            let progress = readers.progress
            guard let input = ScanInput(readers: readers) else {
                if progress.isComplete { break }
                control.wait(for: readers.changes, past: version)
                continue
            }
            let known = progress.isComplete ? progress.rowCount : input.indexedRecords
            core.total.store(input.byteCount, ordering: .relaxed)
            if covered >= known {
                if progress.isComplete { break }
                core.state.withLock { $0.following = true }
                control.wait(for: readers.changes, past: version)
                continue
            }
            let end = min(known, covered + Self.step)
            var keep = [Bool](repeating: true, count: end - covered)
            for (index, pattern) in patterns.enumerated() {
                let search = CellSearch(input: input, pattern: pattern, column: filters[index].column)
                var matched = [Bool](repeating: false, count: end - covered)
                let allowed = shown[index]
                search.forEachMatch(in: covered..<end, control: control) { record, columns in
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
            core.done.store(bytesBefore(record: end, in: input), ordering: .relaxed)
            covered = end
        }
        if let base { layOver(base, records: records, control: control) }
        return finish(cancelled: control.isCancelled)
    }

    private func bytesBefore(record: Int, in input: ScanInput) -> Int64 {
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
