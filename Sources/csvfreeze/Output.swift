#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Dispatch
import Query
import Table
import Viewer

/// The non-interactive path: stream the input into a text format on stdout.
enum Output {
    /// Writes the whole input; returns the exit status.
    static func write(path: String?, delimiter: UInt8?, quote: UInt8?, encoding: TextEncoding? = nil, preamble: PreambleRule,
                      format: OutputFormat, headerRows: Int, maximumWidth: Int? = nil) -> Int32 {
        // A reader that goes away (`| head`) ends the output quietly, not with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        var writer: OutputWriter?
        do {
            let summary = try RecordStream.forEach(path: path, delimiter: delimiter, quote: quote, preamble: preamble,
                                                   encoding: encoding, started: { start in
                writer = OutputWriter(format: format, lineEnding: start.dialect.lineEnding, headerRows: headerRows,
                                      byteOrderMark: start.hasByteOrderMark, preamble: start.preamble, maximumWidth: maximumWidth,
                                      sink: writeToStandardOutput)
            }) { row in
                writer?.write(row) ?? false
            }
            if let failure = writer?.failure { fail("\(path ?? "stdin"): \(failure)", status: 1) }
            writer?.finish(endsWithTerminator: summary.endsWithTerminator)
            if let damage = summary.damage {
                // Everything before the damage is written; say where it stopped.
                fail("\(path ?? "stdin"): \(damage)", status: 1)
            }
            return 0
        } catch {
            fail(error.description, status: 1)
        }
    }

    static func writeToStandardOutput(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + done, bytes.count - done) }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += count
        }
        return true
    }
}

// MARK: Filter, sort, columns

extension Output {
    /// Writes the rows that `query` keeps, in its order, with its columns; returns the
    /// exit status. The sort and the filters are the viewer's engine (`Query`), run over a
    /// store of the input, so memory stays bounded whatever the input's size; rows are
    /// written as soon as they are known (a sort's first row when its merge starts).
    static func write(path: String?, delimiter: UInt8?, quote: UInt8?, encoding: TextEncoding? = nil, preamble: PreambleRule,
                      format: OutputFormat, headerRows: Int, query: QueryOptions, spoolLimit: SpoolLimit,
                      maximumWidth: Int? = nil) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let news = DispatchSemaphore(value: 0)
        let wake: @Sendable () -> Void = { news.signal() }
        let store: CellStore
        do {
            // Sorted rows are read one at a time from all over the input: a spool serves that
            // from the page cache, where gzip's access points would inflate for each row.
            store = try CellStore.open(path: path, delimiter: delimiter, quote: quote, preamble: preamble, encoding: encoding,
                                       spoolLimit: spoolLimit,
                                       readsAtRandom: !query.sorts.isEmpty, onChange: wake)
        } catch {
            fail(error.description, status: 1)
        }
        let name = path ?? "stdin"
        // The header, and enough rows to judge the sort's column kinds.
        let wanted = headerRows + (query.sorts.isEmpty ? 0 : 1000)
        while store.rowCount < max(1, wanted) && !store.isComplete { _ = news.wait(timeout: .now() + .milliseconds(20)) }
        if let failure = store.progress.failure, store.rowCount == 0 { fail("\(name): \(failure)", status: 1) }
        let names = ColumnNames(header: headerRows > 0 ? store.row(0) : nil)
        let resolved: QueryOptions.Resolved
        do {
            resolved = try query.resolve(names: names, columnCount: store.columnCount)
        } catch {
            fail(error.description, status: 2)
        }
        let sorted = resolved.keys.isEmpty ? nil
            : SortedRecords.start(store: store, headerRows: headerRows, keys: resolved.keys, wake: wake)
        let filtered: FilteredRecords?
        do {
            filtered = resolved.filters.isEmpty ? nil
                : try FilteredRecords.start(store: store, headerRows: headerRows, filters: resolved.filters, over: sorted, wake: wake)
        } catch {
            fail(error.description, status: 2)
        }
        let view = TableView(source: store, headerRows: headerRows)
        view.show(rows: filtered ?? sorted)
        if let columns = resolved.columns { view.columns.show(only: columns) }

        let start = inputStart(of: store)
        let writer = OutputWriter(format: format, lineEnding: store.dialect?.lineEnding ?? [0x0A], headerRows: headerRows,
                                  byteOrderMark: start.hasByteOrderMark, preamble: start.preamble, maximumWidth: maximumWidth,
                                  sink: writeToStandardOutput)
        func project(_ row: Row) -> Row {
            guard let columns = resolved.columns else { return row }
            var bytes: [UInt8] = []
            var ends: [Int] = []
            for column in columns {
                bytes.append(contentsOf: row.field(column))
                ends.append(bytes.count)
            }
            return Row(bytes: bytes, ends: ends)
        }
        func emit(_ row: Row?, record: Int) -> Bool {
            guard let row else { fail("\(name): record \(record + 1) could not be read again", status: 1) }
            if row.omittedCells > 0 {
                fail("\(name): record \(record + 1) has more than \(RecordParser.Limits.fieldLimit) fields, the most a record read "
                     + "again may have; write it without --filter, --sort or --columns", status: 1)
            }
            if row.isCut { fail("\(name): record \(record + 1) has a cell longer than the parser keeps; write it without --filter, --sort or --columns", status: 1) }
            return writer.write(project(row))
        }
        for record in 0..<min(headerRows, store.rowCount) where writer.isOpen {
            _ = emit(store.row(record), record: record)
        }
        var written = 0
        var lastRecord = -1
        while writer.isOpen {
            let complete = view.rows?.isComplete ?? store.isComplete
            let available = view.dataRowCount
            while written < available && writer.isOpen {
                let batch = written..<min(available, written + 512)
                view.fetch(rows: [batch])
                for row in batch {
                    lastRecord = view.record(ofRow: row)
                    if !emit(view.row(row), record: lastRecord) { break }
                }
                written = batch.upperBound
            }
            if complete && written >= view.dataRowCount { break }
            _ = news.wait(timeout: .now() + .milliseconds(50))
        }
        if !writer.isOpen { return 0 }
        if case .failed(let why) = sorted?.phase { fail(why, status: 1) }
        if let why = filtered?.failure { fail(why, status: 1) }
        let progress = store.progress
        writer.finish(endsWithTerminator: lastRecord == store.rowCount - 1 ? progress.endsWithTerminator : true)
        if let failure = progress.failure { fail("\(name): \(failure)", status: 1) }
        return 0
    }

    /// The byte-order mark and the preamble's bytes, as the input has them.
    private static func inputStart(of store: CellStore) -> (hasByteOrderMark: Bool, preamble: [UInt8]) {
        guard let reader = store.recordReaders.current(), let dataStart = reader.checkpoints.first?.offset, dataStart > 0 else {
            return (false, [])
        }
        var bytes = [UInt8](repeating: 0, count: Int(min(dataStart, 1 << 20)))
        let count = bytes.withUnsafeMutableBytes { reader.source.read(at: 0, into: $0) }
        bytes.removeSubrange(max(0, count)...)
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        var preamble = bytes.dropFirst(bom ? 3 : 0)
        // An Excel `sep=` line is left out: the output has a delimiter of its own.
        if store.dialect?.hasSeparatorLine == true, let line = Dialect.separatorLine(in: preamble) {
            preamble = preamble.dropFirst(line.length)
        }
        return (bom, Array(preamble))
    }
}

