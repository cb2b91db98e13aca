#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where a result kept by a session lies: its own data file beside the session's (named
/// by the session file's name and `id`), its length, and a checksum of each of its blocks
/// of `blockSize` bytes (`KeptSection.checksum`), so a block is checked when first read.
package struct KeptSection: Sendable, Equatable {
    package static let blockSize = 64 << 10
    /// What tells the data file from the session's others: its name's suffix.
    package var id: UInt64
    package var length: Int64
    package var checksums: [UInt64]

    package init(id: UInt64, length: Int64, checksums: [UInt64]) {
        self.id = id
        self.length = length
        self.checksums = checksums
    }

    /// The place of `bytes` as one data file: a checksum for each of its blocks.
    package init(id: UInt64, covering bytes: [UInt8]) {
        let sums = stride(from: 0, to: bytes.count, by: Self.blockSize).map { start in
            bytes[start..<min(bytes.count, start + Self.blockSize)].withUnsafeBytes { Self.checksum($0) }
        }
        self.init(id: id, length: Int64(bytes.count), checksums: sums)
    }

    /// True when the checksums count the blocks of `length` bytes.
    package var isWellFormed: Bool {
        length >= 0 && checksums.count == Int((length + Int64(Self.blockSize) - 1) / Int64(Self.blockSize))
    }

    /// A 64-bit checksum of one block: four lanes of eight bytes each, multiplied and
    /// shifted in step (the lanes do not wait on one another: about 4 bytes a cycle, so
    /// checking a 64 KiB block costs a few microseconds), folded together at the end. Each
    /// step is one-to-one in the lane's state and in the word taken, and so is the fold:
    /// any one word changed changes the sum.
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        @inline(__always) func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
            let mixed = (hash ^ word) &* 0xff51_afd7_ed55_8ccd
            return mixed ^ (mixed >> 32)
        }
        @inline(__always) func word(_ at: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        var a: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F, c: UInt64 = 0x1656_67B1_9E37_79F9, d: UInt64 = 0x27D4_EB2F_1656_67C5
        var index = 0
        while index + 32 <= bytes.count {
            a = mix(a, word(index))
            b = mix(b, word(index + 8))
            c = mix(c, word(index + 16))
            d = mix(d, word(index + 24))
            index += 32
        }
        var hash = mix(mix(mix(a, b), c), d)
        while index + 8 <= bytes.count {
            hash = mix(hash, word(index))
            index += 8
        }
        while index < bytes.count {
            hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01b3
            index += 1
        }
        hash ^= hash >> 29
        return hash &* 0xc4ce_b9fe_1a85_ec53
    }
}

/// A sort's order kept in a file (a session's data file): `count` (record, offset) pairs
/// of 8-byte little-endian integers from `offset`, read by window as a spilled order is.
/// It owns the descriptor: the file may be replaced or removed meanwhile, what was opened
/// stays.
///
/// Each block of the file is checked against its checksum the first time a read touches
/// it; a block that fails marks the whole order failed (`hasFailed`): from then on every
/// entry reads as record -1 (a row that is not there), and the view makes its sort again.
/// Each pair read is checked too against the bounds given (a record among the data
/// records, an offset within the input), so no read goes astray whatever the file holds.
package final class StoredPairs: Sendable {
    private let descriptor: Int32
    private let offset: Int64
    package let count: Int
    private let records: Range<Int>
    private let bytes: Int64
    /// Where the order lies, to be referred to again when it is kept unchanged.
    package let section: KeptSection?
    private struct Checks {
        var verified: [Bool]
        var failed = false
    }
    private let checks: Mutex<Checks>

    /// Takes `descriptor` (closed when this goes). With `section`, its blocks are checked
    /// as they are first read (the order starts at offset 0 of its file).
    package init(descriptor: Int32, offset: Int64, count: Int, records: Range<Int>, inputBytes: Int64, section: KeptSection? = nil) {
        self.descriptor = descriptor
        self.offset = offset
        self.count = count
        self.records = records
        self.bytes = inputBytes
        self.section = section
        checks = Mutex(Checks(verified: [Bool](repeating: section == nil, count: section?.checksums.count ?? 0)))
    }

    deinit { close(descriptor) }

    /// True once a block failed its check: the order is not to be trusted.
    package var hasFailed: Bool { checks.withLock { $0.failed } }

    /// Checks the blocks that bytes `range` of the file lie in, those not checked yet;
    /// false when one fails (or failed before).
    private func check(_ range: Range<Int64>) -> Bool {
        guard let section else { return true }
        return checks.withLock { state in
            guard !state.failed else { return false }
            guard !range.isEmpty else { return true }
            let size = Int64(KeptSection.blockSize)
            let first = Int(range.lowerBound / size), last = Int((range.upperBound - 1) / size)
            guard first >= 0, last < state.verified.count else {
                state.failed = true
                return false
            }
            for block in first...last where !state.verified[block] {
                let start = Int64(block) * size
                let length = Int(min(size, section.length - start))
                var buffer = [UInt8](repeating: 0, count: length)
                var done = 0
                buffer.withUnsafeMutableBytes { raw in
                    while done < length {
                        let got = pread(descriptor, raw.baseAddress! + done, length - done, off_t(start) + off_t(done))
                        if got <= 0 { break }
                        done += got
                    }
                }
                guard done == length, buffer.withUnsafeBytes({ KeptSection.checksum($0) }) == section.checksums[block] else {
                    state.failed = true
                    return false
                }
                state.verified[block] = true
            }
            return true
        }
    }

    /// The pairs of entries `range` (clamped), flattened; an entry out of bounds, or in a
    /// block that failed its check, reads as record -1 (a row that is not there).
    func pairs(in range: Range<Int>) -> [Int64] {
        let wanted = range.clamped(to: 0..<count)
        guard !wanted.isEmpty else { return [] }
        var pairs = [Int64](repeating: 0, count: wanted.count * 2)
        let length = pairs.count * 8
        let start = offset + Int64(wanted.lowerBound) * 16
        guard check(start..<(start + Int64(length))) else { return [Int64](repeating: -1, count: wanted.count * 2) }
        let got = pairs.withUnsafeMutableBytes { buffer -> Int in
            var done = 0
            while done < length {
                let count = pread(descriptor, buffer.baseAddress! + done, length - done, off_t(start + Int64(done)))
                if count <= 0 { break }
                done += count
            }
            return done
        }
        for index in 0..<wanted.count {
            let record = Int64(littleEndian: pairs[2 * index]), place = Int64(littleEndian: pairs[2 * index + 1])
            let good = index * 16 + 16 <= got && records.contains(Int(record)) && place >= -1 && place < bytes
            pairs[2 * index] = good ? record : -1
            pairs[2 * index + 1] = good ? place : -1
        }
        return pairs
    }
}
