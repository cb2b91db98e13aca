import CellStore
@testable import Scan
import TestSupport
import Testing

@Suite("Cell search: raw bytes, confirmed on cells", .timeLimit(.minutes(30)))
struct CellSearchTests {
    func search(_ csv: String, _ pattern: String, column: Int? = nil, spacing: Int64 = 8) throws -> (CellSearch, Int) {
        let store = CellStore(bytes: Array(csv.utf8), checkpointSpacing: spacing)
        let input = try #require(ScanInput(store: store))
        var search = CellSearch(input: input, pattern: try SearchPattern(text: pattern, column: column).compile(), column: column)
        search.pieceLimit = 64
        return (search, store.rowCount)
    }

    func matches(_ csv: String, _ pattern: String, column: Int? = nil) throws -> [[Int]] {
        let (search, rows) = try search(csv, pattern, column: column)
        var found: [[Int]] = []
        search.forEachMatch(in: 0..<rows, control: ScanControl()) { record, columns in
            found.append([record] + columns)
            return true
        }
        return found
    }

    @Test("the cases a raw search gets wrong: quotes, cell edges, delimiters, line breaks")
    func hardCases() throws {
        let csv = "name,city\nAnn,Oslo\nBo,Oslo Fjord\n\"say \"\"hi\"\"\",\"x,\ny\"\nZÜRICH,\"Oslo\"\n"
        #expect(try matches(csv, "^Oslo$") == [[1, 1], [4, 1]])
        #expect(try matches(csv, "\"hi\"") == [[3, 0]])
        #expect(try matches(csv, "\"\"") == [])
        #expect(try matches(csv, "x,") == [[3, 1]])
        #expect(try matches(csv, ",\\ny") == [[3, 1]])
        #expect(try matches(csv, "Ann,Oslo") == [])
        #expect(try matches(csv, "n$") == [[1, 0]])
        #expect(try matches(csv, "zürich") == [[4, 0]])
        #expect(try matches(csv, "o", column: 0) == [[2, 0]])
        #expect(try matches(csv, ".\"$") == [[3, 0]])
    }

    @Test("a pattern the rewrite does not analyse still finds exactly the cells", arguments: [
        "(a)\\1", "\\Qx,\\E", "(?x)O S L O", "(?>Os)lo", "^$",
    ])
    func parsedPatterns(pattern: String) throws {
        let csv = "aa,x,\nOslo,\"x,\",b\n,\"\",oslo\n"
        let (search, rows) = try search(csv, pattern)
        let matcher = PatternMatcher(search.pattern)
        let expected = try RecordParser.records(in: Array(csv.utf8), dialect: Dialect()).enumerated().compactMap { number, row in
            let columns = (0..<row.count).filter { matcher.matches(row.field($0)) }
            return columns.isEmpty ? nil : [number] + columns
        }
        var found: [[Int]] = []
        search.forEachMatch(in: 0..<rows, control: ScanControl()) { found.append([$0] + $1); return true }
        #expect(found == expected)
    }

    @Test("which patterns run on raw bytes, and their rewrite", arguments: [
        ("abc", "abc"), ("^Oslo$", "Oslo"), ("a.b", "a(?:\\\"\\\"|.)b"), ("\"", "(?:\\\"\\\"|\\\")"), ("\\bcat\\b", "cat"),
        ("(?<=x)y(?!z)", "y"), ("[^,]+", "(?:\\\"\\\"|[^,])+"), ("[a-z]{2,}", "[a-z]{2,}"), ("\\d+\\W", "\\d+(?:\\\"\\\"|\\W)"),
        ("(?<n>ab)|c", "(?<n>ab)|c"), ("[!-#]", "(?:\\\"\\\"|[!-#])"), ("[^\"]", "[^\"]"), ("\\x22", "(?:\\\"\\\"|\\x22)"),
        ("(?i)Oslo", "(?i)Oslo"), ("(?-i:A)b", "(?-i:A)b"), ("(a)\\1", nil), ("a*+", nil), ("(?x)a", nil), ("(?s)a", nil), ("\\Qa\\E", nil), ("(?>a)", nil), ("\\K", nil), ("a{,2}", nil),
    ] as [(String, String?)])
    func rewrite(pattern: String, candidate: String?) {
        #expect(CandidatePattern.rewrite(pattern, quote: UInt8(ascii: "\"")) == candidate)
    }

    @Test("a cell's edges become what surrounds a value in raw bytes, for a candidate's record")
    func edges() {
        let edges = "[\\x{3b}\\x{a}\\x{d}\\x{22}]"
        #expect(CandidatePattern.rewrite("^Oslo$", quote: UInt8(ascii: "\""), delimiter: UInt8(ascii: ";"))
                == "(?:(?<=\(edges))|(?<![\\s\\S]))Oslo(?=\(edges)|(?![\\s\\S]))")
        #expect(CandidatePattern.rewrite("\\Aa|b\\Z", quote: UInt8(ascii: "\""), delimiter: 0xA7) == "a|b")
    }

    @Test("records after a quoting problem are parsed; those before are searched raw")
    func malformed() throws {
        // Text after a closing quote: the value may join bytes a quote separates.
        let csv = "a,b\nx,\"ab\"cd\nabcd,1\n"
        let found = try matches(csv, "bc")
        let matcher = PatternMatcher(try SearchPattern(text: "bc").compile())
        let rows = try RecordParser.records(in: Array(csv.utf8), dialect: Dialect())
        let expected = rows.enumerated().compactMap { number, row -> [Int]? in
            let columns = (0..<row.count).filter { matcher.matches(row.field($0)) }
            return columns.isEmpty ? nil : [number] + columns
        }
        #expect(found == expected)
    }

    @Test("on an input still loading, records after a quoting problem are parsed too")
    func malformedWhileLoading() throws {
        let csv = "a,b\nx,\"ab\"cd\nabcd,1\nzz,yy\nqq,rr\n"
        let store = CellStore(bytes: Array(csv.utf8), checkpointSpacing: 4)
        let reader = try #require(store.recordReader())
        let last = reader.checkpoints.count - 1
        let loading = ScanInput(reader: RecordReader(reader, asIfIndexedTo: last, end: reader.checkpoints[last].offset),
                                progress: LoadProgress())
        var search = CellSearch(input: loading, pattern: try SearchPattern(text: "bc").compile(), column: nil)
        search.pieceLimit = 64
        var found: [Int] = []
        search.forEachMatch(in: 0..<reader.checkpoints[last].row, control: ScanControl()) { record, _ in found.append(record); return true }
        #expect(found == [1, 2])
    }

    @Test("a cell longer than the parser keeps is matched whole, read from the input: past its first MiB, and $ at its true end",
          arguments: [4 << 20, 64])
    func clippedMatchedWhole(pieceLimit: Int64) throws {
        let limit = RecordParser.Limits().cell
        let long = String(repeating: "x", count: limit - 3) + "foo" + String(repeating: "y,\"", count: 10) + "MARK" + "z"
        let csv = "a,b\n1,\"\(long.replacingOccurrences(of: "\"", with: "\"\""))\",after\n2,foo\n"
        let store = CellStore(bytes: Array(csv.utf8), checkpointSpacing: 8)
        let input = try #require(ScanInput(store: store))
        for (pattern, column, expected) in [("foo$", nil, [2]), ("z$", nil, [1]), ("MARK", nil, [1]), ("y,\"y", 1, [1]),
                                            ("MARK", 0, []), ("^after$", nil, [1])] as [(String, Int?, [Int])] {
            var search = CellSearch(input: input, pattern: try SearchPattern(text: pattern, column: column).compile(), column: column)
            search.pieceLimit = pieceLimit
            var found: [Int] = []
            search.forEachMatch(in: 0..<store.rowCount, control: ScanControl()) { record, _ in found.append(record); return true }
            #expect(found == expected, "\(pattern) in column \(column.map(String.init) ?? "any")")
        }
    }

    @Test("pieces without a candidate are never parsed; a well-quoted file parses only the hit's record")
    func parsesOnlyCandidates() throws {
        var csv = "id,text,note\n"
        for index in 0..<3000 { csv += "\(index),\"hay, \"\"\(index)\"\"\",\(index == 2222 ? "^needle$" : "x")\n" }
        for (pattern, parses) in [("needle", 1), ("^\\^needle\\$$", 1), ("zzz", 0), ("\"2222\"", 1), ("^2222$", 1)] {
            var (search, rows) = try search(csv, pattern, spacing: 512)
            search.pieceLimit = 8192
            var found: [Int] = []
            let statistics = search.forEachMatch(in: 0..<rows, control: ScanControl()) { record, _ in found.append(record); return true }
            #expect(statistics == CellSearch.Statistics(recordParses: parses, piecesParsed: 0), "\(pattern)")
            #expect(found == (parses == 0 ? [] : [2223]), "\(pattern)")
        }
    }

    @Test("a match in a few records of a hundred is confirmed record by record; one in most records too, split without the parser")
    func manyCandidates() throws {
        var csv = "id,text\n"
        for index in 0..<3000 { csv += "\(index),\(index % 30 == 0 ? "Nairobi" : "hay \(index)")\n" }
        for (pattern, matches, parses) in [("Nairobi", 100, 100), ("hay|Nairobi", 3000, 3000)] {
            var (search, rows) = try search(csv, pattern, spacing: 1 << 20)
            search.pieceLimit = 1 << 20
            var found = 0
            let statistics = search.forEachMatch(in: 0..<rows, control: ScanControl()) { _, _ in found += 1; return true }
            #expect(found == matches, "\(pattern)")
            #expect(statistics == CellSearch.Statistics(recordParses: parses, piecesParsed: 0), "\(pattern)")
        }
    }

    @Test("forward and backward find the first and the last hit, on one thread or two", arguments: [1, 2])
    func directions(workers: Int) throws {
        var csv = "id,text\n"
        for index in 0..<2000 { csv += "\(index),\(index % 500 == 7 ? "needle \(index)" : "hay \(index)")\n" }
        var (search, rows) = try search(csv, "needle", spacing: 256)
        search.workers = workers
        search.minimumSharedBytes = 0
        let control = ScanControl()
        let first = search.find(in: 0..<rows, forward: true, control: control) { _, columns in columns.first }
        let last = search.find(in: 0..<rows, forward: false, control: control) { _, columns in columns.first }
        let before = search.find(in: 0..<1500, forward: false, control: control) { _, columns in columns.first }
        #expect(first == CellSearch.Hit(record: 8, column: 1))
        #expect(last == CellSearch.Hit(record: 1508, column: 1))
        #expect(before == CellSearch.Hit(record: 1008, column: 1))
        #expect(search.find(in: 9..<508, forward: true, control: control) { _, c in c.first } == nil)
        #expect(control.bytesDone > 0)
    }

    @Test("differential: the fast path against every cell parsed and matched, hostile inputs and patterns")
    func differential() {
        var failures: [String] = []
        for seed in 0..<3000 as Range<UInt64> {
            if let failure = SearchFuzz.check(seed: seed) { failures.append("seed \(seed): \(failure)") }
            if failures.count >= 3 { break }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
