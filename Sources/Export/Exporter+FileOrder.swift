#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Scan
import Table

// MARK: The file's order: stretches copied, records the index does not vouch for parsed

extension Exporter {
    /// Every record from the first, in order: whole stretches between checkpoints copied
    /// where they may be, records the index does not vouch for parsed.
    func writeFileOrder() {
        // A snapshot of an input still loading ends at its last whole record.
        let limit = min(plan.rowLimit.map { plan.headerRows + $0 } ?? Int.max,
                        readers.isSnapshot ? readers.progress.rowCount : Int.max)
        var record = 0
        // Where `record` starts, when it starts at checkpoint `checkpoint`.
        var position: Int64? = reader.checkpoints[0].offset
        var checkpoint = 0
        var parsesRest = !writesRawBytes
        while !isStopped {
            let version = readers.changes.version
            let (known, isAll) = knownRecords
            let end = min(known, limit)
            if !parsesRest, let start = position, let problem = knownProblem, record >= problem {
                // Past a quoting problem nothing is vouched for: parse on from here.
                parsesRest = true
                position = start
            }
            if parsesRest, var start = position {
                writeParsed(from: &start, record: &record, limit: limit, isAll: isAll)
                position = start
                if isAll && start >= reader.end { break }
            } else if let start = position {
                // Whole stretches the index vouches for, as they are.
                let checkpoints = reader.checkpoints
                var rawEnd = start
                var rawRecords = record
                var next = checkpoint
                while next + 1 < checkpoints.count, checkpoints[next + 1].row <= min(end, wellQuoted, firstBlank) {
                    next += 1
                    rawEnd = checkpoints[next].offset
                    rawRecords = checkpoints[next].row
                }
                if isAll && !readers.isSnapshot && next == checkpoints.count - 1 && known <= min(limit, wellQuoted, firstBlank)
                    && rawEnd < reader.end {
                    rawEnd = reader.end
                    rawRecords = known
                }
                if rawEnd > start {
                    copyRaw(from: start, to: rawEnd, records: rawRecords - record)
                    lastRecordWritten = rawRecords - 1
                    countRows(from: record, to: rawRecords)
                    record = rawRecords
                    position = rawEnd
                    checkpoint = next
                    continue
                }
                position = nil
            }
            if !parsesRest && position == nil {
                // One at a time up to the next checkpoint (a limit or a problem inside a stretch).
                let checkpoints = reader.checkpoints
                let following = checkpoints.firstIndex { $0.row > record }
                let upTo = following.map { min(checkpoints[$0].row, end) } ?? (isAll ? end : record)
                if upTo > record {
                    writeRecords(Array(record..<upTo))
                    record = upTo
                    if let following, checkpoints[following].row == record {
                        position = checkpoints[following].offset
                        checkpoint = following
                    }
                    continue
                }
            }
            if (isAll && record >= end) || record >= limit { break }
            // A write that failed in this round (a full disk, a reader gone) stops the output:
            // nothing would publish the news waited for, so it is looked at first.
            if !refresh() && !isStopped { wait(for: readers.changes, past: version) }
        }
    }

    /// Parses the input from `position` on (a record's start) up to what is indexed, and
    /// writes each record as cells.
    private func writeParsed(from position: inout Int64, record: inout Int, limit: Int, isAll: Bool) {
        if parser == nil { parser = try? RecordParser(dialect: reader.dialect, streams: true) }
        guard let parser else {
            outcome.failure = "cannot set up the parser"
            return
        }
        let end = isAll ? reader.end : (reader.checkpoints.last?.offset ?? position)
        // JSON opens its array with the first record: the header rows, or the first record,
        // go through the writer itself.
        // A table measures its first rows itself: it has no copy for other cores before.
        let firstParallel = max(plan.headerRows, 1, writer.leadingRecords)
        let parallel = limit == Int.max && !hasFedParser
            && (writer.leadingRecords > 0 || writer.continuation(following: 0, sink: { _ in true }) != nil)
        if parallel && record >= firstParallel {
            // Parse and write on two cores, as far as the input is indexed.
            let before = position
            writeInParallel(from: &position, record: &record, isAll: isAll)
            if position != before || !isAll || isStopped { return }
        }
        if parallel && record < firstParallel,
           let next = reader.checkpoints.first(where: { $0.row >= firstParallel && $0.offset > position }) {
            // The header rows with the writer itself, up to a checkpoint; the rest on two cores.
            let before = record
            var at = position
            while at < next.offset && !isStopped {
                // A mebibyte at a time: the rows before the checkpoint may be long.
                let stop = min(next.offset, at + (1 << 20)), from = at
                window.withBytes(from..<stop) { parser.parse($0) }
                at = stop
                deliver(parser.takeRecords(), record: &record, limit: limit)
            }
            countRows(from: before, to: record)
            position = next.offset
            if record == next.row {
                writeInParallel(from: &position, record: &record, isAll: isAll)
                return
            }
        } else if parallel && !isAll {
            return   // the header's checkpoint is not indexed yet
        }
        hasFedParser = true
        let chunk: Int64 = 1 << 20
        while position < end && record < limit && !isStopped {
            let stop = min(end, position + chunk)
            let before = record
            let from = position
            window.withBytes(from..<stop) { parser.parse($0) }
            position = stop
            deliver(parser.takeRecords(), record: &record, limit: limit)
            countRows(from: before, to: record)
        }
        if isAll && position >= end && record < limit && !isStopped && readers.progress.failure == nil {
            let before = record
            parser.finish()
            deliver(parser.takeRecords(), record: &record, limit: limit)
            countRows(from: before, to: record)
        }
    }


    /// Writes parsed rows (records and pieces) in order, from record `record` on.
    func deliver(_ rows: [Row], record: inout Int, limit: Int) {
        for row in rows {
            if record >= limit || isStopped { return }
            writeCells(row, record: record)
            if !row.continuesInNext {
                lastRecordWritten = record
                record += 1
            }
        }
    }

    /// Copies bytes `start..<end` of the input, `records` whole records, as they are.
    private func copyRaw(from start: Int64, to end: Int64, records: Int) {
        var position = start
        if end - start >= 1 << 20, let file = reader.source as? FileSource, writer.flushAll() {
            position += sink.copy(from: file.descriptor, offset: start, length: end - start)
            if position > start { lastByte = window.withBytes((position - 1)..<position) { $0.first ?? 0 } }
        }
        var counted = position == start ? 0 : records
        while position < end && !isStopped {
            let stop = min(end, position + (1 << 20))
            let from = position
            window.withBytes(from..<stop) { bytes in
                _ = writer.writeRaw(bytes, records: stop == end ? records - counted : 0, lineEnding: false)
                if let last = bytes.last { lastByte = last }
            }
            if stop == end { counted = records }
            position = stop
            if control.isCancelled { return }
        }
    }

    func countRows(from: Int, to: Int) {
        let rows = max(0, to - max(from, plan.headerRows))
        guard rows > 0 else { return }
        outcome.rows += rows
        control.advance(by: Int64(rows))
    }
}
