import CellStore
import Export

/// One JSON object a line, keyed by the header's names: `{"id":"1","name":"Ann"}`.
///
/// Names come from the first header row; a name used twice gets `_2`, `_3`…, an empty
/// one or a cell past the header's last is keyed `column N` (from 1). Without a header
/// row every key is `column N`. A long cell may arrive in pieces (see `Row`): its key is
/// written once, its string opened by the first piece and closed by the last.
struct JSONLines {
    private(set) var names: [String] = []
    /// Cells of the current record written so far (the one still arriving included).
    private var column = 0

    /// Takes the keys from a header row (the first piece, if it comes in pieces).
    mutating func name(from row: Row) {
        guard !row.continuesPrevious else { return }
        var seen: [String: Int] = [:]
        names = (0..<row.count).map { index in
            var name = row.string(index)
            if name.isEmpty { name = "column \(index + 1)" }
            seen[name, default: 0] += 1
            if let count = seen[name], count > 1 { name += "_\(count)" }
            return name
        }
    }

    func key(_ column: Int) -> String {
        column < names.count ? names[column] : "column \(column + 1)"
    }

    /// Appends a record, or a piece of one.
    mutating func append(_ row: Row, to buffer: inout [UInt8]) {
        if !row.continuesPrevious {
            buffer.append(UInt8(ascii: "{"))
            column = 0
        }
        for index in 0..<row.count {
            let continues = index == 0 && row.continuesPrevious
            let goesOn = index == row.count - 1 && row.continuesInNext
            if !continues {
                if column > 0 { buffer.append(UInt8(ascii: ",")) }
                OutputWriter.appendJSONString(key(column), to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                column += 1
            }
            JSONText.append(row.field(index), opens: !continues, closes: !goesOn, to: &buffer)
        }
        if !row.continuesInNext { buffer.append(contentsOf: [UInt8(ascii: "}"), 0x0A]) }
    }
}
