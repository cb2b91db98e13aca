/// One record as libcsv returned it: the cells' bytes back to back, and where each cell ends.
///
/// Cells are kept as raw bytes (quotes removed, doubled quotes collapsed, embedded
/// newlines kept) so nothing is lost before it reaches the screen or an output writer.
public struct Row: Sendable, Equatable {
    /// The cells' bytes, concatenated.
    package var bytes: [UInt8]
    /// `ends[i]` is the offset in `bytes` just past cell `i`.
    package var ends: [Int]
    /// Cells cut short at the parser's cell limit (their start is kept), in order.
    package var clipped: [Int] = []
    /// The whole length in bytes of each cell of `clipped`, in the same order (-1 when it
    /// is not known: the record was still being read).
    package var clippedLengths: [Int] = []
    /// Where the record starts in the input, for reading a clipped cell whole from there
    /// (`InputCell`); set on rows with a clipped cell. Not part of a row's equality.
    package var origin: RecordOrigin?
    /// Cells past the parser's limit of cells per record, counted but not kept.
    package var omittedCells = 0
    /// Empty cells written as quotes with nothing between (`""`), in order. In CSV made
    /// from JSON an empty cell not listed here is null (`isNull`); in CSV they are alike.
    /// Not part of a row's equality (CSV's `""` and empty are the same value).
    package var quotedEmpty: [Int] = []
    /// Streaming only: the first cell goes on from the last cell of the row before.
    package var continuesPrevious = false
    /// Streaming only: the last cell goes on in the next row (this row is a piece of a record).
    package var continuesInNext = false

    package init(bytes: [UInt8] = [], ends: [Int] = [], clipped: [Int] = [], omittedCells: Int = 0,
                continuesPrevious: Bool = false, continuesInNext: Bool = false) {
        self.bytes = bytes
        self.ends = ends
        self.clipped = clipped
        self.omittedCells = omittedCells
        self.continuesPrevious = continuesPrevious
        self.continuesInNext = continuesInNext
    }

    /// True when cell `index` is empty and was not written `""`: in CSV made from JSON, a
    /// null (or a key the record lacks). A cell past the row's end is one too.
    package func isNull(_ index: Int) -> Bool {
        guard index >= 0, index < ends.count else { return true }
        return ends[index] == (index == 0 ? 0 : ends[index - 1]) && !quotedEmpty.contains(index)
    }

    /// True when cell `index` was cut short at the parser's cell limit.
    package func isClipped(_ index: Int) -> Bool { clipped.contains(index) }

    /// The whole length in bytes of cell `index`: its kept bytes' count unless it was
    /// clipped; nil for a clipped cell whose end was not read.
    package func fullLength(ofCell index: Int) -> Int? {
        guard let place = clipped.firstIndex(of: index) else { return field(index).count }
        let length = place < clippedLengths.count ? clippedLengths[place] : -1
        return length >= 0 ? length : nil
    }

    public static func == (lhs: Row, rhs: Row) -> Bool {
        lhs.bytes == rhs.bytes && lhs.ends == rhs.ends && lhs.clipped == rhs.clipped
            && lhs.clippedLengths == rhs.clippedLengths && lhs.omittedCells == rhs.omittedCells
            && lhs.continuesPrevious == rhs.continuesPrevious && lhs.continuesInNext == rhs.continuesInNext
    }

    /// True when some of this record was not kept (a clipped cell, or cells past the limit).
    package var isCut: Bool { !clipped.isEmpty || omittedCells > 0 }

    /// Bytes this row holds in memory, roughly: what caches count against their budget.
    package var memoryCost: Int { bytes.count + ends.count * 8 + clipped.count * 16 + quotedEmpty.count * 8 + 64 }

    /// Builds a row from cell strings (for tests and synthetic rows).
    package init(cells: [String]) {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for cell in cells {
            bytes.append(contentsOf: Array(cell.utf8))
            ends.append(bytes.count)
        }
        self.init(bytes: bytes, ends: ends)
    }

    /// The number of cells in this record (ragged rows keep their own length).
    package var count: Int { ends.count }

    /// The bytes of cell `index`; a cell past the end of a short row is empty.
    package func field(_ index: Int) -> ArraySlice<UInt8> {
        guard index >= 0, index < ends.count else { return [] }
        let start = index == 0 ? 0 : ends[index - 1]
        return bytes[start..<ends[index]]
    }

    /// Cell `index` decoded as UTF-8; invalid bytes become U+FFFD.
    package func string(_ index: Int) -> String {
        String(decoding: field(index), as: UTF8.self)
    }

    /// All cells decoded as UTF-8.
    package var strings: [String] { (0..<count).map(string) }
}

/// Where a record starts: the record after `recordsBefore` records from byte `offset`,
/// which is where a record starts (a checkpoint, or the record itself). Finding the byte
/// costs a scan of those records, paid only when a clipped cell is read whole.
package struct RecordOrigin: Sendable, Equatable {
    package var offset: Int64
    package var recordsBefore: Int

    package init(offset: Int64, recordsBefore: Int = 0) {
        self.offset = offset
        self.recordsBefore = recordsBefore
    }
}

extension Array where Element == Row {
    /// Notes on each row with a clipped cell where it starts: the `index`-th record from
    /// byte `offset` (rows in order from a record start).
    package mutating func noteOrigins(from offset: Int64) {
        for index in indices where !self[index].clipped.isEmpty {
            self[index].origin = RecordOrigin(offset: offset, recordsBefore: index)
        }
    }
}
