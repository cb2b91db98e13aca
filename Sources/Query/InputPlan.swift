import CellStore
import Scan

/// A stretch of the input between checkpoints, read by one worker of a pass.
struct Stretch: Sendable {
    var start: Int64
    var end: Int64
    var firstRecord: Int
    /// True when it ends the input (a last record without a line end is complete).
    var endsInput: Bool
}

extension RecordReader {
    /// The stretch from checkpoint `from` on that is safe to read now: to the input's end
    /// when it is final, else to the last checkpoint; nil when there is nothing new.
    func stretch(fromCheckpoint from: Int) -> (stretch: Stretch, nextCheckpoint: Int)? {
        guard from < checkpoints.count else { return nil }
        let start = checkpoints[from]
        if isFinal {
            guard start.offset < end || from == 0 else { return nil }
            return (Stretch(start: start.offset, end: end, firstRecord: start.row, endsInput: true), checkpoints.count)
        }
        let last = checkpoints.count - 1
        guard last > from else { return nil }
        return (Stretch(start: start.offset, end: checkpoints[last].offset, firstRecord: start.row, endsInput: false), last)
    }

    /// `stretch` cut at checkpoints into at most `parts` of about equal bytes.
    func split(_ stretch: Stretch, into parts: Int) -> [Stretch] {
        guard parts > 1 else { return [stretch] }
        var result: [Stretch] = []
        var current = stretch
        for part in 1..<parts {
            let target = stretch.start + (stretch.end - stretch.start) * Int64(part) / Int64(parts)
            // The first checkpoint at or after the target: the one after the last before it.
            let low = (checkpoints.index(atOrBefore: .offset(target - 1)) ?? -1) + 1
            guard low < checkpoints.count, checkpoints[low].offset > current.start, checkpoints[low].offset < stretch.end else { continue }
            let cut = checkpoints[low]
            result.append(Stretch(start: current.start, end: cut.offset, firstRecord: current.firstRecord, endsInput: false))
            current = Stretch(start: cut.offset, end: stretch.end, firstRecord: cut.row, endsInput: stretch.endsInput)
        }
        result.append(current)
        return result
    }

    /// Reads `stretch` in chunks, handing each to `body` with its offset; stops early
    /// when `isCancelled` says so. Returns false when cancelled.
    func read(_ stretch: Stretch, chunk: Int = 1 << 20, isCancelled: () -> Bool,
              _ body: (UnsafeRawBufferPointer, Int64) -> Void) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset = stretch.start
        while offset < stretch.end {
            if isCancelled() { return false }
            let wanted = Int(min(Int64(chunk), stretch.end - offset))
            let count = source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count <= 0 { break }
            body(UnsafeRawBufferPointer(rebasing: buffer[..<count]), offset)
            offset += Int64(count)
        }
        return true
    }

    /// The record that starts at `offset`, parsed alone.
    func record(at offset: Int64) -> Row? {
        guard let parser = try? RecordParser(dialect: dialect) else { return nil }
        var position = offset
        var chunk = 4096
        while position < end {
            var buffer = [UInt8](repeating: 0, count: Int(min(Int64(chunk), end - position)))
            let count = buffer.withUnsafeMutableBytes { source.read(at: position, into: $0) }
            if count <= 0 { break }
            parser.parse(buffer[..<count])
            position += Int64(count)
            if parser.recordCount > 0 { break }
            chunk = min(chunk * 4, 1 << 20)
        }
        if parser.recordCount == 0 { parser.finish() }
        return parser.takeRecords().first
    }

    /// Record `number`, parsed from the checkpoint before it.
    func record(_ number: Int) -> Row? {
        var found: Row?
        forEachRecord(from: number) { index, row in
            if index == number { found = row }
            return false
        }
        return found
    }
}

/// Runs `body(0)` on the calling thread and `body(1)`… on threads of their own, and
/// returns when all have.
func runConcurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    BackgroundScan<Int>.runConcurrently(count, threadName: "csvfreeze query", yieldsToInteractiveThreads: false, body)
}
