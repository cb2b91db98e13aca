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
    final class Worker: @unchecked Sendable {
        // @unchecked: a worker is used by one thread at a time; the pass hands it from
        // round to round only after joining the threads of the round before.
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
        let workers = (0..<self.workers).map { _ in Worker(builder: builder, budget: budget) }
        var checkpoint = 0
        // Read the keys, round after round as the index grows.
        while true {
            if control.isCancelled { return finish(.cancelled) }
            guard let reader = readers.current() else {
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            if reader.isFinal, let failure = readers.progress.failure, reader.checkpoints.isEmpty {
                return finish(.failed(failure))
            }
            core.total.store(reader.end - (reader.checkpoints.first?.offset ?? 0), ordering: .relaxed)
            guard let (stretch, next) = reader.stretch(fromCheckpoint: checkpoint) else {
                if reader.isFinal { break }
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            let parts = reader.split(stretch, into: workers.count)
            runConcurrently(parts.count) { index in
                extract(parts[index], reader: reader, into: workers[index], control: control)
            }
            checkpoint = next
            if let failure = workers.compactMap(\.failure).first { return finish(.failed(failure.description)) }
            if stretch.endsInput { break }
        }
        if control.isCancelled { return finish(.cancelled) }
        // Merge every run once.
        core.phase.withLock { $0 = .merging }
        wake()
        runConcurrently(workers.count) { index in workers[index].run.sort() }
        var cursors: [RunCursor] = []
        for worker in workers {
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
        wake()
        return phase == .done
    }

    /// Reads the keys of `stretch` into `worker`'s runs, spilling a run when it is full.
    private func extract(_ stretch: Stretch, reader: RecordReader, into worker: Worker, control: ScanControl) {
        var extractor = KeyExtractor(dialect: reader.dialect, columns: builder.columns, firstRecord: stretch.firstRecord,
                                     at: stretch.start)
        let headerRows = self.headerRows
        let core = self.core   // not `self`: the closures below must not copy the job per record
        // The run and the key builder are worked on as locals (no access checks on the
        // class's properties per record) and handed back at the end.
        var run = SortRun(budget: 0)
        swap(&run, &worker.run)
        var builder = worker.builder
        var failure: QueryError?
        var spilled: [SpillFile] = []
        func ended(_ record: Int, _ start: Int64, _ cells: [[UInt8]]) {
            guard record >= headerRows, failure == nil else { return }
            builder.withKey(cells: cells) { key in
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
