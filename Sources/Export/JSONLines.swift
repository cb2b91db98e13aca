import CellStore
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
    /// The keys were given (the names the table gives chosen columns), not taken from the
    /// header row written, whose cells alone would name them again.
    private var keysGiven = false

    init() {}

    /// Keys given, the first `lead` of them cells that are no input column (the source
    /// column of several inputs): names past them number the input's columns.
    private var lead = 0

    /// Keys given: `keys[i]` for cell `i` (`column N` past them, N counting the input's
    /// columns, the first `lead` cells aside).
    init(keys: [String], lead: Int = 0) {
        names = ColumnNames(keys)
        keysGiven = true
        self.lead = lead
        given = keys.count
    }

    /// How many keys were given.
    private var given = 0

    /// Columns whose written key is kept (a record of a million cells keeps no million keys).
    static let keptKeys = 4096

    /// Bytes of header a JSON lines output takes its keys from at most.
    static let longestHeader = 8 << 20

    /// Takes the keys from a header row, or from a piece of one (a header of many cells
    /// comes in pieces; the keys are made when its last piece is in).
    mutating func name(from row: Row) {
        guard !isHeaderTooLong && !keysGiven else { return }
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

    func key(_ column: Int) -> String {
        keysGiven && column >= given ? ColumnNames.numbered(column - lead) : names[column]
    }

    /// Makes the written keys of the first `count` columns (at most `keptKeys`) once.
    private mutating func keepKeys(upTo count: Int) {
        while keyEnds.count < min(Self.keptKeys, count) {
            OutputWriter.appendJSONString(key(keyEnds.count), to: &keyBytes)
            keyBytes.append(UInt8(ascii: ":"))
            keyEnds.append(keyBytes.count)
        }
    }

    /// Appends a whole record whose cells have types (see `OutputWriter.write(_:types:)`).
    mutating func append(_ row: Row, types: ArraySlice<ValueType>, to buffer: inout [UInt8]) {
        keepKeys(upTo: row.count)
        buffer.append(UInt8(ascii: "{"))
        for (index, type) in zip(0..<row.count, types) {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            if index < keyEnds.count {
                buffer.append(contentsOf: keyBytes[(index == 0 ? 0 : keyEnds[index - 1])..<keyEnds[index]])
            } else {
                OutputWriter.appendJSONString(key(index), to: &buffer)
                buffer.append(UInt8(ascii: ":"))
            }
            OutputWriter.appendJSONValue(row.field(index), type: type, to: &buffer)
        }
        buffer.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
    }

    /// Appends a record, or a piece of one: written whole by `cx_json_object_members`
    /// (keys, separators and cells escaped in bulk) into scratch memory, then added to
    /// `buffer` in one copy (an append per key and cell cost more than the escaping).
    mutating func append(_ row: Row, to buffer: inout [UInt8]) {
        if !row.continuesPrevious { column = 0 }
        let cells = row.count
        keepKeys(upTo: column + cells)
        var keys = keyBytes, ends = keyEnds
        if column + cells > ends.count {
            // Keys of columns past those kept, made for this row alone.
            for past in ends.count..<(column + cells) {
                OutputWriter.appendJSONString(key(past), to: &keys)
                keys.append(UInt8(ascii: ":"))
                ends.append(keys.count)
            }
        }
        let first = column
        column += cells - (row.continuesPrevious && cells > 0 ? 1 : 0)
        JSONText.appendMembers(cells: row.bytes, ends: row.ends, keys: keys, keyEnds: ends, column: first,
                               continuesPrevious: row.continuesPrevious, continuesInNext: row.continuesInNext, to: &buffer)
    }
}
