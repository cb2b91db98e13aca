/// Writes a record in an input's own dialect, quoted only where it must be: what an
/// edited or added record becomes in the file, so that the parser reads back exactly the
/// cells it was given.
package struct RecordEncoder: Sendable {
    package let dialect: Dialect

    package init(dialect: Dialect) { self.dialect = dialect }

    /// Why a record cannot be written in this dialect.
    package enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// With `--quote none` nothing can hold the delimiter or a line break.
        case needsQuotes

        package var description: String {
            "this file has no quote character (--quote none): a value cannot hold the delimiter or a line break"
        }
    }

    /// The bytes of `row`, without a line end. A cell is quoted when it holds the
    /// delimiter, the quote or a line break; a record of one empty cell is `""` (an empty
    /// line is lost to readers that skip blank lines); on the input's first record, a first
    /// cell that could be read as Excel's `sep=` line or as a `#` comment is quoted too.
    package func encode(_ row: Row, isFirstRecord: Bool = false) throws(Refusal) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(row.bytes.count + row.count + 2)
        let quote = dialect.quote
        if row.count == 0 || (row.count == 1 && row.field(0).isEmpty) {
            guard dialect.isQuoting else { return [] }
            return [quote, quote]
        }
        for index in 0..<row.count {
            if index > 0 { bytes.append(dialect.delimiter) }
            let field = row.field(index)
            var needs = field.contains { $0 == dialect.delimiter || $0 == quote || $0 == 0x0A || $0 == 0x0D }
            if !needs && isFirstRecord && index == 0, let first = field.first {
                needs = first == UInt8(ascii: "#")
                    || (field.count >= 4 && field.prefix(4).map { $0 | 0x20 } == Array("sep=".utf8))
            }
            guard needs else {
                bytes.append(contentsOf: field)
                continue
            }
            guard dialect.isQuoting else { throw .needsQuotes }
            bytes.append(quote)
            for byte in field {
                if byte == quote { bytes.append(quote) }
                bytes.append(byte)
            }
            bytes.append(quote)
        }
        return bytes
    }
}
