import CellStore
import Scan
import Synchronization
import Table

/// The pass behind `SortedRecords`: read keys (following the index), sort runs, merge.
struct SortJob: Sendable {
    let input: PassInput
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

    /// The workers between rounds. Each thread of a round takes its worker out and puts
    /// it back when done, so a worker is only ever touched by one thread (moved, never
    /// copied: its arrays stay where they are).
    final class Workers: Sendable {
        let slots: Mutex<[Worker?]>
        init(_ workers: [Worker]) { slots = Mutex(workers) }

        func take(_ index: Int) -> Worker? {
            slots.withLock { slots in
                defer { slots[index] = nil }
                return slots[index]
            }
        }

        func put(_ worker: Worker, _ index: Int) { slots.withLock { $0[index] = worker } }

        var all: [Worker] { slots.withLock { $0.compactMap { $0 } } }
    }

    func run(control: ScanControl) -> Bool {
        let workers = Workers((0..<self.workers).map { _ in Worker(builder: builder, budget: budget) })
        let count = self.workers
        let failure: SortedRecords.Phase?
        switch input {
        case .readers(let readers): failure = readKeys(readers, into: workers, count: count, control: control)
        case .rows(let rows): failure = readKeys(rows, into: workers, control: control)
        }
        if let failure { return finish(failure) }
        if control.isCancelled { return finish(.cancelled) }
        // Merge every run once.
        core.phase.withLock { $0 = .merging }
        core.changes.notify()
        wake()
        runConcurrently(count) { index in
            guard var worker = workers.take(index) else { return }
            worker.run.sort()
            workers.put(worker, index)
        }
        var cursors: [RunCursor] = []
        for worker in workers.all {
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

    /// Reads the keys of every record, round after round as the index grows, on `count`
    /// threads; says how the pass ended when it ended early.
    private func readKeys(_ readers: RecordReaders, into workers: Workers, count: Int,
                          control: ScanControl) -> SortedRecords.Phase? {
        var checkpoint = 0
        while true {
            if control.isCancelled { return .cancelled }
            let version = readers.changes.version
            guard let reader = readers.current() else {
                control.wait(for: readers.changes, past: version)
                continue
            }
            if reader.isFinal, let failure = readers.progress.failure, reader.checkpoints.isEmpty {
                return .failed(failure)
            }
            core.total.store(reader.end - (reader.checkpoints.first?.offset ?? 0), ordering: .relaxed)
            guard let (stretch, next) = reader.stretch(fromCheckpoint: checkpoint) else {
                if reader.isFinal { return nil }
                control.wait(for: readers.changes, past: version)
                continue
            }
            let parts = reader.split(stretch, into: count)
            runConcurrently(parts.count) { index in
                guard var worker = workers.take(index) else { return }
                extract(parts[index], reader: reader, into: &worker, control: control)
                workers.put(worker, index)
            }
            checkpoint = next
            if let failure = workers.all.compactMap(\.failure).first { return .failed(failure.description) }
            if stretch.endsInput { return nil }
        }
    }

    /// Reads the keys of every data row of `rows`, cell by cell, on this thread (rows in
    /// memory are few next to a file); says how the pass ended when it ended early.
    private func readKeys(_ rows: RowSnapshot, into workers: Workers, control: ScanControl) -> SortedRecords.Phase? {
        guard var worker = workers.take(0) else { return .cancelled }
        defer { workers.put(worker, 0) }
        core.total.store(Int64(rows.count), ordering: .relaxed)
        var run = SortRun(budget: 0)
        swap(&run, &worker.run)
        var builder = worker.builder
        var spilled: [SpillFile] = []
        var failure: QueryError?
        let columns = builder.columns
        rows.forEachRow(in: headerRows..<rows.count) { record, row in
            if record % 4096 == 0 {
                if control.isCancelled { return false }
                core.done.store(Int64(record), ordering: .relaxed)
            }
            let cells = columns.map { Array(row.field($0).prefix(KeyExtractor.cellLimit)) }
            builder.withKey(cells: cells) { key in
                failure = Self.append(key, record: record, offset: -1, to: &run, spilling: &spilled, core: core)
            }
            return failure == nil
        }
        swap(&run, &worker.run)
        worker.builder = builder
        worker.spilled += spilled
        if let failure { return .failed(failure.description) }
        return control.isCancelled ? .cancelled : nil
    }

    /// Appends a key to `run`, first sorting and spilling the run when it is full.
    private static func append(_ key: UnsafeRawBufferPointer, record: Int, offset: Int64, to run: inout SortRun,
                               spilling spilled: inout [SpillFile], core: SortedRecords.Core) -> QueryError? {
        if run.isFull(adding: key.count) {
            run.sort()
            do throws(QueryError) {
                spilled.append(try run.spill())
                core.runs.add(1, ordering: .relaxed)
            } catch {
                return error
            }
            run.removeAll()
        }
        run.append(key: key, record: record, offset: offset)
        return nil
    }

    private func finish(_ phase: SortedRecords.Phase) -> Bool {
        core.phase.withLock { $0 = phase }
        core.changes.notify()
        wake()
        return phase == .done
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
        func ended(_ record: Int, _ start: Int64, _ cells: [[UInt8]]) {
            guard record >= headerRows, failure == nil else { return }
            builder.withKey(cells: cells) { key in
                failure = Self.append(key, record: record, offset: start, to: &run, spilling: &spilled, core: core)
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
