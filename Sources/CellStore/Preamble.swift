/// Lines before the header that are not part of the table (titles, `# exported …` notes).
package enum PreambleRule: Sendable, Equatable {
    /// No preamble: the first line is the header.
    case none
    /// Leading lines that start with `#` are the preamble.
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

    /// Where the last line of `lines` (a preamble, each line ended) starts.
    static func lastLineStart(_ lines: ArraySlice<UInt8>) -> Int? {
        guard !lines.isEmpty else { return nil }
        var index = lines.endIndex
        // Step back over the last line's terminator (LF, CR or CRLF), then to the line before.
        if index > lines.startIndex && lines[index - 1] == 0x0A { index -= 1 }
        if index > lines.startIndex && lines[index - 1] == 0x0D { index -= 1 }
        while index > lines.startIndex && lines[index - 1] != 0x0A && lines[index - 1] != 0x0D { index -= 1 }
        return index
    }

    /// True when a `#` line reads as the table's first record: it splits cleanly into as
    /// many fields (more than one) as the record after it, read with the table's dialect,
    /// and its `#` is not followed by a blank (`# by ops, 2024` is a note; `#id,name` a header).
    static func looksLikeFirstRecord(_ line: ArraySlice<UInt8>, before rest: ArraySlice<UInt8>, dialect: Dialect) -> Bool {
        if line.count > 1, [0x20, 0x09, UInt8(ascii: "#"), UInt8(ascii: "!")].contains(line[line.startIndex + 1]) { return false }
        var problems = 0
        func fieldsOfFirstRecord(_ bytes: ArraySlice<UInt8>) -> Int {
            var scanner = RecordScanner(dialect: dialect)
            defer { problems += scanner.problemCount }
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
            return first
        }
        let fields = fieldsOfFirstRecord(line)
        guard fields > 1, problems == 0 else { return false }
        return fields == fieldsOfFirstRecord(rest)
    }

    /// The index just past the terminator that starts at `end` (LF, CR or CRLF).
    static func lineEnd(_ bytes: ArraySlice<UInt8>, from end: Int) -> Int {
        guard end < bytes.endIndex else { return end }
        if bytes[end] == 0x0D, end + 1 < bytes.endIndex, bytes[end + 1] == 0x0A { return end + 2 }
        return end + 1
    }
}
