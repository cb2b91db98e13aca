#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The rows filters kept, in a file (a session's data file): one bit a position (a record
/// of the file, or a row of the sort under it), 64 to a little-endian word, `length`
/// positions, with the members of each block of `KeptSection.blockSize` bytes counted in
/// the session (`blockCounts`): the row count and the rank of any position are known with
/// no read, and a block is read only when a row in it is wanted, as a kept sort's order is
/// (`StoredPairs`). It owns the descriptor.
///
/// Each block is checked the first time it is read: its checksum, its members against its
/// count, no bit past the end. One that fails marks the whole bitmap failed (`hasFailed`):
/// from then on every row reads as record -1 (a row that is not there), and the view makes
/// its filters again. Blocks read stay in memory (a bit a position at most: n / 8 bytes).
package final class StoredBitmap: Sendable {
    private let descriptor: Int32
    /// Positions covered.
    package let length: Int
    /// Members in all.
    package let count: Int
    package let section: KeptSection
    /// Members in each block, as the session counted them.
    package let blockCounts: [Int]
    /// Members before each block (one more entry: `count`).
    private let before: [Int]
    private struct State {
        var blocks: [[UInt64]?]
        var failed = false
    }
    private let state: Mutex<State>

    /// Positions a block holds.
    static var blockBits: Int { KeptSection.blockSize * 8 }

    /// Takes `descriptor` (closed when this goes, or at once when nil is returned). Nil when
    /// the counts cannot be those of `length` positions in `section`'s blocks.
    package init?(descriptor: Int32, length: Int, section: KeptSection, blockCounts: [Int]) {
        guard Self.fits(length: length, section: section, blockCounts: blockCounts) else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.length = length
        self.section = section
        self.blockCounts = blockCounts
        var running = 0
        var before = [0]
        before.reserveCapacity(blockCounts.count + 1)
        for count in blockCounts {
            running += count
            before.append(running)
        }
        self.before = before
        count = running
        state = Mutex(State(blocks: [[UInt64]?](repeating: nil, count: blockCounts.count)))
    }

    deinit { close(descriptor) }

    /// True when `blockCounts` can count the members of `length` positions in `section`'s
    /// blocks: a word for each 64 positions, a count for each block, none past its positions.
    package static func fits(length: Int, section: KeptSection, blockCounts: [Int]) -> Bool {
        let bits = blockBits
        return length >= 0 && length <= Int.max - 63 && section.isWellFormed && section.length == Int64((length + 63) / 64) * 8
            && blockCounts.count == section.checksums.count
            && blockCounts.indices.allSatisfy { blockCounts[$0] >= 0 && blockCounts[$0] <= min(bits, length - $0 * bits) }
    }

    /// The members of each block of `words` (what a session keeps beside the bitmap).
    package static func blockCounts(of words: [UInt64]) -> [Int] {
        let perBlock = KeptSection.blockSize / 8
        return stride(from: 0, to: words.count, by: perBlock).map { start in
            words[start..<min(words.count, start + perBlock)].reduce(0) { $0 + $1.nonzeroBitCount }
        }
    }

    /// True once a block failed its check: the rows are not to be trusted.
    package var hasFailed: Bool { state.withLock { $0.failed } }

    /// Block `block`'s words, read and checked the first time; nil when it (or another
    /// before) failed.
    private func words(of block: Int, _ state: inout State) -> [UInt64]? {
        guard !state.failed else { return nil }
        if let words = state.blocks[block] { return words }
        let start = Int64(block) * Int64(KeptSection.blockSize)
        let bytes = Int(min(Int64(KeptSection.blockSize), section.length - start))
        var words = [UInt64](repeating: 0, count: bytes / 8)
        let done = words.withUnsafeMutableBytes { raw -> Int in
            var done = 0
            while done < bytes {
                let got = pread(descriptor, raw.baseAddress! + done, bytes - done, off_t(start) + off_t(done))
                if got <= 0 { break }
                done += got
            }
            return done
        }
        let members = words.reduce(0) { $0 + $1.nonzeroBitCount }
        // The last word holds no bit past the end.
        let tail = length % 64
        let last = words.last.map { UInt64(littleEndian: $0) } ?? 0
        guard done == bytes, words.withUnsafeBytes({ KeptSection.checksum($0) }) == section.checksums[block],
              members == blockCounts[block], block < blockCounts.count - 1 || tail == 0 || last >> UInt64(tail) == 0 else {
            state.failed = true
            state.blocks = []
            return nil
        }
        for index in words.indices { words[index] = UInt64(littleEndian: words[index]) }
        state.blocks[block] = words
        return words
    }

    /// True when `position` is a member; nil when its block failed its check.
    package func contains(_ position: Int) -> Bool? {
        guard position >= 0 && position < length else { return false }
        return state.withLock { state in
            words(of: position / Self.blockBits, &state).map { words in
                let bit = position % Self.blockBits
                return words[bit >> 6] & (1 << UInt64(bit & 63)) != 0
            }
        }
    }

    /// Members before `position`; nil when its block failed its check.
    package func rank(_ position: Int) -> Int? {
        let position = min(max(0, position), length)
        let block = position / Self.blockBits
        let bit = position % Self.blockBits
        guard bit != 0 else { return before[block] }
        return state.withLock { state in
            words(of: block, &state).map { words in
                var result = before[block]
                for index in 0..<(bit >> 6) { result += words[index].nonzeroBitCount }
                if bit & 63 != 0 { result += (words[bit >> 6] & ((1 << UInt64(bit & 63)) - 1)).nonzeroBitCount }
                return result
            }
        }
    }

    /// The positions of members `range` (clamped), in order; -1 for each when a block they
    /// lie in failed its check.
    package func members(_ range: Range<Int>) -> [Int] {
        let wanted = range.clamped(to: 0..<count)
        guard !wanted.isEmpty else { return [] }
        return state.withLock { state -> [Int] in
            var result: [Int] = []
            result.reserveCapacity(wanted.count)
            // The last block whose members before it are at most the first wanted.
            var low = 0, high = blockCounts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if before[middle] <= wanted.lowerBound { low = middle } else { high = middle - 1 }
            }
            var block = low
            var skip = wanted.lowerBound - before[block]
            while result.count < wanted.count, block < blockCounts.count {
                guard blockCounts[block] > skip else {
                    skip -= blockCounts[block]
                    block += 1
                    continue
                }
                guard let words = words(of: block, &state) else { return [Int](repeating: -1, count: wanted.count) }
                let base = block * Self.blockBits
                for (index, word) in words.enumerated() where word != 0 {
                    var bits = word
                    let ones = bits.nonzeroBitCount
                    if skip >= ones {
                        skip -= ones
                        continue
                    }
                    for _ in 0..<skip { bits &= bits - 1 }
                    skip = 0
                    while bits != 0 && result.count < wanted.count {
                        result.append(base + index * 64 + bits.trailingZeroBitCount)
                        bits &= bits - 1
                    }
                    if result.count == wanted.count { break }
                }
                block += 1
            }
            return result.count == wanted.count ? result : [Int](repeating: -1, count: wanted.count)
        }
    }
}
