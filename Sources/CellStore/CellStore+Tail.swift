/// The last rows of a file whose index is not complete yet: found by seeking near the end
/// and re-synchronizing on a record boundary, numbered by estimate until the index catches up.
struct ProvisionalTail {
    /// Where the first of `rows` starts in the input.
    var offset: Int64
    /// The estimated record number of the first of `rows`.
    var estimatedFirstRecord: Int
    var rows: [Row]
}

extension CellStore {
    /// How much of the file's end is read to find the last rows, at first and at most.
    static let tailWindow: (first: Int64, limit: Int64) = (1 << 20, 16 << 20)

    /// Shows the file's last rows at once, before the index reaches them: the store then
    /// serves them under estimated record numbers (`isApproximate`), and `rowCount`
    /// counts to their end. Returns false when there is nothing to gain (the input is
    /// complete, not a file, or indexed nearly to its end).
    /// - Complexity: reads and parses at most `tailWindow.limit` bytes.
    @discardableResult
    package func jumpToEnd(rows wanted: Int) -> Bool {
        guard !isComplete, case .file(let file, _) = loader.input, let dialect else { return false }
        // Once numbers are estimated they stay as they are until the index settles them:
        // estimating again would move rows under the user.
        if provisionalTail != nil { return true }
        let (progress, available, dataStart) = loader.shared.withLock { ($0.progress, $0.available, $0.checkpoints.first?.offset ?? 0) }
        var window = CellStore.tailWindow.first
        while true {
            let start = max(progress.bytesRead, dataStart, available - window)
            guard available - start > 0 else { return false }
            if start == progress.bytesRead { return false }   // the loader is about there anyway
            var bytes = [UInt8](repeating: 0, count: Int(available - start))
            let count = bytes.withUnsafeMutableBytes { file.read(at: start, into: $0) }
            bytes.removeLast(bytes.count - max(0, count))
            if let tail = CellStore.resynchronize(bytes, at: start, dialect: dialect, expectedFields: row(0)?.count,
                                                 wanted: wanted, isFinal: !loader.follows) {
                if tail.rows.count >= wanted || window >= CellStore.tailWindow.limit || start <= dataStart {
                    let perRecord = progress.rowCount > 0
                        ? Double(progress.bytesRead - dataStart) / Double(progress.rowCount)
                        : Double(available - tail.offset) / Double(max(1, tail.rows.count))
                    let estimate = progress.rowCount + Int(Double(tail.offset - progress.bytesRead) / max(1, perRecord))
                    provisionalTail = ProvisionalTail(offset: tail.offset, estimatedFirstRecord: max(rowCount, estimate),
                                                      rows: tail.rows)
                    return true
                }
            }
            guard window < CellStore.tailWindow.limit else { return false }
            window *= 4
        }
    }

    /// True while rows near the end are numbered by estimate.
    package var isApproximate: Bool { provisionalTail != nil && !isComplete }

    /// Once the index is complete: how far the estimated numbers were off (exact − estimate),
    /// exactly once, so the viewer can shift its cursor and view without a jump. Nil when
    /// there was no estimate, or when it cannot be matched (the view then just stays valid).
    package func settleEstimate() -> Int? {
        guard let tail = provisionalTail, isComplete else { return nil }
        provisionalTail = nil
        guard let exact = recordNumber(at: tail.offset) else { return nil }
        return exact - tail.estimatedFirstRecord
    }

    /// The record that starts at byte `offset`, if one does.
    func recordNumber(at offset: Int64) -> Int? {
        guard let dialect else { return nil }
        let start = loader.shared.withLock { state -> Checkpoint? in
            state.checkpoints.last { $0.offset <= offset }
        }
        guard let start else { return nil }
        var scanner = RecordScanner(dialect: dialect)
        var found: Int?
        if start.offset == offset { return start.row }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        var position = start.offset
        while position < offset && found == nil {
            let wanted = Int(min(Int64(buffer.count), offset - position))
            let count = loader.source.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count <= 0 { break }
            let chunkStart = position
            scanner.scan(UnsafeRawBufferPointer(rebasing: buffer[..<count]), at: chunkStart) { end, _, records, _ in
                if chunkStart + Int64(end) == offset && found == nil { found = start.row + records }
            }
            position += Int64(count)
        }
        return found
    }

    /// Finds where records start in `bytes` (which begin at `offset` in the input, at no
    /// known boundary) and parses the records from there.
    ///
    /// A line break is a record boundary only if it is outside quotes, which a window in the
    /// middle of a file cannot know. Both readings are tried from the first line break: as
    /// outside quotes, and as inside a quoted field; the one with fewer quoting problems and
    /// fewer records of an unexpected width wins.
    static func resynchronize(_ bytes: [UInt8], at offset: Int64, dialect: Dialect, expectedFields: Int?,
                              wanted: Int, isFinal: Bool) -> (offset: Int64, rows: [Row])? {
        guard let newline = bytes.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) else { return nil }
        var lineStart = newline + 1
        if bytes[newline] == 0x0D && lineStart < bytes.count && bytes[lineStart] == 0x0A { lineStart += 1 }
        guard lineStart < bytes.count else { return nil }
        struct Reading { var start: Int; var score: Int }
        var readings: [Reading] = []
        for insideQuotes in [false, true] {
            var scanner = RecordScanner(dialect: dialect, insideQuotes: insideQuotes)
            var mismatched = 0
            var firstBoundary: Int?
            let typical = expectedFields
            bytes[lineStart...].withUnsafeBytes { buffer in
                scanner.scan(buffer) { end, _, _, fields in
                    guard fields > 0 else { return }
                    if firstBoundary == nil { firstBoundary = end }
                    if let typical, fields != typical { mismatched += 1 }
                }
            }
            scanner.finish()
            let start = insideQuotes ? lineStart + (firstBoundary ?? bytes.count) : lineStart
            readings.append(Reading(start: start, score: scanner.problemCount * 10 + mismatched))
        }
        let best = readings[1].score < readings[0].score ? readings[1] : readings[0]
        guard best.start < bytes.count, let parser = try? RecordParser(dialect: dialect) else { return nil }
        parser.parse(bytes[best.start...])
        if isFinal { parser.finish() }
        var rows = parser.takeRecords()
        var first = offset + Int64(best.start)
        if rows.count > wanted {
            // Keep the last `wanted`; the offset moves to the first one kept.
            let dropped = rows.count - wanted
            var scanner = RecordScanner(dialect: dialect)
            var cut: Int?
            bytes[best.start...].withUnsafeBytes { buffer in
                scanner.scan(buffer) { end, afterCR, records, _ in
                    if records == dropped && cut == nil && !(afterCR && best.start + end < bytes.count && bytes[best.start + end] == 0x0A) {
                        cut = end
                    }
                }
            }
            if let cut {
                rows.removeFirst(dropped)
                first += Int64(cut)
            }
        }
        rows.noteOrigins(from: first)
        return (first, rows)
    }
}
