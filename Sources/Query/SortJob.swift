import CellStore
import Foundation
import Scan
import Synchronization

/// The pass behind `SortedRecords`: read keys (following the index), sort runs, merge.
struct SortJob: Sendable {
    let readers: RecordReaders
    let headerRows: Int
    let builder: KeyBuilder
    /// Bytes of keys one worker holds before it spills a run.
    let budget: Int
    let workers: Int
    let core: SortedRecords.Core
    let wake: @Sendable () -> Void

    /// One worker's runs: the one being filled and those spilled.
    struct Worker: Sendable {
        var run: SortRun
        var spilled: [SpillFile] = []
        var builder: KeyBuilder
        var failure: QueryError?
        init(builder: KeyBuilder, budget: Int) {
            self.builder = builder
            run = SortRun(budget: budget)
        }
    }

    func run(control: ScanControl) -> Bool {
        // Each thread of a round takes its worker out and puts it back when done, so a
        // worker is only ever touched by one thread (moved, never copied: its arrays stay).
        let workers = Mutex<[Worker?]>((0..<self.workers).map { _ in Worker(builder: builder, budget: budget) })
        let count = self.workers
        var checkpoint = 0
        // Read the keys, round after round as the index grows.
        while true {
            if control.isCancelled { return finish(.cancelled) }
            let version = readers.changes.version
            guard let reader = readers.current() else {
                control.wait(for: readers.changes, past: version)
                continue
            }
            if reader.isFinal, let failure = readers.progress.failure, reader.checkpoints.isEmpty {
                return finish(.failed(failure))
            }
            core.total.store(reader.end - (reader.checkpoints.first?.offset ?? 0), ordering: .relaxed)
            guard let (stretch, next) = reader.stretch(fromCheckpoint: checkpoint) else {
                if reader.isFinal { break }
                control.wait(for: readers.changes, past: version)
                continue
            }
            let parts = reader.split(stretch, into: count)
            runConcurrently(parts.count) { index in
                guard var worker = workers.withLock({ Self.take(&$0[index]) }) else { return }
                extract(parts[index], reader: reader, into: &worker, control: control)
                workers.withLock { $0[index] = worker }
            }
            checkpoint = next
            if let failure = workers.withLock({ $0.compactMap { $0?.failure }.first }) { return finish(.failed(failure.description)) }
            if stretch.endsInput { break }
        }
        if control.isCancelled { return finish(.cancelled) }
        // Merge every run once.
        core.phase.withLock { $0 = .merging }
        core.changes.notify()
        wake()
        runConcurrently(count) { index in
            guard var worker = workers.withLock({ Self.take(&$0[index]) }) else { return }
            worker.run.sort()
            workers.withLock { $0[index] = worker }
        }
        var cursors: [RunCursor] = []
        for worker in workers.withLock({ $0 }).compactMap({ $0 }) {
            cursors += worker.spilled.map { RunCursor(file: $0) }
            cursors.append(RunCursor(memory: worker.run))
        }
        var merge = RunMerge(cursors)
        var batch: [Int64] = []
        var batchSize = 1024
        do throws(QueryError) {
            while let (record, offset) = merge.next() {
                batch.append(Int64(record))
                batch.append(offset)
                if batch.count >= batchSize * 2 {
                    if control.isCancelled { return finish(.cancelled) }
                    try core.permutation.append(batch)
                    batch.removeAll(keepingCapacity: true)
                    core.changes.notify()
                    // The first rows at once, then larger batches.
                    if batchSize < 1 << 15 { batchSize *= 2; wake() }
                }
            }
            try core.permutation.append(batch)
        } catch {
            return finish(.failed(error.description))
        }
        return finish(.done)
    }

    private func finish(_ phase: SortedRecords.Phase) -> Bool {
        core.phase.withLock { $0 = phase }
        core.changes.notify()
        wake()
        return phase == .done
    }

    /// The value in `slot`, leaving nil there.
    private static func take(_ slot: inout Worker?) -> Worker? {
        defer { slot = nil }
        return slot
    }

    /// Reads the keys of `stretch` into `worker`'s runs, spilling a run when it is full.
    private func extract(_ stretch: Stretch, reader: RecordReader, into worker: inout Worker, control: ScanControl) {
        var extractor = KeyExtractor(dialect: reader.dialect, columns: builder.columns, firstRecord: stretch.firstRecord,
                                     at: stretch.start)
        let headerRows = self.headerRows
        let core = self.core   // not `self`: the closures below must not copy the job per record
        // The run and the key builder are worked on as locals (the closures below capture
        // them, not the worker) and handed back at the end.
        var run = SortRun(budget: 0)
        swap(&run, &worker.run)
        var builder = worker.builder
        var failure: QueryError?
        var spilled: [SpillFile] = []
        func ended(_ record: Int, _ start: Int64, _ extractor: inout KeyExtractor) {
            guard record >= headerRows, failure == nil else { return }
            builder.withKey(cells: extractor.cells) { key in
                if run.isFull(adding: key.count) {
                    run.sort()
                    do throws(QueryError) {
                        spilled.append(try run.spill())
                        core.runs.add(1, ordering: .relaxed)
                    } catch {
                        failure = error
                    }
                    run.removeAll()
                }
                run.append(key: key, record: record, offset: start)
            }
        }
        _ = reader.read(stretch, isCancelled: { control.isCancelled }) { bytes, offset in
            extractor.scan(bytes, at: offset, ended: ended)
            core.done.add(Int64(bytes.count), ordering: .relaxed)
            control.advance(by: Int64(bytes.count))
        }
        if stretch.endsInput && !control.isCancelled { extractor.finish(ended: ended) }
        swap(&run, &worker.run)
        worker.builder = builder
        worker.spilled += spilled
        if let failure { worker.failure = failure }
    }
}
