/// Lines before the header that are not part of the table (titles, `# exported …` notes).
package enum PreambleRule: Sendable, Equatable {
    /// No preamble: the first line is the header.
    case none
    /// Leading lines that start with `#` and read as comments are the preamble (see
    /// `tableStart(in:candidatesEnd:dialect:)`).
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

    /// The index just past the terminator that starts at `end` (LF, CR or CRLF).
    static func lineEnd(_ bytes: ArraySlice<UInt8>, from end: Int) -> Int {
        guard end < bytes.endIndex else { return end }
        if bytes[end] == 0x0D, end + 1 < bytes.endIndex, bytes[end + 1] == 0x0A { return end + 2 }
        return end + 1
    }
}
