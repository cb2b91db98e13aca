import CellStore
import Foundation
import Scan
import Synchronization
import Table

/// Pictures every column (`ColumnPicture`) in the background, for the band under the
/// header: a pass beside the index that reads each record once, following the index as it
/// grows, so a file shows its pictures while it loads and a pipe fills them in as it comes.
///
/// Each round reads the records indexed since the last (up to the last checkpoint, so no
/// record is read before it is whole), on both cores when there is enough of them, and
/// publishes the pictures so far; the last round, once the index is complete, reads to
/// the end. Over a filtered view (`records`) it waits for the view's records, then
/// pictures only those. Memory is a fixed amount per column (at most `columnLimit` columns).
package final class PictureScan {
    /// The pictures so far, and how far the pass has come.
    package struct Snapshot: Sendable {
        /// One per input column, from the first (columns past `columnLimit` have none).
        package var pictures: [ColumnPicture] = []
        /// Data records pictured.
        package var records = 0
        /// True once every record of the view is pictured.
        package var isComplete = false
        /// Bytes read, and to read as known now (for a percentage).
        package var done: Int64 = 0
        package var total: Int64 = 0
    }

    /// The pictures the pass last published, for the UI thread.
    final class Latest: Sendable {
        let value = Mutex<Snapshot?>(nil)
    }

    private let scan: BackgroundScan<Snapshot>
    private let latest = Latest()

    /// Columns pictured at most: a band of a million columns would otherwise hold
    /// gigabytes (each column keeps up to about 50 KiB).
    package static let columnLimit = 512

    /// Starts picturing the data records (from `headerRows` on) of the input `readers`
    /// read, following its index; only those of `records` when given (a filter's view).
    package convenience init(readers: RecordReaders, headerRows: Int, records: (any RecordSequence)? = nil,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(source: .readers(readers), headerRows: headerRows, records: records, wake: wake)
    }

    /// Starts picturing the data rows of `rows` (a sheet's).
    package convenience init(rows: RowSnapshot, headerRows: Int, records: (any RecordSequence)? = nil,
                            wake: @escaping @Sendable () -> Void = {}) {
        self.init(source: .rows(rows), headerRows: headerRows, records: records, wake: wake)
    }

    private enum Source: Sendable {
        case readers(RecordReaders)
        case rows(RowSnapshot)
    }

    private init(source: Source, headerRows: Int, records: (any RecordSequence)?, wake: @escaping @Sendable () -> Void) {
        let latest = self.latest
        scan = BackgroundScan(name: "csvfreeze band", total: 0, wake: wake) { control in
            var filter = RecordFilter(first: headerRows)
            if let records {
                guard let chosen = RecordFilter.of(records, first: headerRows, control: control) else { return nil }
                filter = chosen
            }
            var round = Round(filter: filter, latest: latest, wake: wake)
            switch source {
            case .rows(let rows):
                return round.run(rows: rows, control: control)
            case .readers(let readers):
                return round.run(readers: readers, control: control)
            }
        }
    }

    /// The pictures published so far (nil before the first round ends); the final ones once
    /// finished.
    package var snapshot: Snapshot? {
        if case .finished(let final) = scan.status { return final }
        return latest.value.withLock { $0 }
    }

    /// True once the pass has ended, finished or cancelled.
    package var hasEnded: Bool {
        if case .running = scan.status { return false }
        return true
    }

    package func cancel() { scan.cancel() }
    package func wait() { scan.wait() }
}

/// The state of a picture pass between its rounds.
private struct Round {
    var snapshot = PictureScan.Snapshot()
    /// The next record to read.
    var next: Int
    let filter: RecordFilter
    let latest: PictureScan.Latest
    let wake: @Sendable () -> Void

    init(filter: RecordFilter, latest: PictureScan.Latest, wake: @escaping @Sendable () -> Void) {
        self.filter = filter
        self.latest = latest
        self.wake = wake
        next = filter.first
    }

    /// Bytes of records read in one round at most, so the pictures fill in as they grow.
    static let roundBytes: Int64 = 32 << 20

    mutating func run(readers: RecordReaders, control: ScanControl) -> PictureScan.Snapshot? {
        while !control.isCancelled {
            let version = readers.changes.version
            let progress = readers.progress
            guard let input = ScanInput(readers: readers) else {
                if progress.isComplete { return finish() }
                guard control.wait(for: readers.changes, past: version) else { return nil }
                continue
            }
            let isFinal = progress.isComplete && input.reader.isFinal
            // While loading, the records the index has counted are whole (a slow pipe's
            // first rows show before a checkpoint is reached).
            let end = isFinal ? Int.max : progress.rowCount
            if next < end {
                let stop = min(end, Self.record(after: Self.roundBytes, from: next, in: input))
                var pass = Pass(input: input, columns: 0..<min(max(1, progress.widestRow), PictureScan.columnLimit),
                                filter: filter)
                pass.filter = RecordFilter(first: next, chosen: filter.chosen)
                pass.filter.end = stop
                pass.byColumn = true   // each column's picture is its own
                snapshot.total = input.byteCount
                guard read(pass, control: control) else { return nil }
                next = stop
                if stop == Int.max { return finish() }
                snapshot.done = Self.bytes(before: stop, in: input)
                publish()
                if next < end { continue }
            }
            if isFinal { return finish() }
            guard control.wait(for: readers.changes, past: version) else { return nil }
        }
        return nil
    }

    /// The record at the first checkpoint `bytes` or more past record `record`'s, or
    /// Int.max when there is none.
    static func record(after bytes: Int64, from record: Int, in input: ScanInput) -> Int {
        let checkpoints = input.reader.checkpoints
        let start = Self.bytes(before: record, in: input) + (checkpoints.first?.offset ?? 0)
        // The first checkpoint at or past start + bytes: the one after the last before it.
        let low = (checkpoints.index(atOrBefore: .offset(start + bytes - 1)) ?? -1) + 1
        return low < checkpoints.count ? max(record + 1, checkpoints[low].row) : Int.max
    }

    mutating func run(rows: RowSnapshot, control: ScanControl) -> PictureScan.Snapshot? {
        var pass = Pass(rows: rows, columns: 0..<min(max(1, rows.columnCount), PictureScan.columnLimit), filter: filter)
        pass.filter = filter
        pass.byColumn = true
        snapshot.total = Int64(max(0, rows.count - filter.first))
        guard read(pass, control: control) else { return nil }
        return finish()
    }

    /// Reads one round's records into the pictures (the earlier share continues them, a
    /// later one starts afresh and is folded in).
    private mutating func read(_ pass: Pass, control: ScanControl) -> Bool {
        let columns = pass.columns.count
        if snapshot.pictures.count < columns {
            // A wider record came: the records before it lacked these columns (empty).
            var added = ColumnPicture()
            added.addEmpty(snapshot.records)
            snapshot.pictures += Array(repeating: added, count: columns - snapshot.pictures.count)
        }
        let start = snapshot.pictures
        snapshot.pictures = []
        guard let sinks = pass.run(control: control, make: { share in
            PictureSink(pictures: share == 0 ? start : Array(repeating: ColumnPicture(), count: columns), first: 0)
        }) else { return false }
        var pictures = sinks[0].pictures
        for sink in sinks.dropFirst() {
            for index in pictures.indices { pictures[index].merge(sink.pictures[index]) }
        }
        snapshot.pictures = pictures
        snapshot.records = pictures.first.map { $0.filled + $0.empty } ?? snapshot.records
        return true
    }

    /// Bytes from the first checkpoint to the last one at or before record `record`.
    static func bytes(before record: Int, in input: ScanInput) -> Int64 {
        let checkpoints = input.reader.checkpoints
        guard let first = checkpoints.first else { return 0 }
        return checkpoints[checkpoints.index(atOrBefore: .record(record)) ?? 0].offset - first.offset
    }

    /// Publishes the pictures so far, once a round (32 MiB): the event loop decides when to
    /// look, on its own clock.
    private func publish() {
        let shown = snapshot
        latest.value.withLock { $0 = shown }
        wake()
    }

    private mutating func finish() -> PictureScan.Snapshot {
        snapshot.isComplete = true
        snapshot.done = snapshot.total
        let final = snapshot
        latest.value.withLock { $0 = final }
        return final
    }
}

