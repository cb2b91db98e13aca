extension RecordReader {
    /// This reader with `patch`'s splices in its bytes: its checkpoints, end and record
    /// numbers moved to match (itself when the patch is empty).
    package func patched(_ patch: RecordPatch) -> RecordReader {
        guard !patch.isEmpty else { return self }
        return RecordReader(source: PatchedSource(base: source, patch: patch), checkpoints: patch.checkpoints(checkpoints),
                            dialect: dialect, end: patch.virtualEnd(end), isFinal: isFinal,
                            wellQuotedRecords: patch.virtualRecord(wellQuotedRecords),
                            firstBlankRecord: patch.virtualRecord(firstBlankRecord), json: json)
    }
}

extension LoadProgress {
    /// The progress as a reader of `patch`'s bytes sees it: records counted with those
    /// added, record numbers moved.
    package func patched(_ patch: RecordPatch) -> LoadProgress {
        guard !patch.isEmpty else { return self }
        var progress = self
        progress.rowCount = patch.virtualRecord(rowCount)
        progress.widestRow = max(widestRow, patch.widest)
        progress.tooWideRecord = tooWideRecord.map(patch.virtualRecord)
        progress.quotingProblem?.record = patch.virtualRecord(quotingProblem?.record ?? 0)
        return progress
    }
}

/// Where one record's bytes lie in the input: from its first byte to the first byte of
/// the record after it, its line end included (both bytes of a CRLF).
package struct RecordBytes: Sendable, Equatable {
    package var start: Int64
    package var end: Int64
    /// The line end it has (empty for a last record that has none).
    package var terminator: [UInt8]

    package init(start: Int64, end: Int64, terminator: [UInt8]) {
        self.start = start
        self.end = end
        self.terminator = terminator
    }
}

extension RecordReader {
    /// Where record `number` lies, found with the record scanner from the checkpoint
    /// before it; nil when it is not known whole yet (`endsAtEnd`: the bytes that may be
    /// read are all there are, so a record running to their end ends there).
    /// - Complexity: the scanner over the bytes from that checkpoint to the record's end.
    package func bytes(ofRecord number: Int, endsAtEnd: Bool) -> RecordBytes? {
        guard number >= 0, let index = checkpoints.index(atOrBefore: .record(number)) else { return nil }
        let checkpoint = checkpoints[index]
        var scanner = RecordScanner(dialect: dialect)
        var recordStart = checkpoint.offset
        var found: (start: Int64, end: Int64)?
        var position = checkpoint.offset
        var step: Int64 = 1 << 12
        // Grown as the reads grow: most records are found in the first 4 KiB.
        var buffer = [UInt8](repeating: 0, count: Int(step))
        // Past the record's end: one byte more shows whether a LF completes its CR.
        while position < end, found.map({ $0.end >= position }) ?? true {
            let wanted = Int(min(step, end - position, Int64(buffer.count)))
            let count = buffer.withUnsafeMutableBytes { source.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<wanted])) }
            if count <= 0 { break }
            let from = position
            var last = scanner.recordCount
            buffer.withUnsafeBytes { bytes in
                scanner.scan(UnsafeRawBufferPointer(rebasing: bytes[..<count])) { boundary, _, records, _ in
                    let at = from + Int64(boundary)
                    if records > last {
                        if checkpoint.row + records - 1 == number { found = (recordStart, at) }
                    } else if let was = found, was.end == recordStart {
                        found = (was.start, at)   // the LF of a CRLF
                    }
                    recordStart = at
                    last = records
                }
            }
            position += Int64(count)
            step = min(step * 4, 1 << 20)
            if buffer.count < Int(step) { buffer = [UInt8](repeating: 0, count: Int(step)) }
            if found == nil && checkpoint.row + scanner.recordCount > number { return nil }
        }
        if let found {
            let tail = bytes(found.end - min(2, found.end - found.start)..<found.end)
            let terminator: [UInt8] = tail.suffix(2) == [0x0D, 0x0A] ? [0x0D, 0x0A] : Array(tail.suffix(1))
            guard terminator == [0x0A] || terminator == [0x0D] || terminator == [0x0D, 0x0A] else { return nil }
            return RecordBytes(start: found.start, end: found.end, terminator: terminator)
        }
        // Nothing ended it: the last record, when the bytes read are all there are.
        guard (isFinal || endsAtEnd), position >= end, checkpoint.row + scanner.recordCount == number, recordStart < end
        else { return nil }
        return RecordBytes(start: recordStart, end: end, terminator: [])
    }

    /// Bytes `range` of the input (fewer where it ends).
    package func bytes(_ range: Range<Int64>) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: Int(range.count))
        var filled = 0
        while filled < result.count {
            let count = result.withUnsafeMutableBytes {
                source.read(at: range.lowerBound + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
            }
            if count <= 0 { break }
            filled += count
        }
        return Array(result[..<filled])
    }
}
