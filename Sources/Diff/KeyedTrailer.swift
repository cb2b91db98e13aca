import Query

/// What a diff's keyed entry carries beside its key through the sort's runs (`SortRun`,
/// `RunMerge`): the record's hash (8 bytes, little-endian) and whether it has a flagged
/// value (1 byte), stored after the key and never compared.
///
/// A key is bytes that compare with `memcmp` in the order a diff shows keys (see
/// `DiffKey`); equal keys keep the file's order, so duplicates are matched in order.
enum KeyedTrailer {
    static let size = 9

    /// Calls `body` with the trailer of a record whose hash is `hash`.
    static func withBytes<R>(hash: UInt64, flagged: Bool, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: (hash.littleEndian, UInt8(flagged ? 1 : 0))) { body(UnsafeRawBufferPointer(rebasing: $0.prefix(size))) }
    }

    /// The record hash of the cursor's entry.
    static func hash(_ cursor: RunCursor) -> UInt64 {
        cursor.trailer.withUnsafeBytes { $0.count >= 8 ? UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) : 0 }
    }

    /// True when the cursor's entry has a flagged value.
    static func isFlagged(_ cursor: RunCursor) -> Bool {
        cursor.trailer.count >= size && cursor.trailer[8] != 0
    }
}
