/// One record as libcsv returned it: the cells' bytes back to back, and where each cell ends.
///
/// Cells are kept as raw bytes (quotes removed, doubled quotes collapsed, embedded
/// newlines kept) so nothing is lost before it reaches the screen or an output writer.
public struct Row: Sendable, Equatable {
    /// The cells' bytes, concatenated.
    public var bytes: [UInt8]
    /// `ends[i]` is the offset in `bytes` just past cell `i`.
    public var ends: [Int]

    public init(bytes: [UInt8] = [], ends: [Int] = []) {
        self.bytes = bytes
        self.ends = ends
    }

    /// Builds a row from cell strings (for tests and synthetic rows).
    public init(cells: [String]) {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for cell in cells {
            bytes.append(contentsOf: Array(cell.utf8))
            ends.append(bytes.count)
        }
        self.init(bytes: bytes, ends: ends)
    }

    /// The number of cells in this record (ragged rows keep their own length).
    public var count: Int { ends.count }

    /// The bytes of cell `index`; a cell past the end of a short row is empty.
    public func field(_ index: Int) -> ArraySlice<UInt8> {
        guard index >= 0, index < ends.count else { return [] }
        let start = index == 0 ? 0 : ends[index - 1]
        return bytes[start..<ends[index]]
    }

    /// Cell `index` decoded as UTF-8; invalid bytes become U+FFFD.
    public func string(_ index: Int) -> String {
        String(decoding: field(index), as: UTF8.self)
    }

    /// All cells decoded as UTF-8.
    public var strings: [String] { (0..<count).map(string) }
}
