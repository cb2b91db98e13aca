#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CellStore
import Diff
import Export
import Table
import Viewer

/// Runs `--diff` and writes what differs.
enum DiffOutput {
    /// Compares the old table (`specs[0]`) with the new one (`specs[1]`); returns the exit
    /// status: 0 the same, 1 different, 2 trouble (an input cannot be read, no such key column).
    static func run(_ options: DiffOptions, specs: [InputSpec], _ request: OutputRequest, summary: Bool) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        var stores: [CellStore] = []
        for spec in specs {
            do {
                stores.append(try CellStore.open(spec, readsAtRandom: !options.keys.isEmpty))
            } catch {
                fail(error.description, status: 2)
            }
        }
        // Both indexes whole: the columns (the widest record) and every record's place.
        for store in stores { store.waitForIndex { store.progress.failure != nil } }
        for store in stores {
            if let failure = store.progress.failure { fail("\(store.name): \(failure)", status: 2) }
            noteStart(in: store.dialect, of: store.name)
        }
        guard let old = DiffInput(store: stores[0], headerRows: request.headerRows),
              let new = DiffInput(store: stores[1], headerRows: request.headerRows) else {
            fail("an input could not be read", status: 2)
        }
        let context = options.context ?? 1
        let diff: TableDiff
        do {
            diff = try TableDiff(old: old, new: new, options: TableDiff.Options(key: options.keyColumns, context: summary ? 0 : context))
        } catch {
            fail(error.description, status: 2)
        }
        let columns = diff.columns
        let twoHeaderRows = request.format == .table && !columns.isSameSchema && !summary
        // daff's rows (or the summary's) leave through the export pipeline as they are made.
        let lines = DiffLines(diff, old: old, new: new, context: context, headerFirst: request.format == .jsonl, summary: summary)
        let outcome = Exporter.run(stream: lines, headerRows: twoHeaderRows ? 2 : 1, name: "the comparison",
                                   to: ExportSink(descriptor: 1)) { _, hand in
            OutputWriter(format: request.format, headerRows: twoHeaderRows ? 2 : 1, maximumWidth: request.maximumWidth, sink: hand)
        }
        diff.wait()
        if let why = lines.failure { fail(why, status: 2) }
        if case .failed(let why) = diff.phase { fail(why, status: 2) }
        // Output that could not be written is trouble, not a verdict on the tables.
        if let failure = outcome.failure, !outcome.readerLeft { fail(failure, status: 2) }
        let statistics = diff.statistics
        report(statistics, old: old, new: new, summary: summary)
        return statistics.hasDifferences || !columns.isSameSchema ? 1 : 0
    }

    /// What the user should know beside the rows: the counts (with --summary), repeated
    /// and empty keys, an alignment that is not minimal.
    static func report(_ statistics: DiffStatistics, old: DiffInput, new: DiffInput, summary: Bool) {
        let inputs = [old, new]
        if summary {
            warn("\(Count.records(statistics.changed)) changed, \(statistics.added) added, \(statistics.removed) removed, "
                 + (statistics.moved > 0 ? "\(statistics.moved) moved, " : "") + "\(statistics.same) the same")
        }
        for side in 0..<2 {
            let input = inputs[side]
            if statistics.duplicateKeys[side] > 0, let first = statistics.firstDuplicate[side] {
                let count = statistics.duplicateKeys[side]
                warn("\(input.name): \(Count.records(count)) repeat\(count == 1 ? "s" : "") a key of an earlier one "
                     + "(first: \(first.key.joined(separator: ", ")) in rows \(first.first - input.headerRows + 1) and "
                     + "\(first.second - input.headerRows + 1)); matched in order")
            }
            if statistics.emptyKeys[side] > 0, let first = statistics.firstEmptyKey[side] {
                warn("\(input.name): \(Count.records(statistics.emptyKeys[side])) with an empty key (first: row \(first - input.headerRows + 1))")
            }
        }
        if let (o, n) = statistics.approximateFrom {
            warn("the alignment by position may not be minimal from row \(o - old.headerRows + 1) of \(old.name) and row "
                 + "\(n - new.headerRows + 1) of \(new.name) on (many differences close together); --key matches by key")
        }
    }

    static func warn(_ message: String) { say(message) }
}

private enum Count {
    static func records(_ count: Int) -> String { count == 1 ? "1 record" : "\(count) records" }
}
