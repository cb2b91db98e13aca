/// Which `#` lines are comments: those a `.detect` preamble took are judged here.
extension PreambleRule {
    /// A record read from a `#` line on: where it starts and ends (past its terminator) in
    /// the bytes judged, and its fields.
    struct Record {
        var start: Int
        var end: Int
        var fields: Int
    }

    /// Where the table starts among the lines a `.detect` preamble took (`bytes` from the
    /// first of them to the end of what is in hand; they end at `candidatesEnd`): the offset
    /// and number of the first `#` line that does not read as a comment, nil when every one
    /// does. A `#` line is data when its first field is a spreadsheet error value (`#N/A`,
    /// `#REF!`: the first row of many an export), or when it is shaped like the records
    /// after it: read as a record with the table's dialect, it has as many fields (more than
    /// one) as the first record after it that does not start with `#` (or, when there is
    /// none, as the next record), and no quoting problem but stray quotes; and its `#` is not
    /// followed by a blank, `#` or `!`, nor the line by a blank line (`# by ops, 2024` and
    /// `#id,name` before a blank line are notes; `#id,name` over rows of two fields is the
    /// header).
    static func tableStart(in bytes: ArraySlice<UInt8>, candidatesEnd: Int, dialect: Dialect) -> (offset: Int, line: Int)? {
        var lines: [(start: Int, end: Int)] = []   // without their terminators
        var index = bytes.startIndex
        while index < candidatesEnd {
            var end = index
            while end < candidatesEnd && bytes[end] != 0x0A && bytes[end] != 0x0D { end += 1 }
            lines.append((index, end))
            index = lineEnd(bytes, from: end)
        }
        func isBlank(_ range: Range<Int>) -> Bool {
            bytes[range].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        }
        var reading: [Record] = []
        for (number, line) in lines.enumerated() where !isBlank(line.start..<line.end) {
            let text = bytes[line.start..<line.end]
            // An error value holds no delimiter of any dialect: the sniffed one may be wrong yet.
            let fieldEnd = text.firstIndex { $0 == dialect.delimiter || Dialect.candidates.contains($0) } ?? text.endIndex
            if isSpreadsheetError(text[..<fieldEnd]) { return (line.start, number) }
            if text.count > 1, [0x20, 0x09, UInt8(ascii: "#"), UInt8(ascii: "!")].contains(text[text.startIndex + 1]) { continue }
            if number + 1 < lines.count, isBlank(lines[number + 1].start..<lines[number + 1].end) { continue }
            // One reading serves every line it starts a record at; a line inside a record an
            // earlier `#` line opened is read from itself.
            if !reading.contains(where: { $0.start == line.start }) { reading = records(of: bytes[line.start...], dialect: dialect) }
            guard let own = reading.firstIndex(where: { $0.start == line.start }) else { continue }
            let after = reading[(own + 1)...].filter { !isBlank($0.start..<$0.end) }
            let reference = (after.first { bytes[$0.start] != UInt8(ascii: "#") } ?? after.first)?.fields
            let record = reading[own]
            guard record.fields > 1, record.fields == reference else { continue }
            var scanner = RecordScanner(dialect: dialect)
            bytes[record.start..<record.end].withUnsafeBytes { scanner.scan($0) }
            scanner.finish()
            if scanner.problemCount == scanner.strayQuoteCount { return (line.start, number) }
        }
        return nil
    }

    /// The records of `bytes` up to the first one that does not start with `#` (or is
    /// blank), read a few KiB at a time so a long table is not read for a short preamble.
    static func records(of bytes: ArraySlice<UInt8>, dialect: Dialect) -> [Record] {
        var records: [Record] = []
        var scanner = RecordScanner(dialect: dialect)
        var start = bytes.startIndex
        var isDone = false
        var position = bytes.startIndex
        while !isDone && position < bytes.endIndex {
            let end = min(bytes.endIndex, position + 4096)
            let base = position
            bytes[position..<end].withUnsafeBytes { buffer in
                scanner.scan(buffer, at: Int64(base - bytes.startIndex)) { offset, _, _, fields in
                    guard !isDone else { return }
                    let recordEnd = base + offset
                    // 0: the LF of a CRLF, which the record before it ended at its CR.
                    if fields > 0 {
                        records.append(Record(start: start, end: recordEnd, fields: fields))
                        if records.count > 1 && bytes[start] != UInt8(ascii: "#") && bytes[start] != 0x0A && bytes[start] != 0x0D {
                            isDone = true
                        }
                    }
                    start = recordEnd
                }
            }
            position = end
        }
        if !isDone {
            let before = scanner.recordCount
            scanner.finish()
            if scanner.recordCount > before, start < bytes.endIndex {
                records.append(Record(start: start, end: bytes.endIndex, fields: scanner.lastRecordFields))
            }
        }
        return records
    }

    /// The error values spreadsheets write in a cell whose formula failed, in English and in
    /// the forms that do not end in `!` or `?` in other languages (German `#NV`, Italian
    /// `#N/D`, Dutch `#N/B`).
    static let spreadsheetErrors: Set<[UInt8]> = Set([
        "#N/A", "#REF!", "#NAME?", "#DIV/0!", "#VALUE!", "#NUM!", "#NULL!", "#SPILL!", "#CALC!",
        "#GETTING_DATA", "#FIELD!", "#BLOCKED!", "#CONNECT!", "#BUSY!", "#UNKNOWN!", "#ERROR!",
        "#NV", "#N/D", "#N/B",
    ].map { Array($0.utf8) })

    /// True for a spreadsheet error value: one of `spreadsheetErrors`, or the shape they all
    /// have in other languages (`#WERT!`, `#NOM?`, `#¡VALOR!`): `#`, up to 16 capitals,
    /// digits, `/`, `_` or non-ASCII bytes, then `!` or `?`.
    static func isSpreadsheetError(_ field: ArraySlice<UInt8>) -> Bool {
        if spreadsheetErrors.contains(Array(field)) { return true }
        guard field.count >= 3, field.count <= 18, field.first == UInt8(ascii: "#"),
              let last = field.last, last == UInt8(ascii: "!") || last == UInt8(ascii: "?") else { return false }
        let body = field.dropFirst().dropLast()
        guard body.contains(where: { (0x41...0x5A).contains($0) }) else { return false }
        return body.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "_") || $0 >= 0x80 }
    }
}
