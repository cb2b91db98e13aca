import CFieldScan

/// The record ends of bytes the index vouches are well quoted, 64 bytes a step (the bulk
/// boundary scan, `cf_scan_records`), with no visitor: what a raw search follows from one
/// candidate to the next.
///
/// In well-quoted bytes every quote toggles "inside quotes" (a doubled quote toggles out and
/// in again), so a record ends at each CR or LF outside quotes, and a LF right after such a
/// CR completes a CRLF. A block the bulk scan turns down (a doubled quote cut at a call's
/// edge, the last bytes) is read by that rule a byte at a time.
package struct WellQuotedBoundaries {
    let base: UnsafePointer<UInt8>
    let count: Int
    let delimiter: UInt8
    let quote: UInt8
    /// Record ends found and not yet handed out: `ends[next..<found]`, offsets from `foundAt`.
    private let ends: UnsafeMutablePointer<cf_record_end>
    private let capacity: Int
    private var next = 0
    private var found = 0
    private var foundAt = 0
    /// Bytes scanned so far.
    private var position: Int
    private var inside = false
    private var afterCR = false
    private var opensField = true
    private static let level = cf_scan_best_level()

    /// True when the rule holds for `delimiter` and `quote` (a quote that is a line end or
    /// the delimiter means no quoting, which the parser reads otherwise).
    package static func applies(delimiter: UInt8, quote: UInt8) -> Bool {
        delimiter != 0x0A && delimiter != 0x0D && quote != 0x0A && quote != 0x0D && quote != delimiter
    }

    /// Record ends of `bytes` from `start`, a record's start, with `ends` (at least 64
    /// entries) as room.
    init(_ bytes: UnsafeRawBufferPointer, from start: Int, delimiter: UInt8, quote: UInt8,
         ends: UnsafeMutableBufferPointer<cf_record_end>) {
        base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        count = bytes.count
        self.delimiter = delimiter
        self.quote = quote
        self.ends = ends.baseAddress!
        capacity = ends.count
        position = start
    }

    /// The offset just past the next record's terminator (a CR or a LF; a CRLF's LF is the
    /// next record's to skip), or nil when no terminator is left.
    mutating func nextEnd() -> Int? {
        while true {
            while next < found {
                let end = ends[next]
                next += 1
                if end.terminator != 0 { return foundAt + end.end }
            }
            if position >= count { return nil }
            refill()
        }
    }

    private mutating func refill() {
        next = 0
        found = 0
        foundAt = position
        var state = cf_scan_state(inside: inside ? 1 : 0, opens_field: opensField ? 1 : 0, after_cr: afterCR ? 1 : 0,
                                  delimiters: 0, opened_at: 0, count: 0)
        let consumed = cf_scan_records_at(Self.level, base + position, count - position, delimiter, quote, 0, &state, ends, capacity)
        if consumed > 0 {
            found = state.count
            position += consumed
            inside = state.inside != 0
            let last = base[position - 1]
            afterCR = !inside && last == 0x0D
            opensField = !inside && (last == delimiter || last == 0x0A || last == 0x0D)
            return
        }
        // A byte at a time, one block.
        let stop = min(count, position + 64)
        while position < stop {
            let byte = base[position]
            position += 1
            if inside {
                if byte == quote { inside = false }
                continue
            }
            if byte == quote {
                inside = true
            } else if byte == 0x0A {
                ends[found] = cf_record_end(end: position - foundAt, fields: 0, terminator: afterCR ? 0 : 0x0A)
                found += 1
            } else if byte == 0x0D {
                ends[found] = cf_record_end(end: position - foundAt, fields: 0, terminator: 0x0D)
                found += 1
            }
            afterCR = byte == 0x0D
        }
        let last = base[position - 1]
        opensField = !inside && (last == delimiter || last == 0x0A || last == 0x0D)
        if inside { afterCR = false }
    }
}
