import Foundation
import Testing
import TestSupport
@testable import CellStore

/// JSON lines and JSON arrays read as tables: against Python's json module's view of the
/// same fixtures (scripts/make-json-fixtures.py), in chunks of every size, compressed and
/// through a stream, and with hostile input.
@Suite("JSON input", .timeLimit(.minutes(30)))
struct JSONInputTests {
    static let directory = Fixtures.root.appendingPathComponent("json")
    static let names = ["nulls.jsonl", "roundtrip.jsonl", "basic.jsonl", "bom-crlf.jsonl", "array.json", "late.jsonl", "no-final-newline.ndjson"]

    static func expected(_ name: String) throws -> [[String]] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name + ".expected.json"))
        return try JSONDecoder().decode([[String]].self, from: data)
    }

    /// Every record of the store for `path`, once read whole.
    static func table(_ path: String) throws -> (rows: [[String]], store: CellStore) {
        let store = try CellStore.open(InputSpec(path: path))
        waitUntilComplete(store)
        return (allRows(of: store), store)
    }

    /// The CSV a converter makes of `bytes` fed `chunk` bytes at a time.
    static func converted(_ bytes: [UInt8], mode: JSONMode, chunk: Int) -> [UInt8] {
        let stage = JSONStage(mode, report: JSONReport(mode: mode))
        var output: [UInt8] = []
        var start = 0
        while start < bytes.count {
            output += stage.pass(Array(bytes[start..<min(bytes.count, start + chunk)]), isLast: false)
            start += chunk
        }
        return output + stage.pass([], isLast: true)
    }

    @Test("each fixture reads as Python's json module reads it", arguments: names)
    func fixture(name: String) throws {
        let (rows, store) = try Self.table(Self.directory.appendingPathComponent(name).path)
        #expect(rows == (try Self.expected(name)))
        #expect(store.jsonReport != nil)
        #expect(store.format == (name.hasSuffix(".json") ? .jsonArray : .jsonLines))
    }

    @Test("the CSV made is the same whatever the chunks the input comes in", arguments: names)
    func chunks(name: String) throws {
        let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
        let mode: JSONMode = name.hasSuffix(".json") ? .array : .lines
        let whole = Self.converted(bytes, mode: mode, chunk: bytes.count + 1)
        #expect(!whole.isEmpty)
        for chunk in [1, 2, 3, 7, 64, 1000] {
            #expect(Self.converted(bytes, mode: mode, chunk: chunk) == whole, "chunks of \(chunk)")
        }
    }

    @Test("compressed, and through a stream, the table is the same", arguments: names)
    func compressedAndStreamed(name: String) throws {
        let bytes = Array(try Data(contentsOf: Self.directory.appendingPathComponent(name)))
        let expected = try Self.expected(name)
        for (compression, suffix) in [(Compression.gzip, "gz"), (.zstd, "zst")] {
            let path = try Packed.file(try Packed.compress(bytes, compression), name: name + "." + suffix)
            #expect(try Self.table(path).rows == expected, "\(compression.name)")
        }
        // A FIFO is read as a stream: its name still says what it is.
        let fifo = try Packed.directory().appendingPathComponent("fifo-" + name).path
        unlink(fifo)
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread { try? Data(bytes).write(to: URL(fileURLWithPath: fifo)) }
        writer.start()
        #expect(try Self.table(fifo).rows == expected)
    }

    /// What Python's json module says beside the cells (NAME.marks.json).
    struct Marks: Decodable {
        /// Per data record, the header's columns that are null (or a key it lacks).
        var nulls: [[Int]]
        /// Data records that are not a JSON object.
        var whole: [Int]
        /// [record, column, times] for each key an object named more than once.
        var repeats: [[Int]]
    }

    @Test("null is told apart from \"\" (a key left out reads as null), records shown whole and repeated keys are noted",
          arguments: names)
    func marks(name: String) throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(name + ".marks.json"))
        let marks = try JSONDecoder().decode(Marks.self, from: data)
        let (rows, store) = try Self.table(Self.directory.appendingPathComponent(name).path)
        let width = rows[0].count
        #expect(marks.nulls.count == rows.count - 1)
        for (index, nulls) in marks.nulls.enumerated() {
            let row = try #require(store.row(index + 1))
            #expect((0..<width).filter { row.isNull($0) } == nulls, "record \(index + 1)")
        }
        let report = try #require(store.jsonReport)
        #expect(report.current.wholeRecords == marks.whole.map(Int64.init))
        for record in 0..<rows.count - 1 { #expect(report.isWhole(record: record) == marks.whole.contains(record)) }
        #expect(report.current.repeatedKeys.map { [Int($0.record), $0.column, $0.times] } == marks.repeats)
        for repeat_ in marks.repeats {
            #expect(report.repeatedKeys(record: repeat_[0]).contains { $0.column == repeat_[1] && $0.times == repeat_[2] })
        }
    }

    @Test("in CSV an empty cell and \"\" are alike: neither is marked, as before")
    func csvEmpty() throws {
        let store = CellStore(bytes: Array("a,b,c\n\"\",,x\n".utf8), name: "t.csv")
        waitUntilComplete(store)
        #expect(store.jsonReport == nil)
        let row = try #require(store.row(1))
        #expect(row.strings == ["", "", "x"])
        #expect(row.quotedEmpty == [0])
    }

    @Test("the status line names late columns, records that are not objects, repeated keys")
    func notes() throws {
        let (_, late) = try Self.table(Self.directory.appendingPathComponent("late.jsonl").path)
        #expect(late.formatNote == "2 columns found late")
        let (_, basic) = try Self.table(Self.directory.appendingPathComponent("basic.jsonl").path)
        let note = try #require(basic.formatNote)
        #expect(note.contains("line 11 is not a JSON object: shown whole in the first column, marked ! (+5 more)"))
        #expect(note.contains("line 7 repeats a key: the last value kept"))
    }

    @Test("format detection: names, first bytes, and every CSV opens as before")
    func detection() throws {
        func detect(_ name: String?, _ text: String, isWhole: Bool = true) throws(InputSpec.Format.ShapeProblem) -> InputSpec.Format {
            try InputSpec.Format.detect(name: name, firstBytes: Array(text.utf8)[...], isWhole: isWhole)
        }
        #expect(try detect("a.jsonl", "anything") == .jsonLines)
        #expect(try detect("a.NDJSON.gz", "") == .jsonLines)
        #expect(try detect("a.json", " \n[{\"a\":1}]") == .jsonArray)
        #expect(try detect("a.json", "{\"a\":1}\n{\"a\":2}\n") == .jsonLines)
        #expect(try detect("a.json", "") == .jsonLines)
        #expect(try detect(nil, "{\"a\":1}\n{\"a\"") == .jsonLines)
        #expect(try detect("x.csv", "\u{FEFF}  {\"a\":1}\n") == .jsonLines)
        // CSV whose first byte is `{`, or that is not one JSON object on its first line.
        #expect(try detect("x.csv", "{id},name\n1,2\n") == .csv)
        #expect(try detect(nil, "{\"a\":1} x\n") == .csv)
        #expect(try detect(nil, "{\"a\":1", isWhole: false) == .csv)
        #expect(try detect(nil, "[1,2]\n") == .csv)
        #expect(try detect("data.txt", "a,b\n1,2\n") == .csv)
        for (text, found) in [("{\n \"a\": 1\n}\n", "one JSON object"), ("{\"a\":1}\n", "one JSON object"),
                              ("\"text\"", "a JSON string"), ("-1.5", "a JSON number"), ("null", "null"),
                              ("a,b\n1,2\n", "is not JSON: it starts with 'a'")] {
            #expect(throws: InputSpec.Format.ShapeProblem.self) { try detect("x.json", text) }
            do throws(InputSpec.Format.ShapeProblem) {
                _ = try detect("x.json", text)
            } catch {
                #expect(error.found.contains(found), "\(text)")
            }
        }
        let path = try Packed.file(Array("{\n \"a\": 1\n}\n".utf8), name: "object.json")
        #expect(throws: CellStoreError.notATable(path, "holds one JSON object, not an array of objects (nor one object per line)")) {
            _ = try CellStore.open(InputSpec(path: path))
        }
    }

    @Test("a stream that starts with `{` but is CSV passes as it is")
    func streamNotJSON() throws {
        let text = "{id},name\n1,2\n"
        let fifo = try Packed.directory().appendingPathComponent("fifo-not-json").path
        unlink(fifo)
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread { try? Data(text.utf8).write(to: URL(fileURLWithPath: fifo)) }
        writer.start()
        let (rows, store) = try Self.table(fifo)
        #expect(rows == [["{id}", "name"], ["1", "2"]])
        #expect(store.jsonReport == nil && store.formatNote == nil)
    }

    @Test("hostile lines: invalid UTF-8, lone surrogates, NUL, huge numbers, junk after an object")
    func hostileLines() throws {
        var bytes = Array("{\"a\":\"x\\ud800y\",\"b\":1}\n{\"a\":\"nul\\u0000\",\"b\":2}\n".utf8)
        bytes += Array("{\"a\":\"bad".utf8) + [0xFF, 0xFE] + Array("\",\"b\":3}\n".utf8)
        bytes += Array("{\"a\":1e400,\"b\":-12345678901234567890123456789012345678901}\n{\"a\":NaN}\n[1,2]\n".utf8)
        let path = try Packed.file(bytes, name: "hostile.jsonl")
        let (rows, store) = try Self.table(path)
        #expect(rows.count == 7)
        #expect(rows[0] == ["a", "b"])
        #expect(rows[1] == ["\"x\\ud800y\"", "1"], "kept as written, never changed")
        #expect(rows[2] == ["nul\u{0}", "2"])
        // Not valid UTF-8: the line whole, its bytes as they are (shown as the screen shows them).
        #expect(store.row(3).map { Array($0.field(0)) } == Array("{\"a\":\"bad".utf8) + [0xFF, 0xFE] + Array("\",\"b\":3}".utf8))
        #expect(rows[4] == ["1e400", "-12345678901234567890123456789012345678901"])
        #expect(rows[5] == ["{\"a\":NaN}"])
        #expect(rows[6] == ["[1,2]"])
        let note = try #require(store.formatNote)
        #expect(note.contains("line 3 is not valid UTF-8"))
        #expect(note.contains("line 1: a string with a lone surrogate, kept as written"))
        #expect(note.contains("line 5 is not a JSON object"))
    }

    @Test("a truncated or broken JSON array: the records before it, and where it broke")
    func truncatedArray() throws {
        for (text, records, line) in [("[{\"a\":1},\n{\"a\":2},\n{\"a\":3", 2, 3), ("[", 0, 1), ("[{\"a\":\"unclosed]", 0, 1)] {
            let path = try Packed.file(Array(text.utf8), name: "cut.json")
            let (rows, store) = try Self.table(path)
            #expect(rows.count == (records == 0 ? 0 : records + 1), "\(text)")
            #expect(store.progress.failure?.hasPrefix("JSON array broken at line \(line)") == true, "\(text)")
        }
        // Two elements with no comma between: one element simdjson refuses, shown whole.
        let joined = try Self.table(try Packed.file(Array("[{\"a\":1} {\"a\":2}]".utf8), name: "joined.json"))
        #expect(joined.rows == [[""], ["{\"a\":1} {\"a\":2}"]])
        #expect(joined.store.formatNote?.contains("line 1 is not a JSON object") == true)
        // A stray comma (before ']', or after another) is no element: no row of nothing, said.
        for (text, line) in [("[{\"a\":1},\n{\"a\":2},\n]", 3), ("[{\"a\":1},,\n{\"a\":2}]", 1), ("[\n , {\"a\":1}, {\"a\":2}]", 2)] {
            let stray = try Self.table(try Packed.file(Array(text.utf8), name: "stray.json"))
            #expect(stray.rows == [["a"], ["1"], ["2"]], "\(text): \(stray.rows)")
            #expect(stray.store.formatNote == "line \(line): a comma with no array element after it, no record made",
                    "\(text): \(stray.store.formatNote ?? "")")
            #expect(stray.store.progress.failure == nil)
        }
        let whole = try Packed.file(Array("[{\"a\":1}]  \n".utf8), name: "whole.json")
        #expect(try Self.table(whole).store.progress.failure == nil)
        let empty = try Packed.file([], name: "empty.json")
        let (rows, store) = try Self.table(empty)
        #expect(rows.isEmpty && store.progress.failure == nil && store.formatNote == nil)
    }

    @Test("a 50 MB string and 100,000 keys: read whole, memory bounded by the record")
    func large() throws {
        let long = String(repeating: "x", count: 50 << 20)
        let path = try Packed.file(Array("{\"id\":1,\"s\":\"\(long)\"}\n{\"id\":2,\"s\":\"short\"}\n".utf8), name: "long.jsonl")
        let (_, store) = try Self.table(path)
        #expect(store.rowCount == 3)
        #expect(store.row(2)?.strings == ["2", "short"])
        let fullLength = store.row(1).flatMap { $0.fullLength(ofCell: 1) }
        #expect(fullLength == nil || fullLength == 50 << 20)
        var wide = "{"
        for key in 0..<100_000 { wide += (key == 0 ? "" : ",") + "\"k\(key)\":\(key)" }
        let widePath = try Packed.file(Array((wide + "}\n{\"k99999\":\"last\"}\n").utf8), name: "wide.jsonl")
        let (_, wideStore) = try Self.table(widePath)
        #expect(wideStore.rowCount == 3)
        #expect(wideStore.columnCount == 100_000)
        #expect(wideStore.row(0)?.count == 100_000)
        #expect(wideStore.row(2)?.strings.last == "last")
    }

    @Test("keys past the column limit are left out and said, never a crash")
    func columnLimit() throws {
        let stage = JSONStage(.lines, report: JSONReport(mode: .lines))
        var wide = "{"
        for key in 0...JSONStage.maxColumns { wide += (key == 0 ? "" : ",") + "\"k\(key)\":1" }
        _ = stage.pass(Array((wide + "}\n").utf8), isLast: true)
        let note = try #require(stage.report.note)
        #expect(note.contains("line 1: keys past 131,072 columns left out"))
    }
}
