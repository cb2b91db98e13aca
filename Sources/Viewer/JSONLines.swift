import CellStore
import Export
import Table

/// One JSON object a line, keyed by the header's names: `{"id":"1","name":"Ann"}`.
///
/// Keys are the columns' unique names (`ColumnNames`): a name used again gets the first of
/// `_2`, `_3`… that no other column has, an empty one or a cell past the header's last is
/// keyed `column N` (from 1), so no key is written twice and no value is lost. Without a
/// header row every key is `column N`. A long cell may arrive in pieces (see `Row`): its
/// key is written once, its string opened by the first piece and closed by the last.
struct JSONLines {
    private(set) var names = ColumnNames([]) {
        didSet {
            keyBytes = []
            keyEnds = []
        }
    }
    /// Each column's key as written, `"name":`, made once (escaping it for every cell cost
    /// more than the cell): back to back, key `i` ending at `keyEnds[i]`.
    private var keyBytes: [UInt8] = []
    private var keyEnds: [Int] = []
    /// Cells of the current record written so far (the one still arriving included).
    private var column = 0
    /// The header's cells while its pieces arrive, and their bytes.
    private var header: [[UInt8]] = []
    private var headerBytes = 0
    /// The header row is longer than names may be (`longestHeader`): nothing is written.
    private(set) var isHeaderTooLong = false

    /// Columns whose written key is kept (a record of a million cells keeps no million keys).
    static let keptKeys = 4096

    /// Bytes of header a JSON lines output takes its keys from at most.
    static let longestHeader = 8 << 20

    /// Takes the keys from a header row, or from a piece of one (a header of many cells
    /// comes in pieces; the keys are made when its last piece is in).
    mutating func name(from row: Row) {
        guard !isHeaderTooLong else { return }
        for index in 0..<row.count {
            let field = row.field(index)
            headerBytes += field.count
            if index == 0 && row.continuesPrevious && !header.isEmpty {
                header[header.count - 1] += field
            } else {
                header.append(Array(field))
            }
        }
        if headerBytes > Self.longestHeader {
            // Keys cut short would rename columns silently, and the bytes have no bound.
            isHeaderTooLong = true
            header = []
            return
        }
        guard !row.continuesInNext else { return }
        names = ColumnNames(header.map { String(decoding: $0, as: UTF8.self) })
        header = []
        headerBytes = 0
    }

    func key(_ column: Int) -> String { names[column] }

    /// Appends a record, or a piece of one.
    mutating func append(_ row: Row, to buffer: inout [UInt8]) {
        if !row.continuesPrevious {
            buffer.append(UInt8(ascii: "{"))
            column = 0
        }
        while keyEnds.count < min(Self.keptKeys, column + row.count) {
            OutputWriter.appendJSONString(key(keyEnds.count), to: &keyBytes)
            keyBytes.append(UInt8(ascii: ":"))
            keyEnds.append(keyBytes.count)
        }
        let names = self.names
        let keyEnds = self.keyEnds
        var column = self.column
        defer { self.column = column }
        // Keys and cells copied from where they lie (a slice or an array per cell cost a
        // retain and a release).
        keyBytes.withUnsafeBytes { keys in
            row.bytes.withUnsafeBytes { bytes in
                var start = 0
                for index in 0..<row.count {
                    let end = row.ends[index]
                    let continues = index == 0 && row.continuesPrevious
                    let goesOn = index == row.count - 1 && row.continuesInNext
                    if !continues {
                        if column > 0 { buffer.append(UInt8(ascii: ",")) }
                        if column < keyEnds.count {
                            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: keys[(column == 0 ? 0 : keyEnds[column - 1])..<keyEnds[column]]))
                        } else {
                            OutputWriter.appendJSONString(names[column], to: &buffer)
                            buffer.append(UInt8(ascii: ":"))
                        }
                        column += 1
                    }
                    JSONText.append(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), opens: !continues, closes: !goesOn, to: &buffer)
                    start = end
                }
            }
        }
        if !row.continuesInNext {
            buffer.append(UInt8(ascii: "}"))
            buffer.append(0x0A)
        }
    }
}
