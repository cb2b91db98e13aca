import Query

/// Which records a keyed diff says moved: of the records both tables have, taken in the
/// new table's order, those outside a longest run whose old places increase (a longest
/// increasing subsequence), as daff marks them `:`, so that `daff patch` puts each where
/// the new table has it. The fewest records are called moved.
///
/// Patience sorting over the old places, fed in the new order: the piles' tops (the least
/// last old place of an increasing run of each length) are kept as intervals of places and
/// positions that both step by one, so a table in much the same order as the old one costs
/// a few intervals, not a top per record, and a shuffled one about twice the square root
/// of its records. Each record's link to the one before it in its run goes to a temporary
/// file, read backwards at the end to mark the run's records (a bit each). Past `limit`
/// intervals (orders made to defeat it) the search stops, and `isKept` keeps a record when
/// its old place is past every kept one's: still an increasing run, so the patch is right,
/// but more records may be called moved than need be.
struct KeptOrder {
    private struct Interval {
        /// The first top's old place and the position (in the order fed) of its record.
        var place: Int
        var position: Int
        var length: Int
        var lastPlace: Int { place + length - 1 }
        var lastPosition: Int { position + length - 1 }
    }

    private var tops: [Interval] = []
    private let limit: Int
    private let links: SpillFile
    private var buffer: [Int64] = []
    private(set) var count = 0
    /// The run's records by position, once `finish()` has found it; nil past the limit.
    private var kept: [UInt64]?
    private var overflowed = false
    /// For the fallback: the last kept record's old place.
    private var lastKept = Int.min

    init(limit: Int) throws(QueryError) {
        self.limit = max(16, limit)
        links = try SpillFile()
        buffer.reserveCapacity(1 << 16)
    }

    /// Feeds the old place of the next record both tables have, in the new order.
    mutating func add(_ place: Int) throws(QueryError) {
        let position = count
        count += 1
        guard !overflowed else { return }
        // The first top whose old place is at least `place`.
        var low = 0, high = tops.count
        while low < high {
            let middle = (low + high) / 2
            if tops[middle].lastPlace < place { low = middle + 1 } else { high = middle }
        }
        let offset = low < tops.count ? max(0, place - tops[low].place) : 0
        let link: Int
        if low < tops.count && offset > 0 {
            link = tops[low].position + offset - 1
        } else if low > 0 {
            link = tops[low - 1].lastPosition
        } else {
            link = -1
        }
        buffer.append(Int64(link))
        if buffer.count >= 1 << 16 { try flush() }
        if low == tops.count {
            if let last = tops.last, last.lastPlace + 1 == place && last.lastPosition + 1 == position {
                tops[tops.count - 1].length += 1
            } else {
                tops.append(Interval(place: place, position: position, length: 1))
            }
        } else {
            let top = tops[low]
            var parts: [Interval] = []
            if offset > 0 { parts.append(Interval(place: top.place, position: top.position, length: offset)) }
            parts.append(Interval(place: place, position: position, length: 1))
            if offset + 1 < top.length {
                parts.append(Interval(place: top.place + offset + 1, position: top.position + offset + 1, length: top.length - offset - 1))
            }
            tops.replaceSubrange(low...low, with: parts)
            // A new top right after the last one of the run before joins its interval.
            if offset == 0 && low > 0, tops[low - 1].lastPlace + 1 == place && tops[low - 1].lastPosition + 1 == position {
                tops[low - 1].length += 1
                tops[low].length -= 1
                if tops[low].length == 0 { tops.remove(at: low) }
            }
        }
        if tops.count > limit {
            overflowed = true
            tops = []
        }
    }

    private mutating func flush() throws(QueryError) {
        try links.append(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Finds the run (after the last `add`).
    mutating func finish() throws(QueryError) {
        guard !overflowed else { return }
        try flush()
        var bits = [UInt64](repeating: 0, count: count / 64 + 1)
        var position = tops.last?.lastPosition ?? -1
        // The links point back: the file is read from its end, a block at a time.
        var block = [Int64](repeating: 0, count: 1 << 16)
        var blockStart = Int.max
        while position >= 0 {
            if position < blockStart {
                blockStart = position / block.count * block.count
                let wanted = min(block.count, count - blockStart)
                let read = block.withUnsafeMutableBytes { links.read(at: Int64(blockStart * 8), into: UnsafeMutableRawBufferPointer(rebasing: $0[..<(wanted * 8)])) }
                // A short read (a failing disk): the records not found are called moved.
                guard read == wanted * 8 else { break }
            }
            bits[position / 64] |= 1 << UInt64(position % 64)
            let link = Int(block[position - blockStart])
            guard link < position else { break }
            position = link
        }
        kept = bits
        tops = []
    }

    /// True when the record at `position` (in the order fed), whose old place is `place`,
    /// keeps its place among the others; asked in order of position.
    mutating func isKept(_ position: Int, place: Int) -> Bool {
        if let kept { return position / 64 < kept.count && kept[position / 64] >> UInt64(position % 64) & 1 != 0 }
        guard place > lastKept else { return false }
        lastKept = place
        return true
    }
}
