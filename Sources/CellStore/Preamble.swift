/// Lines before the header that are not part of the table (titles, `# exported …` notes).
package enum PreambleRule: Sendable, Equatable {
    /// No preamble: the first line is the header.
    case none
    /// Leading lines that start with `#` and read as comments are the preamble (see
    /// `tableStart(in:before:dialect:)`).
    case detect
    /// The first `n` lines are the preamble.
    case lines(Int)

    /// At most this much of the input's start is looked at for a preamble.
    static let limit = 1 << 16

    /// How many bytes of `start` the preamble takes, and its lines (without terminators).
    /// A line ends at LF, CRLF or CR; quotes mean nothing here. Blank lines (empty, or
    /// only spaces and tabs) right after the preamble's lines belong to it, as do those
    /// between `#` lines: the header is the next line that is not blank.
    func split(_ start: ArraySlice<UInt8>) -> (length: Int, lines: [String]) {
        let wanted: Int
        switch self {
        case .none: return (0, [])
        case .lines(let count): wanted = max(0, count)
        case .detect: wanted = Int.max
        }
        var lines: [String] = []
        var index = start.startIndex
        while index < start.endIndex {
            var end = index
            while end < start.endIndex && start[end] != 0x0A && start[end] != 0x0D { end += 1 }
            let isBlank = !lines.isEmpty && start[index..<end].allSatisfy { $0 == 0x20 || $0 == 0x09 }
            let isWanted: Bool
            if case .detect = self { isWanted = start[index] == UInt8(ascii: "#") } else { isWanted = lines.count < wanted }
            guard isWanted || isBlank else { break }
            // A line whose end is not in `start` may still be arriving, or go on past it.
            if end == start.endIndex && (isBlank || (lines.count + 1 < wanted && start.count >= PreambleRule.limit)) { break }
            lines.append(String(decoding: start[index..<end], as: UTF8.self))
            index = PreambleRule.lineEnd(start, from: end)
        }
        return (index - start.startIndex, lines)
    }

    /// Where the table starts among the lines a `.detect` preamble took (`lines`, each
    /// ended; `rest` follows them): the offset and number of the first `#` line that does
    /// not read as a comment, nil when every one does. A `#` line is data when its first field is a spreadsheet
    /// error value (`#N/A`, `#REF!`: the first row of many an export), or when it is shaped
    /// like the records after it: as many fields (more than one), split cleanly with the
    /// table's dialect, as the first record of `rest` (or, when nothing follows, as the next
    /// `#` line), its `#` not followed by a blank, `#` or `!` and no blank line after it
    /// (`# by ops, 2024` and `#id,name` before a blank line are notes; `#id,name` over rows
    /// of two fields is the header).
    static func tableStart(in lines: ArraySlice<UInt8>, before rest: ArraySlice<UInt8>, dialect: Dialect) -> (offset: Int, line: Int)? {
        var starts: [(start: Int, end: Int)] = []   // each line, without its terminator
        var index = lines.startIndex
        while index < lines.endIndex {
            var end = index
            while end < lines.endIndex && lines[end] != 0x0A && lines[end] != 0x0D { end += 1 }
            starts.append((index, end))
            index = lineEnd(lines, from: end)
        }
        func isBlank(_ line: (start: Int, end: Int)) -> Bool {
            lines[line.start..<line.end].allSatisfy { $0 == 0x20 || $0 == 0x09 }
        }
        let restFields = fieldsOfFirstRecord(rest, dialect: dialect)
        for (number, line) in starts.enumerated() where !isBlank(line) {
            let text = lines[line.start..<line.end]
            if isSpreadsheetError(firstField(of: text, delimiter: dialect.delimiter)) { return (line.start, number) }
            if text.count > 1, [0x20, 0x09, UInt8(ascii: "#"), UInt8(ascii: "!")].contains(text[text.startIndex + 1]) { continue }
            let next = starts[(number + 1)...].first
            if let next, isBlank(next) { continue }
            let reference = restFields.fields > 0 ? restFields.fields : next.map { fieldsOfFirstRecord(lines[$0.start..<$0.end], dialect: dialect).fields } ?? 0
            let own = fieldsOfFirstRecord(text, dialect: dialect)
            if own.fields > 1, own.isClean, own.fields == reference { return (line.start, number) }
        }
        return nil
    }

    /// The field count of the first record of `bytes` read with `dialect` (0 for none), and
    /// whether all of `bytes` read without a quoting problem.
    private static func fieldsOfFirstRecord(_ bytes: ArraySlice<UInt8>, dialect: Dialect) -> (fields: Int, isClean: Bool) {
        var scanner = RecordScanner(dialect: dialect)
        var first = 0
        bytes.withUnsafeBytes { buffer in
            scanner.scan(buffer) { _, _, records, fields in
                if records == 1 && first == 0 { first = fields }
            }
        }
        if first == 0 {
            scanner.finish()
            first = scanner.widestRecord
        }
        return (first, scanner.problemCount == 0)
    }

    /// The bytes of `line` up to its first `delimiter`.
    private static func firstField(of line: ArraySlice<UInt8>, delimiter: UInt8) -> ArraySlice<UInt8> {
        line[..<(line.firstIndex(of: delimiter) ?? line.endIndex)]
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

    /// The index just past the terminator that starts at `end` (LF, CR or CRLF).
    static func lineEnd(_ bytes: ArraySlice<UInt8>, from end: Int) -> Int {
        guard end < bytes.endIndex else { return end }
        if bytes[end] == 0x0D, end + 1 < bytes.endIndex, bytes[end + 1] == 0x0A { return end + 2 }
        return end + 1
    }
}
