import CellStore
import Foundation
import Scan

/// Differential runs of `CellSearch` against the plain path (every record parsed, every
/// cell matched), over generated hostile inputs and patterns: for the tests and the
/// benchmark's longer randomized run.
package enum SearchFuzz {
    /// Bytes of values that tempt a raw-byte search to go wrong.
    static let values: [[UInt8]] = [
        "a", "ab", "b", "é", "É", "zü", "ZÜ", "Oslo", "oslo Fjord", "\"", "\"\"", "a\"b", ",", ";", "|", "\t", " ",
        "\n", "\r\n", "\r", "x\ny", "'", "''", "中",
    ].map { Array($0.utf8) } + [[0xFF], [0xC3], [0xC3, 0xA9], [0xE4, 0xB8]]

    /// Pieces of patterns, put together at random (the invalid ones are skipped).
    static let patternPieces: [String] = [
        "a", "b", "é", "zü", "Oslo", "o", "\"", "'", ".", "^", "$", "\\b", "\\B", "[^,]", "[\",]", "[a-z]", "[!-#]",
        "+", "*", "?", "{2}", "|", "(", ")", "(?:", "(?=", "(?<=", "(?!", ",", ";", "\\n", "\\r", "\\s", "\\W", "\\w",
        "\\x22", "\\\"", "[[:punct:]]", "\\p{L}", "(a)\\1", "\\Q\"\\E", "(?i)", "x", "ab", "\\t", "[\"]", "\\N", "\\z",
        "(?-i)", "(?i:", "A",
    ]

    /// A random input: well quoted (each value quoted when it must be, sometimes when not),
    /// or raw pieces with malformed quoting.
    package static func input(_ generator: inout SeededGenerator, delimiter: UInt8, quote: UInt8) -> [UInt8] {
        let wellQuoted = generator.next() % 3 != 0
        var bytes: [UInt8] = []
        let records = Int(generator.next() % 40)
        for _ in 0..<records {
            let cells = 1 + Int(generator.next() % 5)
            for cell in 0..<cells {
                if cell > 0 { bytes.append(delimiter) }
                var value: [UInt8] = []
                for _ in 0..<Int(generator.next() % 4) {
                    value += values[Int(generator.next() % UInt64(values.count))].map { $0 == 0x22 ? quote : $0 }
                }
                if wellQuoted {
                    let needs = value.contains { $0 == delimiter || $0 == quote || $0 == 0x0A || $0 == 0x0D }
                    if needs || generator.next() % 4 == 0 {
                        bytes.append(quote)
                        for byte in value {
                            bytes.append(byte)
                            if byte == quote { bytes.append(quote) }
                        }
                        bytes.append(quote)
                    } else {
                        bytes += value
                    }
                } else {
                    bytes += value
                }
            }
            let endings: [[UInt8]] = [[0x0A], [0x0D, 0x0A], [0x0D]]
            if generator.next() % 8 != 0 { bytes += endings[Int(generator.next() % 3)] }
        }
        // A byte-order mark would be skipped by the store but not by the plain parser.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return bytes
    }

    /// A random pattern that PCRE2 accepts.
    package static func pattern(_ generator: inout SeededGenerator, quote: UInt8) -> CompiledPattern {
        while true {
            var text = ""
            for _ in 0..<(1 + Int(generator.next() % 5)) {
                text += patternPieces[Int(generator.next() % UInt64(patternPieces.count))]
            }
            if quote != 0x22 { text = text.replacingOccurrences(of: "\"", with: String(UnicodeScalar(quote))) }
            if let compiled = try? SearchPattern(text: text).compile() { return compiled }
        }
    }

    /// One differential run; a description of the first difference, or nil when the fast
    /// path agrees with the plain one (every record, and first/last hits in random ranges).
    package static func check(seed: UInt64) -> String? {
        var generator = SeededGenerator(seed: seed)
        let delimiter = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")][Int(generator.next() % 4)]
        let quote = generator.next() % 4 == 0 ? UInt8(ascii: "'") : UInt8(ascii: "\"")
        let bytes = input(&generator, delimiter: delimiter, quote: quote)
        let compiled = pattern(&generator, quote: quote)
        let column: Int? = generator.next() % 4 == 0 ? Int(generator.next() % 3) : nil
        let store = CellStore(bytes: bytes, delimiter: delimiter, quote: quote, checkpointSpacing: Int64(1 + generator.next() % 64))
        guard let dialect = store.dialect, var input = ScanInput(store: store), let reader = store.recordReader() else { return nil }
        // Sometimes as if the index had reached only a checkpoint (an input still loading):
        // records before it are searched raw, those after are not searched.
        var searched = Int.max
        if generator.next() % 3 == 0 {
            let last = Int(generator.next() % UInt64(reader.checkpoints.count))
            let end = min(Int64(bytes.count), reader.checkpoints[last].offset + Int64(generator.next() % 64))
            input = ScanInput(reader: RecordReader(reader, asIfIndexedTo: last, end: end), progress: LoadProgress())
            searched = reader.checkpoints[last].row
        }
        var search = CellSearch(input: input, pattern: compiled, column: column)
        search.pieceLimit = Int64(16 + generator.next() % 200)
        search.workers = 1 + Int(generator.next() % 2)
        search.minimumSharedBytes = 0

        // The plain path: every record parsed, every cell matched.
        let matcher = PatternMatcher(compiled)
        let records = Array(((try? RecordParser.records(in: bytes, dialect: dialect)) ?? []).prefix(searched))
        var expected: [(Int, [Int])] = []
        for (number, row) in records.enumerated() {
            let columns = column.map { matcher.matches(row.field($0)) ? [$0] : [] }
                ?? (0..<row.count).filter { matcher.matches(row.field($0)) }
            if !columns.isEmpty { expected.append((number, columns)) }
        }
        let context = "pattern \(compiled.text) column \(column.map(String.init) ?? "any") raw \(search.searchesRawBytes) in \(bytes)"
        var actual: [(Int, [Int])] = []
        search.forEachMatch(in: 0..<records.count, control: ScanControl()) { actual.append(($0, $1)); return true }
        if actual.map(\.0) != expected.map(\.0) || actual.map(\.1) != expected.map(\.1) {
            return "records \(actual.map(\.0)) instead of \(expected.map(\.0)): \(context)"
        }
        for _ in 0..<4 {
            let a = Int(generator.next() % UInt64(records.count + 1)), b = Int(generator.next() % UInt64(records.count + 1))
            let range = min(a, b)..<max(a, b)
            let inRange = expected.filter { range.contains($0.0) }
            for forward in [true, false] {
                let hit = search.find(in: range, forward: forward, control: ScanControl()) { _, columns in columns.last }
                let want = (forward ? inRange.first : inRange.last).map { CellSearch.Hit(record: $0.0, column: $0.1.last!) }
                if hit != want {
                    return "\(forward ? "first" : "last") in \(range): \(String(describing: hit)) instead of \(String(describing: want)): \(context)"
                }
            }
        }
        return nil
    }
}
