#if canImport(Glibc)
import Glibc
#endif
import CellStore

/// A value longer than a cell the parser keeps (1 MiB), counted whole: its start, its
/// length, a 128-bit hash of all of it, and where to read it again in the input.
///
/// Two long values are the same value when their lengths and hashes agree (the start,
/// the same for equal values, is compared too), so values that share their first MiB are
/// told apart; the start is what is shown, marked as shortened.
struct LongValue: Sendable {
    /// The first bytes (at most `LongValue.threshold`, ending on a character).
    var prefix: [UInt8]
    /// Bytes and characters (Unicode scalars) of the whole value.
    var length: Int
    var characters: Int
    var hash: (UInt64, UInt64)
    /// The cell in the input, to read it again (nil where it cannot be).
    var cell: InputCell?

    /// Values longer than this are long values (the parser's cell limit).
    static let threshold = RecordParser.Limits().cell
    /// Bytes of a long value's start a count keeps, to show.
    static let shownBytes = 1024

    /// The key a value table counts the value under: its shown start, its length and its
    /// hash. Never equal to a short value's bytes (the table flags it long).
    var key: [UInt8] {
        var key = Array(prefix.prefix(LongValue.shownBytes))
        key.removeSubrange(RecordParser.characterBoundary(key[...])...)
        withUnsafeBytes(of: UInt64(length).littleEndian) { key.append(contentsOf: $0) }
        withUnsafeBytes(of: hash.0.littleEndian) { key.append(contentsOf: $0) }
        withUnsafeBytes(of: hash.1.littleEndian) { key.append(contentsOf: $0) }
        return key
    }

    /// A least or greatest value as text: a long one by its start, ending in `…` with its
    /// size, so a shortened value is never taken for the whole.
    static func shownText(_ bytes: [UInt8]?, _ long: LongValue?) -> String? {
        guard let bytes else { return nil }
        guard let long else { return String(decoding: bytes, as: UTF8.self) }
        let start = bytes.prefix(shownBytes)
        return String(decoding: start[..<RecordParser.characterBoundary(start)], as: UTF8.self) + "… (\(long.length) bytes)"
    }

    /// The bytes of a key's value that are shown, and the whole length (for a long key).
    static func shown(ofKey key: ArraySlice<UInt8>) -> (bytes: ArraySlice<UInt8>, length: Int) {
        let end = key.endIndex - 24
        let length = key[end..<(end + 8)].withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) }
        return (key[key.startIndex..<end], length)
    }
}

/// A 128-bit hash of bytes that arrive in pieces: two lanes of 64-bit words, the length
/// mixed in at the end (so it does not depend on where the pieces were cut).
struct StreamingHash {
    private var lanes: (UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F)
    private var pending: UInt64 = 0
    private var pendingBytes = 0
    private(set) var length = 0

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var k = value &* 0x87C3_7B91_1142_53D5
        k = (k << 31) | (k >> 33)
        return k &* 0x4CF5_AD43_2745_937F
    }

    @inline(__always)
    private mutating func word(_ value: UInt64) {
        lanes.0 = (lanes.0 ^ StreamingHash.mix(value))
        lanes.0 = ((lanes.0 << 27) | (lanes.0 >> 37)) &* 5 &+ 0x52DC_E729
        lanes.1 = (lanes.1 ^ StreamingHash.mix(value ^ 0xA076_1D64_78BD_642F))
        lanes.1 = ((lanes.1 << 31) | (lanes.1 >> 33)) &* 9 &+ 0x3849_5AB5
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        length += bytes.count
        var index = 0
        // Finish a word begun by the last piece.
        while pendingBytes > 0 && pendingBytes < 8 && index < bytes.count {
            pending |= UInt64(bytes[index]) << UInt64(8 * pendingBytes)
            pendingBytes += 1
            index += 1
        }
        if pendingBytes == 8 {
            word(pending)
            pending = 0
            pendingBytes = 0
        }
        while index + 8 <= bytes.count {
            word(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            index += 8
        }
        while index < bytes.count {
            pending |= UInt64(bytes[index]) << UInt64(8 * pendingBytes)
            pendingBytes += 1
            index += 1
        }
    }

    var value: (UInt64, UInt64) {
        var copy = self
        if copy.pendingBytes > 0 { copy.word(copy.pending ^ (UInt64(copy.pendingBytes) << 56)) }
        func finish(_ x: UInt64) -> UInt64 {
            var h = x ^ UInt64(copy.length)
            h ^= h >> 33
            h = h &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 33
            h = h &* 0xC4CE_B9FE_1A85_EC53
            h ^= h >> 33
            return h
        }
        return (finish(copy.lanes.0), finish(copy.lanes.1 &+ copy.lanes.0))
    }
}
