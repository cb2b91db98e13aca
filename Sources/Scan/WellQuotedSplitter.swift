import CellStore
import CFieldScan

/// Splits whole records that the index vouches are well quoted into cells straight from
/// their bytes, without the parser: a field is either unquoted (up to the next delimiter or
/// line end) or quoted from its first byte to a closing quote followed by a delimiter or a
/// line end, with doubled quotes made single (a quoted empty cell noted, `Row.quotedEmpty`);
/// CR, LF and CRLF end a record, and a blank line is a record of one empty cell. That is the parser's reading of such records
/// exactly (the differential tests hold the two together); anything else is parsed.
package struct WellQuotedSplitter {
    /// A stretch longer than this is parsed (its cells are never held whole).
    package static let largestStretch: Int64 = 64 << 20
    let delimiter: UInt8
    let quote: UInt8
    /// The row handed out, its arrays kept from record to record.
    private var row = Row()

    package init(dialect: Dialect) {
        delimiter = dialect.delimiter
        quote = dialect.quote
    }

    /// Calls `body` with each record of `bytes` (whole records; the last may lack a line end).
    package mutating func split(_ bytes: UnsafeRawBufferPointer, _ body: (Row) -> Void) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let count = bytes.count
        let delimiter = self.delimiter, quote = self.quote
        var index = 0
        var row = Row()
        swap(&row, &self.row)
        defer { swap(&row, &self.row) }
        while index < count {
            row.bytes.removeAll(keepingCapacity: true)
            row.ends.removeAll(keepingCapacity: true)
            if !row.quotedEmpty.isEmpty { row.quotedEmpty.removeAll(keepingCapacity: true) }
            // A blank line: one empty cell.
            if base[index] == 0x0A || base[index] == 0x0D {
                index += base[index] == 0x0D && index + 1 < count && base[index + 1] == 0x0A ? 2 : 1
                row.ends.append(0)
                body(row)
                continue
            }
            fields: while true {
                if index < count && base[index] == quote {
                    index += 1
                    // `""`: an empty cell written quoted, as the parser notes it (JSON's "" is not null).
                    if index < count && base[index] == quote && (index + 1 == count || base[index + 1] != quote) {
                        row.quotedEmpty.append(row.ends.count)
                    }
                    while true {
                        let run = cf_find_byte(base + index, count - index, quote)
                        row.bytes.append(contentsOf: UnsafeBufferPointer(start: base + index, count: run))
                        index += run + 1
                        guard index < count, base[index] == quote else { break }
                        row.bytes.append(quote)   // a doubled quote
                        index += 1
                    }
                    index = min(index, count)
                } else {
                    let run = cf_find_special(base + index, count - index, delimiter, quote)
                    row.bytes.append(contentsOf: UnsafeBufferPointer(start: base + index, count: run))
                    index += run
                }
                row.ends.append(row.bytes.count)
                guard index < count else { break fields }
                let byte = base[index]
                index += 1
                if byte == delimiter {
                    if index >= count { row.ends.append(row.bytes.count) }   // a last empty field
                    if index >= count { break fields }
                    continue fields
                }
                if byte == 0x0D && index < count && base[index] == 0x0A { index += 1 }
                break fields
            }
            body(row)
        }
    }
}
