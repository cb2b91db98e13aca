/// A set of positions (record numbers, or rows of another view) as one bit each, with a
/// count every 512 bits: `rank` and `select` in O(log n) plus a few words, memory of
/// n / 8 bytes plus n / 64 whatever the number of members. It grows at its end only.
struct RankedBitmap: Sendable {
    private var words: [UInt64] = []
    /// Members before each block of 8 words.
    private var blockRanks: [Int] = [0]
    /// Positions covered so far (the bitmap's length).
    private(set) var length = 0
    /// Members so far.
    private(set) var count = 0

    init() {}

    /// A bitmap of `length` positions with these words (64 positions each, the first in the
    /// lowest bit), as `words` hands them out; nil when they do not make one (a word too
    /// many or too few, a bit past the end).
    init?(words: [UInt64], length: Int) {
        guard length >= 0, words.count == (length + 63) / 64 else { return nil }
        if length % 64 != 0, let last = words.last, last >> UInt64(length % 64) != 0 { return nil }
        self.words = words
        self.length = length
        var running = 0
        blockRanks = [0]
        var block = 0
        while block * 8 < words.count {
            for word in words[(block * 8)..<min(words.count, block * 8 + 8)] { running += word.nonzeroBitCount }
            blockRanks.append(running)
            block += 1
        }
        count = running
    }

    /// The bits, 64 positions a word.
    var allWords: [UInt64] { words }

    /// Extends the bitmap to `newLength` positions, with `members` (ascending, in the new
    /// part) set.
    mutating func extend(to newLength: Int, members: [Int]) {
        precondition(newLength >= length)
        let neededWords = (newLength + 63) / 64
        if words.count < neededWords { words.append(contentsOf: repeatElement(0, count: neededWords - words.count)) }
        for member in members where member >= length && member < newLength {
            words[member >> 6] |= 1 << UInt64(member & 63)
        }
        count += members.count
        length = newLength
        // Block counts for every block that is now whole, and the running one.
        let firstStale = max(0, blockRanks.count - 2)
        blockRanks.removeSubrange((firstStale + 1)...)
        var running = blockRanks[firstStale]
        var block = firstStale
        while block * 8 < words.count {
            let end = min(words.count, block * 8 + 8)
            for word in words[(block * 8)..<end] { running += word.nonzeroBitCount }
            blockRanks.append(running)
            block += 1
        }
    }

    func contains(_ position: Int) -> Bool {
        guard position >= 0 && position < length else { return false }
        return words[position >> 6] & (1 << UInt64(position & 63)) != 0
    }

    /// Members before `position`.
    func rank(_ position: Int) -> Int {
        let position = min(max(0, position), length)
        let word = position >> 6
        var result = blockRanks[word / 8]
        for index in (word / 8 * 8)..<word { result += words[index].nonzeroBitCount }
        if position & 63 != 0 { result += (words[word] & ((1 << UInt64(position & 63)) - 1)).nonzeroBitCount }
        return result
    }

    /// The position of member `k` (from 0), which must be below `count`.
    func select(_ k: Int) -> Int {
        // The last block whose count before it is at most k.
        var low = 0, high = blockRanks.count - 2
        while low < high {
            let middle = (low + high + 1) / 2
            if blockRanks[middle] <= k { low = middle } else { high = middle - 1 }
        }
        var remaining = k - blockRanks[low]
        var word = low * 8
        while word < words.count {
            let ones = words[word].nonzeroBitCount
            if remaining < ones { break }
            remaining -= ones
            word += 1
        }
        var bits = words[word]
        for _ in 0..<remaining { bits &= bits - 1 }
        return word * 64 + bits.trailingZeroBitCount
    }

    /// The positions of members `range` (clamped), in order.
    func members(_ range: Range<Int>) -> [Int] {
        let wanted = range.clamped(to: 0..<count)
        guard !wanted.isEmpty else { return [] }
        var result: [Int] = []
        result.reserveCapacity(wanted.count)
        var position = select(wanted.lowerBound)
        result.append(position)
        while result.count < wanted.count {
            position += 1
            var word = position >> 6
            var bits = words[word] & ~((1 << UInt64(position & 63)) - 1)
            while bits == 0 { word += 1; bits = words[word] }
            position = word * 64 + bits.trailingZeroBitCount
            result.append(position)
        }
        return result
    }
}
