#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Query
import Scan
import Table

/// What identifies the file a session was written for: its device, inode, size and
/// modification time, and a hash of its first and last 64 KiB. Any difference, and the
/// session is not used.
package struct SessionKey: Sendable, Equatable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modifiedSeconds: Int64
    package var modifiedNanoseconds: Int64
    package var headHash: UInt64
    package var tailHash: UInt64

    package init(device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int64, modifiedNanoseconds: Int64,
                 headHash: UInt64, tailHash: UInt64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.headHash = headHash
        self.tailHash = tailHash
    }

    /// The same file (device and inode) whatever became of it since.
    package func isSameFile(as other: SessionKey) -> Bool { device == other.device && inode == other.inode }
}

/// What a session file holds for one table: the view, and the index when it was kept.
package struct SessionContent {
    package var view: SavedView
    package var index: IndexSnapshot?
    /// The rows the filters kept (over the file's order), when kept as a result: to write,
    /// or read (and checked) from its data file (`SessionStore.load`).
    package var filterBitmap: (words: [UInt64], length: Int)?
    /// A complete sort to keep as its result (to write; its kinds and order are its own).
    package var sorted: SortedRecords?
    /// A sort kept as its result: the kinds its keys were read as, its count and its data
    /// file; `pairs` reads them, once the file is open (`SessionStore.load`). Written as
    /// is when the sort was kept unchanged (its data file is not written again).
    package var keptSort: KeptSort?
    /// Where the filters' rows lie (`filterBitmap`'s data file), and their length in rows.
    package var keptBitmap: KeptBitmap?
    /// True when the file only grew since the session was written (`SessionCodec.decode`'s
    /// `grew`): the index covers what was there, and the rest is to be indexed.
    package var fileGrew = false
    /// Why a kept result was left out on reading (its data file missing or damaged): one
    /// line for the status line; the sort or filter is made again.
    package var dropped: String?

    package init(view: SavedView, index: IndexSnapshot?, filterBitmap: (words: [UInt64], length: Int)? = nil) {
        self.view = view
        self.index = index
        self.filterBitmap = filterBitmap
    }
}

/// A sort's order kept by a session: the kinds of its keys, and its `count` pairs (8-byte
/// record and offset each) in its data file, `section`.
package struct KeptSort {
    package var kinds: [ColumnKind]
    package var count: Int
    package var section: KeptSection
    package var pairs: StoredPairs?

    package init(kinds: [ColumnKind], count: Int, section: KeptSection, pairs: StoredPairs? = nil) {
        self.kinds = kinds
        self.count = count
        self.section = section
        self.pairs = pairs
    }
}

/// The filters' rows kept by a session: `length` rows, their bitmap's words in `section`,
/// the rows kept in each of its blocks counted (`blockCounts`: the row count and where a
/// row lies are known before any block is read); `bitmap` reads them, once the file is
/// open (`SessionStore.load`).
package struct KeptBitmap {
    package var length: Int
    package var section: KeptSection
    package var blockCounts: [Int]
    package var bitmap: StoredBitmap?

    package init(length: Int, section: KeptSection, blockCounts: [Int], bitmap: StoredBitmap? = nil) {
        self.length = length
        self.section = section
        self.blockCounts = blockCounts
        self.bitmap = bitmap
    }
}

/// A session file's bytes: `CSVFSESS`, a version, the whole length, the key, the content,
/// and a checksum of all before it (`KeptSection.checksum`, eight bytes at a time: a
/// session's index of a large file is tens of MB, checked whole at opening). Reading checks each of them and every count
/// against the bytes left, so a truncated, corrupt, older or foreign file is refused with
/// a reason, never trusted. The large results (a sort's order, the filters' bitmap) are
/// not in it: it names their data files, with a checksum per 64 KiB block of each (and the
/// bitmap's rows counted per block), checked as each block is first read; so the file read
/// and checked whole at opening is small: the index's checkpoints, mapped, not copied.
package enum SessionCodec {
    package static let magic = Array("CSVFSESS".utf8)
    package static let version: UInt32 = 5

    /// Why a session file was not used.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case truncated, notASession, otherVersion, corrupt, otherFile, fileChanged

        package var description: String {
            switch self {
            case .truncated: return "the saved session is truncated: ignored"
            case .notASession: return "the saved session is not one: ignored"
            case .otherVersion: return "the saved session is from another version: ignored"
            case .corrupt: return "the saved session is corrupt: ignored"
            case .otherFile: return "the saved session is for another file: ignored"
            case .fileChanged: return "file changed since last time: view not restored"
            }
        }
    }

    package static func encode(_ content: SessionContent, key: SessionKey) -> [UInt8] {
        var out = Writer()
        out.bytes.append(contentsOf: magic)
        out.u32(version)
        out.u64(0)  // the length, filled in below
        out.key(key)
        let view = content.view
        out.optionalInt(view.record)
        out.int(view.cursorColumn)
        out.int(view.frozenRows.lowerBound)
        out.int(view.frozenRows.upperBound)
        out.int(view.frozenColumns)
        let widths = view.widths.sorted { $0.key < $1.key }
        out.int(widths.count)
        for (column, width) in widths {
            out.int(column)
            out.int(width)
        }
        out.ints(view.fullWidth.sorted())
        out.bool(view.columns != nil)
        out.ints(view.columns ?? [])
        out.int(view.sortKeys.count)
        for key in view.sortKeys {
            out.int(key.column)
            out.bool(key.descending)
        }
        out.int(view.filters.count)
        for filter in view.filters {
            out.string(filter.pattern)
            out.optionalInt(filter.column)
            out.bool(filter.inverted)
            out.bool(filter.columns != nil)
            out.ints(filter.columns ?? [])
        }
        out.bool(view.search != nil)
        out.string(view.search?.text ?? "")
        out.optionalInt(view.search?.column)
        out.ints(view.marks.records)
        out.bool(view.marksOnly)
        out.bool(view.band)
        out.bool(content.index != nil)
        if let index = content.index {
            out.int(index.checkpoints.count)
            for checkpoint in index.checkpoints {
                out.i64(checkpoint.offset)
                out.int(checkpoint.row)
            }
            out.i64(index.available)
            out.int(index.rowCount)
            out.int(index.widestRow)
            out.optionalInt(index.tooWideRecord)
            out.bool(index.endsWithTerminator)
            out.int(index.wellQuotedRecords)
            out.int(index.firstBlankRecord)
            out.bool(index.quotingProblem != nil)
            if let problem = index.quotingProblem {
                out.u8(problem.kind == .quoteInUnquotedField ? 0 : problem.kind == .textAfterClosingQuote ? 1 : 2)
                out.int(problem.record)
                out.optionalInt(problem.line)
            }
            out.int(index.quotingProblemCount)
            out.u8(index.delimiter)
            out.u8(index.quote)
        }
        out.bool(content.keptBitmap != nil)
        if let bitmap = content.keptBitmap {
            out.int(bitmap.length)
            out.section(bitmap.section)
            out.ints(bitmap.blockCounts)
        }
        out.bool(content.keptSort != nil)
        if let sort = content.keptSort {
            out.int(sort.kinds.count)
            for kind in sort.kinds { out.u8(kind == .number ? 0 : kind == .date ? 1 : 2) }
            out.int(sort.count)
            out.section(sort.section)
        }
        let length = UInt64(out.bytes.count + 8)
        for index in 0..<8 { out.bytes[12 + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt64(index))) }
        out.u64(sum(out.bytes[...]))
        return out.bytes
    }

    /// The content of `bytes` when they are a whole, sound session written for `key`.
    /// `grew` says whether the file of `key` is the stored key's file with bytes added
    /// at its end only: its session is then used, its filters' result left out.
    package static func decode(_ bytes: [UInt8], key: SessionKey,
                               grew: (SessionKey) -> Bool = { _ in false }) -> Result<SessionContent, Refusal> {
        bytes.withUnsafeBytes { decode($0, key: key, grew: grew) }
    }

    /// `decode` of bytes in place (a session file mapped: not copied, not zeroed first).
    package static func decode(_ bytes: UnsafeRawBufferPointer, key: SessionKey,
                               grew: (SessionKey) -> Bool = { _ in false }) -> Result<SessionContent, Refusal> {
        guard bytes.count >= magic.count + 4 + 8 else { return .failure(bytes.isEmpty ? .truncated : .notASession) }
        guard bytes.prefix(magic.count).elementsEqual(magic) else { return .failure(.notASession) }
        var reader = Reader(bytes: bytes, at: magic.count)
        guard let version = reader.u32(), version == Self.version else { return .failure(.otherVersion) }
        guard let length = reader.u64() else { return .failure(.truncated) }
        guard length == UInt64(bytes.count) else { return .failure(length > UInt64(bytes.count) ? .truncated : .corrupt) }
        guard bytes.count >= 8 + reader.position else { return .failure(.truncated) }
        var tail = Reader(bytes: bytes, at: bytes.count - 8)
        guard tail.u64() == KeptSection.checksum(UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 8)])) else {
            return .failure(.corrupt)
        }
        reader.end = bytes.count - 8
        guard let stored = reader.key() else { return .failure(.corrupt) }
        guard stored.isSameFile(as: key) else { return .failure(.otherFile) }
        let grown = stored != key && stored.size < key.size && grew(stored)
        guard stored == key || grown else { return .failure(.fileChanged) }
        guard var content = reader.content(), reader.position == reader.end else { return .failure(.corrupt) }
        if grown {
            content.fileGrew = true
            content.keptBitmap = nil
            content.keptSort = nil
        }
        return .success(content)
    }

    /// The session file's checksum (version 5 on: four lanes; 4: one; FNV-1a before).
    static func sum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { KeptSection.checksum($0) }
    }

    /// FNV-1a, 64 bits.
    package static func fnv(_ bytes: ArraySlice<UInt8>, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    struct Writer {
        var bytes: [UInt8] = []
        mutating func u8(_ value: UInt8) { bytes.append(value) }
        mutating func u32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }
        mutating func u64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
        mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
        mutating func int(_ value: Int) { i64(Int64(value)) }
        mutating func bool(_ value: Bool) { u8(value ? 1 : 0) }
        mutating func optionalInt(_ value: Int?) {
            bool(value != nil)
            int(value ?? 0)
        }
        mutating func ints(_ values: [Int]) {
            int(values.count)
            for value in values { int(value) }
        }
        mutating func string(_ value: String) {
            let utf8 = Array(value.utf8)
            int(utf8.count)
            bytes.append(contentsOf: utf8)
        }
        mutating func section(_ section: KeptSection) {
            u64(section.id)
            i64(section.length)
            int(section.checksums.count)
            for sum in section.checksums { u64(sum) }
        }
        mutating func key(_ key: SessionKey) {
            u64(key.device)
            u64(key.inode)
            i64(key.size)
            i64(key.modifiedSeconds)
            i64(key.modifiedNanoseconds)
            u64(key.headHash)
            u64(key.tailHash)
        }
    }

    /// Reads what `Writer` wrote; every read is bounded by the bytes left (nil past them).
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position: Int
        /// Where the bytes to read end.
        var end: Int

        init(bytes: UnsafeRawBufferPointer, at position: Int) {
            self.bytes = bytes
            self.position = position
            end = bytes.count
        }

        var left: Int { end - position }

        mutating func u8() -> UInt8? {
            guard left >= 1 else { return nil }
            defer { position += 1 }
            return bytes[position]
        }
        mutating func u32() -> UInt32? {
            guard left >= 4 else { return nil }
            defer { position += 4 }
            return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self))
        }
        mutating func u64() -> UInt64? {
            guard left >= 8 else { return nil }
            defer { position += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        }
        /// True when a `Checkpoint` in memory is its 16 bytes as written: the offset's 8
        /// little-endian bytes, then the row's.
        static let checkpointsAsWritten = MemoryLayout<Checkpoint>.stride == 16 && MemoryLayout<Int>.size == 8
            && MemoryLayout<Checkpoint>.offset(of: \Checkpoint.offset) == 0 && MemoryLayout<Checkpoint>.offset(of: \Checkpoint.row) == 8
            && 1.littleEndian == 1

        /// `count` checkpoints (offset and row, 8 bytes each), read in one pass over the
        /// bytes: an index of a large file holds millions. Nil when past the bytes left.
        mutating func checkpoints(_ count: Int) -> [Checkpoint]? {
            guard count >= 0, count <= left / 16 else { return nil }
            let at = position
            position += 16 * count
            return [Checkpoint](unsafeUninitializedCapacity: count) { out, made in
                // Laid out as written (two 8-byte little-endian integers, offset first): one copy.
                if count > 0, Self.checkpointsAsWritten, let to = out.baseAddress, let from = bytes.baseAddress {
                    #if os(Linux)
                    // Fresh memory (MBs for a 10 GiB file's index): its pages made in one call
                    // (MADV_POPULATE_WRITE, Linux 5.14 on; refused before: then one at a time).
                    let page = Int(getpagesize()), start = (Int(bitPattern: to) + page - 1) / page * page
                    let end = (Int(bitPattern: to) + 16 * count) / page * page
                    if end > start, let first = UnsafeMutableRawPointer(bitPattern: start) { _ = madvise(first, end - start, 23) }
                    #endif
                    UnsafeMutableRawPointer(to).copyMemory(from: from + at, byteCount: 16 * count)
                    made = count
                    return
                }
                for item in 0..<count {
                    let offset = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 16 * item, as: Int64.self))
                    let row = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 16 * item + 8, as: Int64.self))
                    (out.baseAddress! + item).initialize(to: Checkpoint(offset: offset, row: Int(truncatingIfNeeded: row)))
                }
                made = count
            }
        }
        mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
        mutating func int() -> Int? { i64().flatMap { Int(exactly: $0) } }
        /// A count of items each at least `size` bytes: never more than the bytes left hold.
        mutating func count(each size: Int) -> Int? {
            guard let value = int(), value >= 0, value <= left / max(1, size) else { return nil }
            return value
        }
        mutating func bool() -> Bool? {
            switch u8() {
            case 0: return false
            case 1: return true
            default: return nil
            }
        }
        mutating func optionalInt() -> Int?? {
            guard let present = bool(), let value = int() else { return nil }
            return .some(present ? value : nil)
        }
        mutating func ints() -> [Int]? {
            guard let count = count(each: 8) else { return nil }
            var values: [Int] = []
            values.reserveCapacity(count)
            for _ in 0..<count {
                guard let value = int() else { return nil }
                values.append(value)
            }
            return values
        }
        mutating func string() -> String? {
            guard let count = count(each: 1) else { return nil }
            defer { position += count }
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)]), as: UTF8.self)
        }
        /// A data file's place: well formed (a checksum for each of its blocks), else nil.
        mutating func section() -> KeptSection? {
            guard let id = u64(), let length = i64(), let count = count(each: 8) else { return nil }
            var sums: [UInt64] = []
            sums.reserveCapacity(count)
            for _ in 0..<count {
                guard let sum = u64() else { return nil }
                sums.append(sum)
            }
            let section = KeptSection(id: id, length: length, checksums: sums)
            return section.isWellFormed ? section : nil
        }
        mutating func key() -> SessionKey? {
            guard let device = u64(), let inode = u64(), let size = i64(), let seconds = i64(), let nanoseconds = i64(),
                  let head = u64(), let tail = u64() else { return nil }
            return SessionKey(device: device, inode: inode, size: size, modifiedSeconds: seconds,
                              modifiedNanoseconds: nanoseconds, headHash: head, tailHash: tail)
        }

        mutating func content() -> SessionContent? {
            var view = SavedView()
            guard let record = optionalInt(), let cursorColumn = int(), let frozenLow = int(), let frozenHigh = int(),
                  frozenLow >= 0, frozenHigh >= frozenLow, let frozenColumns = int(), frozenColumns >= 0,
                  let widthCount = count(each: 16) else { return nil }
            view.record = record
            view.cursorColumn = cursorColumn
            view.frozenRows = frozenLow..<frozenHigh
            view.frozenColumns = frozenColumns
            for _ in 0..<widthCount {
                guard let column = int(), let width = int() else { return nil }
                view.widths[column] = width
            }
            guard let fullWidth = ints(), let hasColumns = bool(), let columns = ints(),
                  let sortCount = count(each: 9) else { return nil }
            view.fullWidth = Set(fullWidth)
            view.columns = hasColumns ? columns : nil
            for _ in 0..<sortCount {
                guard let column = int(), column >= 0, let descending = bool() else { return nil }
                view.sortKeys.append(SortKey(column: column, descending: descending))
            }
            guard let filterCount = count(each: 27) else { return nil }
            for _ in 0..<filterCount {
                guard let pattern = string(), let column = optionalInt(), let inverted = bool(), let hasColumns = bool(),
                      let columns = ints() else { return nil }
                view.filters.append(RecordFilter(pattern: pattern, column: column, inverted: inverted,
                                                 columns: hasColumns ? columns : nil))
            }
            guard let hasSearch = bool(), let text = string(), let searchColumn = optionalInt(), let marks = ints(),
                  let marksOnly = bool(), let band = bool(), let hasIndex = bool() else { return nil }
            if hasSearch { view.search = SearchPattern(text: text, column: searchColumn) }
            view.marks = MarkSet(marks)
            view.marksOnly = marksOnly
            view.band = band
            var content = SessionContent(view: view, index: nil)
            if hasIndex {
                guard let checkpointCount = count(each: 16) else { return nil }
                guard let checkpoints = checkpoints(checkpointCount), let available = i64(), let rowCount = int(), let widestRow = int(), let tooWide = optionalInt(),
                      let endsWithTerminator = bool(), let wellQuoted = int(), let firstBlank = int(),
                      let hasProblem = bool() else { return nil }
                var problem: QuotingProblem?
                if hasProblem {
                    guard let kind = u8(), kind <= 2, let problemRecord = int(), let line = optionalInt() else { return nil }
                    problem = QuotingProblem(kind: kind == 0 ? .quoteInUnquotedField : kind == 1 ? .textAfterClosingQuote : .unclosedQuote,
                                             record: problemRecord, line: line)
                }
                guard let problemCount = int(), let delimiter = u8(), let quote = u8() else { return nil }
                content.index = IndexSnapshot(checkpoints: checkpoints, available: available, rowCount: rowCount,
                                              widestRow: widestRow, tooWideRecord: tooWide,
                                              endsWithTerminator: endsWithTerminator, wellQuotedRecords: wellQuoted,
                                              firstBlankRecord: firstBlank, quotingProblem: problem,
                                              quotingProblemCount: problemCount, delimiter: delimiter, quote: quote)
            }
            guard let hasBitmap = bool() else { return nil }
            if hasBitmap {
                guard let length = int(), length >= 0, let section = section(), let counts = ints(),
                      StoredBitmap.fits(length: length, section: section, blockCounts: counts) else { return nil }
                content.keptBitmap = KeptBitmap(length: length, section: section, blockCounts: counts)
            }
            guard let hasSort = bool() else { return nil }
            if hasSort {
                guard let kindCount = count(each: 1) else { return nil }
                var kinds: [ColumnKind] = []
                for _ in 0..<kindCount {
                    guard let kind = u8(), kind <= 2 else { return nil }
                    kinds.append(kind == 0 ? .number : kind == 1 ? .date : .text)
                }
                guard let pairs = int(), pairs >= 0, pairs <= Int.max / 16, let section = section(),
                      section.length == Int64(pairs) * 16 else { return nil }
                content.keptSort = KeptSort(kinds: kinds, count: pairs, section: section)
            }
            return content
        }
    }
}
