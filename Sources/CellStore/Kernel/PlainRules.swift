/// The parsing rules written out plainly, a byte at a time: the reference that the parser
/// (libcsv plus the project's own rules) and the field kernel's visitors are held to by the
/// differential tests of every module that reads CSV. Nothing is trimmed; CR, LF and CRLF
/// end a record; a blank line is a record with one empty cell; a quote opens a quoted field
/// only as a field's first byte; after a closing quote, text up to the next delimiter or
/// line end is appended (quotes in it literal); an unclosed quote runs to the end.
package func referenceRecords(_ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8 = UInt8(ascii: "\"")) -> [[[UInt8]]] {
    plainRules(bytes, delimiter: delimiter, quote: quote).records
}

/// The boundaries the record scanner reports, by the same plain rules: after each record's
/// terminator, the offset just past it and the record's fields; after the LF of a CRLF,
/// that offset and 0.
package func referenceBoundaries(_ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ","),
                                 quote: UInt8 = UInt8(ascii: "\"")) -> [(end: Int, fields: Int)] {
    plainRules(bytes, delimiter: delimiter, quote: quote).boundaries
}

private func plainRules(_ bytes: [UInt8], delimiter: UInt8, quote: UInt8) -> (records: [[[UInt8]]], boundaries: [(end: Int, fields: Int)]) {
    enum State { case rowStart, fieldStart, unquoted, quoted, quoteInQuoted }
    var records: [[[UInt8]]] = []
    var boundaries: [(end: Int, fields: Int)] = []
    var offset = 0
    var fields: [[UInt8]] = []
    var field: [UInt8] = []
    var state = State.rowStart
    var lastTerminator: UInt8 = 0
    func endField() { fields.append(field); field = [] }
    func endRecord(_ terminator: UInt8) {
        if terminator != 0 { boundaries.append((offset + 1, fields.count)) }
        records.append(fields)
        fields = []
        lastTerminator = terminator
        state = .rowStart
    }
    for (index, byte) in bytes.enumerated() {
        offset = index
        let isTerminator = byte == 0x0A || byte == 0x0D
        switch state {
        case .rowStart, .fieldStart:
            if isTerminator {
                if state == .fieldStart {
                    endField(); endRecord(byte)
                } else if byte == 0x0A && lastTerminator == 0x0D {
                    lastTerminator = byte
                    boundaries.append((offset + 1, 0))
                } else {
                    endField(); endRecord(byte)
                }
            } else if byte == delimiter {
                endField(); state = .fieldStart
            } else if byte == quote {
                state = .quoted
            } else {
                field.append(byte); state = .unquoted
            }
        case .unquoted:
            if byte == delimiter { endField(); state = .fieldStart }
            else if isTerminator { endField(); endRecord(byte) }
            else { field.append(byte) }
        case .quoted:
            if byte == quote { state = .quoteInQuoted } else { field.append(byte) }
        case .quoteInQuoted:
            if byte == quote { field.append(byte); state = .quoted }
            else if byte == delimiter { endField(); state = .fieldStart }
            else if isTerminator { endField(); endRecord(byte) }
            else { field.append(byte); state = .unquoted }
        }
    }
    if state != .rowStart { endField(); endRecord(0) }
    return (records, boundaries)
}
