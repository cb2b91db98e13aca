#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import Synchronization

/// What a search looks for: a regular expression (POSIX extended, as `grep -E` reads it),
/// with smart case (case-insensitive unless the pattern has a capital letter), in every
/// column or in one.
public struct SearchPattern: Sendable, Equatable {
    public var text: String
    /// Only this column, or every column when nil.
    public var column: Int?

    /// True when the pattern has no capital letter, so case does not matter.
    var ignoresCase: Bool { !text.contains { $0.isUppercase } }

    /// True when the pattern has nothing a regular expression treats specially: it is then
    /// searched as plain bytes, which is much faster.
    var isLiteral: Bool { !text.contains { "\\^$.|?*+()[]{}".contains($0) } }

    /// A matcher for cells; nil when the pattern is not a valid regular expression.
    func matcher() -> CellMatcher? {
        // Bytes fold case only for ASCII; otherwise the C library's regex folds by locale.
        if isLiteral && (!ignoresCase || text.allSatisfy(\.isASCII)) {
            let needle = Array((ignoresCase ? text.lowercased() : text).utf8)
            return needle.isEmpty ? nil : .literal(needle, ignoresCase: ignoresCase)
        }
        guard let regex = POSIXRegex(text, ignoresCase: ignoresCase) else { return nil }
        let required = requiredLiteral.flatMap { literal -> [UInt8]? in
            // Case folding is done byte by byte: only for ASCII.
            if ignoresCase && !literal.allSatisfy(\.isASCII) { return nil }
            return Array((ignoresCase ? literal.lowercased() : literal).utf8)
        }
        return .regex(regex, required: required, ignoresCase: ignoresCase)
    }

    /// The longest stretch of plain characters every match must contain (at least two),
    /// so most rows are ruled out by a byte search before the regular expression runs.
    /// Only for patterns without alternation or groups, where that is sure to hold.
    var requiredLiteral: String? {
        guard !text.contains(where: { "|()".contains($0) }) else { return nil }
        var best = "", run = ""
        let characters = Array(text)
        var index = 0
        func end() {
            if run.count > best.count { best = run }
            run = ""
        }
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "[":
                end()
                // Skip the bracket expression (a ] right after [ or [^ is literal).
                index += 1
                if index < characters.count && characters[index] == "^" { index += 1 }
                if index < characters.count && characters[index] == "]" { index += 1 }
                while index < characters.count && characters[index] != "]" { index += 1 }
                index += 1
                // A quantifier after it applies to it, not to what follows.
                if index < characters.count && "?*+{".contains(characters[index]) { index = skipQuantifier(characters, index) }
                continue
            case "\\":
                end()
                index += 2
                continue
            case ".", "^", "$":
                end()
            case "?", "*", "{", "+":
                end()
                index = skipQuantifier(characters, index)
                continue
            default:
                if let next, "?*{".contains(next) {
                    // Optional (or possibly absent) character: not required.
                    end()
                } else if next == "+" {
                    run.append(character)
                    end()
                } else {
                    run.append(character)
                }
            }
            index += 1
        }
        end()
        return best.count >= 2 ? best : nil
    }

    private func skipQuantifier(_ characters: [Character], _ start: Int) -> Int {
        var index = start
        if characters[index] == "{" {
            while index < characters.count && characters[index] != "}" { index += 1 }
        }
        return index + 1
    }
}

/// Tests a cell against a pattern.
enum CellMatcher {
    case literal([UInt8], ignoresCase: Bool)
    case regex(POSIXRegex, required: [UInt8]?, ignoresCase: Bool)

    func matches(_ bytes: ArraySlice<UInt8>) -> Bool {
        switch self {
        case .literal(let needle, let ignoresCase):
            guard bytes.count >= needle.count else { return false }
            let first = needle[0]
            var index = bytes.startIndex
            let last = bytes.endIndex - needle.count
            while index <= last {
                let byte = ignoresCase ? CellMatcher.lower(bytes[index]) : bytes[index]
                if byte == first {
                    var offset = 1
                    while offset < needle.count {
                        let candidate = ignoresCase ? CellMatcher.lower(bytes[index + offset]) : bytes[index + offset]
                        if candidate != needle[offset] { break }
                        offset += 1
                    }
                    if offset == needle.count { return true }
                }
                index += 1
            }
            return false
        case .regex(let regex, let required, let ignoresCase):
            if let required, !CellMatcher.literal(required, ignoresCase: ignoresCase).matches(bytes) { return false }
            return regex.matches(bytes)
        }
    }

    /// False when no cell of `row` can match: a quick test over the whole row first.
    func mayMatch(_ row: Row) -> Bool {
        switch self {
        case .literal: return matches(row.bytes[...])
        case .regex(_, let required, let ignoresCase):
            guard let required else { return true }
            return CellMatcher.literal(required, ignoresCase: ignoresCase).matches(row.bytes[...])
        }
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }
}

/// A compiled POSIX extended regular expression (the C library's, which runs a DFA: an
/// order of magnitude faster here than Swift's `Regex`). Each thread compiles its own.
final class POSIXRegex {
    private var compiled = regex_t()

    init?(_ pattern: String, ignoresCase: Bool) {
        let flags = REG_EXTENDED | REG_NOSUB | (ignoresCase ? REG_ICASE : 0)
        guard regcomp(&compiled, pattern, flags) == 0 else { return nil }
    }

    deinit { regfree(&compiled) }

    /// True when the pattern matches somewhere in `bytes` (read in place: no copy, NUL
    /// bytes allowed).
    func matches(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var range = regmatch_t(rm_so: 0, rm_eo: regoff_t(buffer.count))
            let empty: UInt8 = 0
            return withUnsafePointer(to: empty) { fallback in
                let start = buffer.baseAddress ?? fallback
                return start.withMemoryRebound(to: CChar.self, capacity: max(1, buffer.count)) {
                    regexec(&compiled, $0, 1, &range, REG_STARTEND) == 0
                }
            }
        }
    }
}

/// A search running on a thread of its own over the records known when it started.
///
/// Forward, it looks after the cursor's cell to the end, then wraps to the first data row;
/// backward, it finds the last match before the cursor, else wraps to the last one after.
/// It publishes progress and its result behind a `Mutex` and wakes the event loop.
final class Searcher: Sendable {
    struct Found: Sendable, Equatable {
        var row: Int
        var column: Int
        var wrapped: Bool
    }

    enum Outcome: Sendable, Equatable {
        case running(scanned: Int, total: Int)
        case found(Found)
        case notFound
        case invalidPattern
        case cancelled
    }

    let pattern: SearchPattern
    let forward: Bool
    private let state = Mutex<Outcome>(.running(scanned: 0, total: 0))
    private let isCancelled = Atomic<Bool>(false)

    init(pattern: SearchPattern, forward: Bool) {
        self.pattern = pattern
        self.forward = forward
    }

    var outcome: Outcome { state.withLock { $0 } }

    func cancel() { isCancelled.store(true, ordering: .relaxed) }

    /// Starts from data row `row`, column `column`, over `rows` data rows after `headerRows`.
    func start(reader: RecordReader, headerRows: Int, rows: Int, row: Int, column: Int, wake: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            let result = run(reader: reader, headerRows: headerRows, rows: rows, row: row, column: column, wake: wake)
            state.withLock { $0 = result }
            wake()
        }
        thread.name = "csvfreeze search"
        thread.start()
    }

    private func run(reader: RecordReader, headerRows: Int, rows: Int, row cursorRow: Int, column cursorColumn: Int,
                     wake: @escaping @Sendable () -> Void) -> Outcome {
        guard let matcher = pattern.matcher() else { return .invalidPattern }
        var scanned = 0
        var lastReport = 0
        /// The first matching column of a row, after `after` (or any when nil).
        func match(_ row: Row, after: Int?, before: Int?) -> Int? {
            guard matcher.mayMatch(row) else { return nil }
            let columns: [Int] = pattern.column.map { [$0] } ?? Array(0..<row.count)
            if forward {
                return columns.first { column in
                    (after.map { column > $0 } ?? true) && (before.map { column < $0 } ?? true) && matcher.matches(row.field(column))
                }
            }
            return columns.last { column in
                (after.map { column > $0 } ?? true) && (before.map { column < $0 } ?? true) && matcher.matches(row.field(column))
            }
        }
        func progress() -> Bool {
            scanned += 1
            if scanned - lastReport >= 20_000 {
                lastReport = scanned
                state.withLock { $0 = .running(scanned: scanned, total: rows) }
                wake()
            }
            return !isCancelled.load(ordering: .relaxed)
        }
        var found: Found?
        if forward {
            // From the cursor to the end, then from the top to the cursor.
            reader.forEachRecord(from: headerRows + cursorRow) { number, row in
                guard progress() else { return false }
                let dataRow = number - headerRows
                if dataRow >= rows { return false }
                if let column = match(row, after: dataRow == cursorRow ? cursorColumn : nil, before: nil) {
                    found = Found(row: dataRow, column: column, wrapped: false)
                    return false
                }
                return true
            }
            if found == nil && !isCancelled.load(ordering: .relaxed) {
                reader.forEachRecord(from: headerRows) { number, row in
                    guard progress() else { return false }
                    let dataRow = number - headerRows
                    if dataRow > cursorRow { return false }
                    if let column = match(row, after: nil, before: dataRow == cursorRow ? cursorColumn + 1 : nil) {
                        found = Found(row: dataRow, column: column, wrapped: true)
                        return false
                    }
                    return true
                }
            }
        } else {
            // The last match before the cursor; else the last one after it (wrapping).
            reader.forEachRecord(from: headerRows) { number, row in
                guard progress() else { return false }
                let dataRow = number - headerRows
                if dataRow > cursorRow { return false }
                if let column = match(row, after: nil, before: dataRow == cursorRow ? cursorColumn : nil) {
                    found = Found(row: dataRow, column: column, wrapped: false)
                }
                return true
            }
            if found == nil && !isCancelled.load(ordering: .relaxed) {
                reader.forEachRecord(from: headerRows + cursorRow) { number, row in
                    guard progress() else { return false }
                    let dataRow = number - headerRows
                    if dataRow >= rows { return false }
                    if let column = match(row, after: dataRow == cursorRow ? cursorColumn - 1 : nil, before: nil) {
                        found = Found(row: dataRow, column: column, wrapped: true)
                    }
                    return true
                }
            }
        }
        if isCancelled.load(ordering: .relaxed) { return .cancelled }
        return found.map(Outcome.found) ?? .notFound
    }
}
