/// A 64-bit hash of bytes that may arrive in several pieces: the same value however the
/// bytes are cut (a cell split between two reads, or by a doubled quote).
///
/// Eight bytes at a time, each word mixed in as xxHash64 mixes a lane; the length and the
/// last bytes go in at the end, then a final avalanche (MurmurHash3's). Not for security:
/// for telling records apart, where two different records share a hash with a chance of
/// about 2⁻⁶⁴.
struct StreamHash {
    private var state: UInt64
    private var pending: UInt64 = 0
    private var pendingCount = 0
    private var length = 0

    static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let prime3: UInt64 = 0x1656_67B1_9E37_79F9

    init(seed: UInt64 = 0x2545_F491_4F6C_DD1D) { state = seed }

    @inline(__always)
    private static func round(_ state: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = state ^ ((word &* prime2) << 31 | (word &* prime2) >> 33) &* prime1
        return (mixed << 27 | mixed >> 37) &* prime1 &+ prime3
    }

    /// Adds `count` bytes from `bytes`.
    @inline(__always)
    mutating func add(_ bytes: UnsafePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        length += count
        var index = 0
        if pendingCount > 0 {
            while pendingCount < 8 && index < count {
                pending |= UInt64(bytes[index]) << UInt64(pendingCount * 8)
                pendingCount += 1
                index += 1
            }
            guard pendingCount == 8 else { return }
            state = StreamHash.round(state, pending)
            pending = 0
            pendingCount = 0
        }
        let raw = UnsafeRawPointer(bytes)
        while count - index >= 8 {
            state = StreamHash.round(state, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            index += 8
        }
        while index < count {
            pending |= UInt64(bytes[index]) << UInt64(pendingCount * 8)
            pendingCount += 1
            index += 1
        }
    }

    /// Adds one byte.
    @inline(__always)
    mutating func add(_ byte: UInt8) {
        withUnsafePointer(to: byte) { add($0, 1) }
    }

    /// The hash of everything added.
    func finish() -> UInt64 {
        var value = StreamHash.round(state, pending ^ UInt64(truncatingIfNeeded: length) &* StreamHash.prime3)
        value ^= UInt64(truncatingIfNeeded: length)
        return StreamHash.avalanche(value)
    }

    @inline(__always)
    static func avalanche(_ value: UInt64) -> UInt64 {
        var value = value
        value ^= value >> 33
        value = value &* 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value = value &* 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        return value
    }

    /// The hash of no bytes.
    static let empty = StreamHash().finish()

    /// Combines the hashes of a record's cells, in order, into the record's hash.
    @inline(__always)
    static func combine(_ hash: UInt64, _ cell: UInt64) -> UInt64 {
        avalanche((hash ^ cell) &* prime1 &+ prime2)
    }
}
