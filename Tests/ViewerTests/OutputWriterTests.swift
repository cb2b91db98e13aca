import CellStore
import Testing
@testable import Viewer

@Suite("Output formats")
struct OutputWriterTests {
    func render(_ rows: [[String]], format: OutputFormat, lineEnding: [UInt8] = [0x0A], endsWithTerminator: Bool = true) -> String {
        _ = utf8Locale
        var output: [UInt8] = []
        let writer = OutputWriter(format: format, lineEnding: lineEnding) { output += $0; return true }
        for row in rows { writer.write(Row(cells: row)) }
        writer.finish(endsWithTerminator: endsWithTerminator)
        return String(decoding: output, as: UTF8.self)
    }

    @Test("csv quotes only where needed and keeps cells exactly")
    func csv() {
        let rows = [["a", "b c", " d "], ["x,y", "say \"hi\"", "two\nlines"], [""]]
        #expect(render(rows, format: .csv) == "a,b c, d \n\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\n")
    }

    @Test("csv keeps the input's line ending and its missing final newline")
    func lineEndings() {
        #expect(render([["a"], ["b"]], format: .csv, lineEnding: [0x0D, 0x0A]) == "a\r\nb\r\n")
        #expect(render([["a"], ["b"]], format: .csv, endsWithTerminator: false) == "a\nb")
    }

    @Test("tsv uses tabs and quotes a cell holding a tab")
    func tsv() {
        #expect(render([["a", "b\tc"], ["1", "2"]], format: .tsv) == "a\t\"b\tc\"\n1\t2\n")
    }

    @Test("json is an array of string arrays; ragged rows keep their length")
    func json() {
        let text = render([["h1", "h2"], ["1"], ["q\"\\", "\u{01}\n"]], format: .json)
        #expect(text == "[\n  [\"h1\",\"h2\"],\n  [\"1\"],\n  [\"q\\\"\\\\\",\"\\u0001\\n\"]\n]\n")
        #expect(render([], format: .json) == "[]\n")
    }

    @Test("a table is aligned by display width, numbers to the right, under a rule")
    func table() {
        let text = render([["name", "n"], ["北京", "5"], ["Zoë", "12"]], format: .table)
        #expect(text == "name  n\n────────\n北京   5\nZoë   12\n")
    }

    @Test("writing stops when the reader goes away")
    func closedSink() {
        var calls = 0
        let writer = OutputWriter(format: .csv) { _ in calls += 1; return false }
        var accepted = true
        for index in 0..<100_000 where accepted {
            accepted = writer.write(Row(cells: ["\(index)", String(repeating: "x", count: 10)]))
        }
        #expect(!accepted)
        #expect(calls == 1)
    }
}
