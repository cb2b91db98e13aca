import CJSON
import Synchronization

/// How JSON input becomes CSV records as it is read (see `JSONStage`).
package enum JSONMode: Sendable, Equatable {
    /// One JSON value per line.
    case lines
    /// One array of values.
    case array
    /// Not known yet (a stream whose first non-blank byte is `{`): JSON lines when its
    /// first line is one JSON object, else the bytes pass as they are (CSV).
    case detect
}

/// What a JSON input's conversion found so far, read by any thread: the screen's status
/// line and column names, an output's closing note.
package final class JSONReport: Sendable {
    package struct State: Sendable, Equatable {
        /// True once the input is known to be JSON (false: it was CSV after all).
        package var isJSON: Bool?
        /// Columns the header names (the keys met in the first records).
        package var headerCount = 0
        /// Keys met after the header was written: the columns after the header's.
        package var lateNames: [String] = []
        package var records: Int64 = 0
        package var notObjects: Int64 = 0
        package var firstNotObjectLine: Int64 = 0
        package var invalidUTF8: Int64 = 0
        package var firstInvalidUTF8Line: Int64 = 0
        package var duplicates: Int64 = 0
        package var firstDuplicateLine: Int64 = 0
        package var keptStrings: Int64 = 0
        package var firstKeptStringLine: Int64 = 0
        package var droppedKeys: Int64 = 0
        package var firstDroppedKeyLine: Int64 = 0
        /// Array elements with nothing in them (a stray comma): no record made.
        package var emptyElements: Int64 = 0
        package var firstEmptyElementLine: Int64 = 0
        /// Where a JSON array broke off (byte and line from 1), or text after its end.
        package var brokenByte: Int64 = 0
        package var brokenLine: Int64 = 0
        package var trailingByte: Int64 = 0
        /// A JSON array that did not start with `[`.
        package var notArrayByte: Int32 = -1
        /// True once the whole input is converted.
        package var isComplete = false
        /// What each column's values were (`CJSON_KIND_*` bits, OR-ed over the records).
        package var kinds: [UInt8] = []
        /// Data records (from 0) shown whole in the first column, in order: the first
        /// `JSONReport.markLimit` (the grid marks them).
        package var wholeRecords: [Int64] = []
        /// Keys an object named more than once, in record order: the first `markLimit`
        /// (the record view says so).
        package var repeatedKeys: [RepeatedKey] = []
    }

    /// A key one object named `times` times (the last value is the one shown).
    package struct RepeatedKey: Sendable, Equatable {
        /// The data record, from 0.
        package var record: Int64
        package var column: Int
        package var times: Int
    }

    /// Records shown whole, and repeated keys, that are noted (past it: counted only).
    package static let markLimit = 65_536

    private let state: Mutex<State>
    /// Lines or an array (`.detect`: lines, if JSON at all).
    package let mode: JSONMode

    package init(mode: JSONMode) {
        self.mode = mode
        state = Mutex(State(isJSON: mode == .detect ? nil : true))
    }

    package var current: State { state.withLock { $0 } }

    func update(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }

    /// True once the input is known to be JSON.
    package var isJSON: Bool { state.withLock { $0.isJSON == true } }

    /// True when data record `record` (from 0) was shown whole in the first column: not a
    /// JSON object, or not UTF-8 (among the first `markLimit` such records).
    package func isWhole(record: Int) -> Bool {
        state.withLock { state in
            let records = state.wholeRecords
            var low = 0, high = records.count
            while low < high {
                let middle = (low + high) / 2
                if records[middle] < Int64(record) { low = middle + 1 } else { high = middle }
            }
            return low < records.count && records[low] == Int64(record)
        }
    }

    /// The keys data record `record` (from 0) named more than once: column and times.
    package func repeatedKeys(record: Int) -> [(column: Int, times: Int)] {
        state.withLock { state in
            let keys = state.repeatedKeys
            var low = 0, high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle].record < Int64(record) { low = middle + 1 } else { high = middle }
            }
            var found: [(column: Int, times: Int)] = []
            while low < keys.count && keys[low].record == Int64(record) {
                found.append((keys[low].column, keys[low].times))
                low += 1
            }
            return found
        }
    }

    /// The status line's note: where a record was not an object, a key repeated, a string
    /// was kept as written, an array broke off, and how many columns came late. Nil when
    /// there is nothing to say.
    package var note: String? { JSONReport.note(current) }

    /// Where a JSON array broke off (or did not start), or text after its end that was left
    /// out, once converted; nil when whole. (An output says it and exits 1.)
    package var breakNote: String? {
        let state = current
        if state.brokenByte > 0 {
            return "JSON array broken at line \(JSONReport.grouped(state.brokenLine)) (byte \(JSONReport.grouped(state.brokenByte)))"
        }
        if state.notArrayByte >= 0 { return "not a JSON array" }
        if state.trailingByte > 0 { return "text after the JSON array's end (byte \(JSONReport.grouped(state.trailingByte))) left out" }
        return nil
    }

    static func grouped(_ value: Int64) -> String { PackedDamage.grouped(value) }

    package static func note(_ state: State) -> String? {
        guard state.isJSON == true else { return nil }
        var parts: [String] = []
        if state.brokenByte > 0 {
            parts.append("JSON array broken at line \(grouped(state.brokenLine)) (byte \(grouped(state.brokenByte))): the records before it are shown")
        } else if state.trailingByte > 0 {
            parts.append("text after the JSON array's end (byte \(grouped(state.trailingByte))) left out")
        }
        if state.notArrayByte >= 0 {
            parts.append("not a JSON array: it starts with '\(String(UnicodeScalar(UInt8(truncatingIfNeeded: state.notArrayByte))))'")
        }
        /// "line N…" for `count` lines alike, the first of them N, and how many more.
        func lines(_ count: Int64, first: Int64, _ what: String) {
            guard count > 0 else { return }
            parts.append("line \(grouped(first))\(what)" + (count > 1 ? " (+\(grouped(count - 1)) more)" : ""))
        }
        lines(state.notObjects, first: state.firstNotObjectLine, " is not a JSON object: shown whole in the first column, marked !")
        lines(state.invalidUTF8, first: state.firstInvalidUTF8Line, " is not valid UTF-8: shown whole in the first column, marked !")
        lines(state.keptStrings, first: state.firstKeptStringLine, ": a string with a lone surrogate, kept as written")
        lines(state.duplicates, first: state.firstDuplicateLine, " repeats a key: the last value kept")
        lines(state.emptyElements, first: state.firstEmptyElementLine, ": a comma with no array element after it, no record made")
        if state.droppedKeys > 0 {
            parts.append("line \(grouped(state.firstDroppedKeyLine)): keys past \(grouped(Int64(JSONStage.maxColumns))) columns left out")
        }
        if !state.lateNames.isEmpty {
            let count = state.lateNames.count
            parts.append("\(grouped(Int64(count))) column\(count == 1 ? "" : "s") found late")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// How each column's cells are written as JSON values, from what its values were: a
    /// column that held a string (or a record shown whole) writes strings; one of numbers,
    /// true/false, nested values and nulls only writes each cell as it is (bare), an empty
    /// one as null. (`ValueType.number` is what writes a cell bare.)
    package var valueTypes: [ValueType] {
        current.kinds.map { kind in
            kind & UInt8(CJSON_KIND_STRING | CJSON_KIND_TEXT) != 0 || kind == 0 ? .text : .number
        }
    }

    /// `header` with the names of the columns found after it was written.
    package func extending(header row: Row) -> Row {
        let state = current
        guard !state.lateNames.isEmpty else { return row }
        var extended = row
        let cells = row.ends.count
        // Columns the header names, then empty cells up to the first late column (a header
        // with fewer cells than it named cannot be: it is written whole).
        for _ in cells..<max(cells, state.headerCount) { extended.ends.append(extended.bytes.count) }
        for (index, name) in state.lateNames.enumerated() where state.headerCount + index >= cells {
            extended.bytes.append(contentsOf: name.utf8)
            extended.ends.append(extended.bytes.count)
        }
        return extended
    }
}

/// Before the process exits while inputs may still be converted (a refused query, the viewer
/// quit early): calls into simdjson under way finish, later ones wait for the end, so exit's
/// destruction of simdjson's static objects never runs under a converter ("pure virtual
/// method called", an abort after the last word). Idempotent.
package func prepareForExit() {
    cjson_close_for_exit()
}

/// Turns JSON lines or a JSON array into CSV records as its bytes pass, chunk by chunk: the
/// converter stage of the decode pipeline (after decompression and conversion to UTF-8),
/// so the CSV store indexes the records while they arrive. simdjson parses each record.
/// Used by one thread; what it found is published in `report`.
final class JSONStage {
    /// Records (or input bytes) read before the header is written: its columns are the
    /// keys met in them.
    static let windowRecords = 1_000
    static let windowBytes = 256 << 10
    /// Columns at most: keys past it are left out and said.
    package static let maxColumns = 131_072
    /// How much of a stream is looked at to decide whether it is JSON lines.
    static let detectLimit = 1 << 16

    private var mode: JSONMode
    private var converter: OpaquePointer?
    private var held: [UInt8] = []
    let report: JSONReport
    private var publishedColumns = 0
    private var publishedWhole = 0
    private var publishedRepeats = 0
    /// True once a stream looked at turned out not to be JSON: its bytes pass as they are.
    private(set) var passesThrough = false

    /// For the tests: every key and string decoded by simdjson, as before the converter's
    /// shortcuts (`cjson_set_reference`); the CSV made must be the same.
    private let decodesEveryString: Bool

    init(_ mode: JSONMode, report: JSONReport, decodesEveryString: Bool = false) {
        self.mode = mode
        self.report = report
        self.decodesEveryString = decodesEveryString
        if mode != .detect { start(mode) }
    }

    deinit {
        if let converter { cjson_free(converter) }
    }

    private func start(_ mode: JSONMode) {
        self.mode = mode
        converter = cjson_new(mode == .array ? Int32(CJSON_ARRAY) : Int32(CJSON_LINES), JSONStage.windowRecords,
                              JSONStage.windowBytes, JSONStage.maxColumns)
        if decodesEveryString, let converter { cjson_set_reference(converter, 1) }
        report.update { $0.isJSON = true }
    }

    /// The CSV for `bytes`, which follow those passed before; `isLast`: none follow.
    func pass(_ bytes: [UInt8], isLast: Bool) -> [UInt8] {
        if passesThrough { return bytes }
        if mode == .detect {
            held.append(contentsOf: bytes)
            guard let decided = JSONStage.decide(held, isWhole: isLast) else { return [] }
            let input = held
            held = []
            if decided == .lines {
                start(.lines)
                return pass(input, isLast: isLast)
            }
            report.update { $0.isJSON = false }
            passesThrough = true
            return input
        }
        guard let converter else { return bytes }
        let failed = bytes.withUnsafeBufferPointer { cjson_feed(converter, $0.baseAddress, $0.count, isLast ? 1 : 0) } != 0
        var count = 0
        let output = cjson_output(converter, &count)
        let made = output.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        cjson_clear_output(converter)
        publish(isLast: isLast || failed)
        return made
    }

    /// The CSV of records held back for the header, with the header: a followed file has
    /// reached its end for now, and what it holds is to be shown.
    func flush() -> [UInt8] {
        guard let converter, !passesThrough else { return [] }
        cjson_flush(converter)
        var count = 0
        let output = cjson_output(converter, &count)
        let made = output.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        cjson_clear_output(converter)
        publish(isLast: false)
        return made
    }

    /// Copies what the converter found into `report`.
    private func publish(isLast: Bool) {
        guard let converter else { return }
        var facts = cjson_facts()
        cjson_get_facts(converter, &facts)
        let columns = cjson_column_count(converter)
        let header = cjson_header_count(converter)
        var late: [String] = []
        let headerWritten = header > 0 || columns == 0
        if headerWritten && columns > max(header, publishedColumns) {
            for index in max(header, publishedColumns)..<columns {
                var length = 0
                let name = cjson_column_name(converter, index, &length)
                late.append(name.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? "")
            }
            publishedColumns = columns
        }
        var kinds = [UInt8](repeating: 0, count: columns + 1)
        let known = kinds.withUnsafeMutableBufferPointer { cjson_column_kinds(converter, $0.baseAddress, $0.count) }
        kinds.removeLast(kinds.count - min(known, kinds.count))
        let whole = JSONStage.newer(from: publishedWhole, Int64(0)) { cjson_whole_records(converter, $0, $1, $2) }
        publishedWhole += whole.count
        let repeats = JSONStage.newer(from: publishedRepeats, cjson_duplicate()) { cjson_duplicate_keys(converter, $0, $1, $2) }
        publishedRepeats += repeats.count
        report.update { state in
            state.wholeRecords.append(contentsOf: whole)
            state.repeatedKeys.append(contentsOf: repeats.map {
                JSONReport.RepeatedKey(record: $0.record, column: Int($0.column), times: Int($0.times))
            })
            state.kinds = kinds
            state.headerCount = header
            state.lateNames.append(contentsOf: late)
            state.records = facts.records
            state.notObjects = facts.not_objects
            state.firstNotObjectLine = facts.first_not_object_line
            state.invalidUTF8 = facts.invalid_utf8
            state.firstInvalidUTF8Line = facts.first_invalid_utf8_line
            state.duplicates = facts.duplicates
            state.firstDuplicateLine = facts.first_duplicate_line
            state.keptStrings = facts.kept_strings
            state.firstKeptStringLine = facts.first_kept_string_line
            state.droppedKeys = facts.dropped_keys
            state.firstDroppedKeyLine = facts.first_dropped_key_line
            state.emptyElements = facts.empty_elements
            state.firstEmptyElementLine = facts.first_empty_element_line
            state.brokenByte = facts.broken_byte
            state.brokenLine = facts.broken_line
            state.trailingByte = facts.trailing_byte
            state.notArrayByte = facts.not_array_byte
            if isLast { state.isComplete = true }
        }
    }

    /// The entries a converter list holds past the first `from` (`copy(from, into, count)`
    /// copies and returns how many it holds).
    private static func newer<Element>(from: Int, _ blank: Element,
                                       _ copy: (Int, UnsafeMutablePointer<Element>?, Int) -> Int) -> [Element] {
        let known = copy(from, nil, 0)
        guard known > from else { return [] }
        var entries = [Element](repeating: blank, count: known - from)
        _ = entries.withUnsafeMutableBufferPointer { copy(from, $0.baseAddress, $0.count) }
        return entries
    }

    /// Whether a stream starting with `bytes` is JSON lines (`.lines`), not JSON (`.detect`
    /// returned: pass it as it is), or nil: not known until more bytes come. JSON lines when
    /// the first non-blank byte is `{` and the first line is one JSON object.
    static func decide(_ bytes: [UInt8], isWhole: Bool) -> JSONMode? {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { return isWhole || bytes.count >= detectLimit ? .detect : nil }
        guard bytes[start] == UInt8(ascii: "{") else { return .detect }
        guard let end = bytes[start...].firstIndex(of: 0x0A) else {
            if !isWhole && bytes.count < detectLimit { return nil }
            return isObject(bytes[start...]) ? .lines : .detect
        }
        return isObject(bytes[start..<end]) ? .lines : .detect
    }

    /// True when `bytes` are one JSON object and nothing else (space around it aside).
    static func isObject(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { cjson_is_object($0.baseAddress, $0.count) } == 1
    }
}
