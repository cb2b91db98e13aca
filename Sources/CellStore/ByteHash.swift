/// The pieces the byte hashes share (a value's distinct-count hash, SQL's partition hash,
/// a long value's hash): each mixes whole words its own way, then ends the same way.
public enum ByteHash {
    /// The last bytes of `bytes` from `index` on (fewer than 8) as one little-endian word.
    @inlinable @inline(__always)
    public static func tail(_ bytes: UnsafeRawBufferPointer, from index: Int) -> UInt64 {
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        var index = index
        while index < bytes.count {
            tail |= UInt64(bytes[index]) << shift
            shift += 8
            index += 1
        }
        return tail
    }

    /// MurmurHash3's 64-bit finalizer: every input bit reaches every output bit.
    @inlinable @inline(__always)
    public static func finalize(_ hash: UInt64) -> UInt64 {
        var hash = hash
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }
}
