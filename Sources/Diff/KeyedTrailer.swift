import Query
import Table

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

/// What a keyed diff's row carries while its rows are put in the new file's order
/// (`RecordOrder`): the old record matched (its number and offset, -1 for an added
/// record), how it compares, and whether the new record has a flagged value.
enum PlacedTrailer {
    static let size = 18
    static let same: UInt8 = 0, changed: UInt8 = 1, added: UInt8 = 2

    static func withBytes<R, E: Error>(old: RecordRef?, kind: UInt8, flagged: Bool,
                                       _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let record = Int64(old?.record ?? -1), offset = old?.offset ?? -1
        return try withUnsafeBytes(of: (record.littleEndian, offset.littleEndian, kind, UInt8(flagged ? 1 : 0))) { bytes throws(E) in
            try body(UnsafeRawBufferPointer(rebasing: bytes.prefix(size)))
        }
    }

    /// The old record of the cursor's entry (nil for an added record), its kind and flag.
    static func read(_ cursor: RunCursor) -> (old: RecordRef?, kind: UInt8, flagged: Bool) {
        cursor.trailer.withUnsafeBytes { bytes in
            guard bytes.count >= size else { return (nil, added, false) }
            let record = Int64(littleEndian: bytes.loadUnaligned(as: Int64.self))
            let offset = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: Int64.self))
            return (record >= 0 ? RecordRef(record: Int(record), offset: offset >= 0 ? offset : nil) : nil, bytes[16], bytes[17] != 0)
        }
    }
}
