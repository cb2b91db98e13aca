import Foundation
import CellStore
import Testing
@testable import Export

/// Output that measures display widths needs a UTF-8 locale, as the program sets one.
private let utf8Locale: Void = {
    setlocale(LC_ALL, "C.UTF-8")
}()

@Suite("Output formats", .timeLimit(.minutes(30)))
struct OutputWriterTests {
    func render(_ rows: [[String]], format: OutputFormat, lineEnding: [UInt8] = [0x0A], endsWithTerminator: Bool = true,
                byteOrderMark: Bool = false) -> String {
        _ = utf8Locale
        var output: [UInt8] = []
        let writer = OutputWriter(format: format, lineEnding: lineEnding, byteOrderMark: byteOrderMark) { output += $0; return true }
        for row in rows { writer.write(Row(cells: row)) }
        writer.finish(endsWithTerminator: endsWithTerminator)
        return String(decoding: output, as: UTF8.self)
    }

    @Test("csv quotes only where needed and keeps cells exactly")
    func csv() {
        let rows = [["a", "b c", " d "], ["x,y", "say \"hi\"", "two\nlines"], [""]]
        #expect(render(rows, format: .csv) == "a,b c, d \n\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\"\"\n")
    }

    @Test("a record of one empty cell is written as \"\", so no reader takes it for a blank line to skip")
    func emptySingleCell() {
        #expect(render([["a"], [""], ["b"]], format: .csv) == "a\n\"\"\nb\n")
        #expect(render([["a"], [""]], format: .csv, endsWithTerminator: false) == "a\n\"\"")
        #expect(render([["a", "b"], [""]], format: .tsv) == "a\tb\n\"\"\n")
        #expect(render([["", ""]], format: .csv) == ",\n")
    }

    @Test("a first cell starting sep= is quoted on the first line only, so it is not read back as a delimiter line")
    func separatorLineQuoted() {
        #expect(render([["sep=;"], ["sep=;"]], format: .csv) == "\"sep=;\"\nsep=;\n")
        #expect(render([["SEP=,", "b"]], format: .csv) == "\"SEP=,\",\"b\"\n".replacingOccurrences(of: ",\"b\"", with: ",b"))
        #expect(render([["sep"], ["x"]], format: .tsv) == "sep\nx\n")
    }

    @Test("csv keeps the input's line ending and its missing final newline")
    func lineEndings() {
        #expect(render([["a"], ["b"]], format: .csv, lineEnding: [0x0D, 0x0A]) == "a\r\nb\r\n")
        #expect(render([["a"], ["b"]], format: .csv, endsWithTerminator: false) == "a\nb")
    }

    @Test("csv and tsv start with the input's byte-order mark; json and a table never do")
    func byteOrderMark() {
        #expect(render([["a"], ["b"]], format: .csv, byteOrderMark: true) == "\u{FEFF}a\nb\n")
        #expect(render([["a"]], format: .tsv, byteOrderMark: true) == "\u{FEFF}a\n")
        #expect(render([], format: .csv, byteOrderMark: true) == "\u{FEFF}")
        #expect(render([["a"]], format: .json, byteOrderMark: true) == "[\n  [\"a\"]\n]\n")
        #expect(render([["a"]], format: .table, byteOrderMark: true) == "a\n─\n")
    }

    @Test("a long last record without a line ending gets none, even when the buffer was written out before the end")
    func longLastRecord() {
        let long = String(repeating: "x", count: 70_000)
        #expect(render([["a", "b"], [long, "y"]], format: .csv, endsWithTerminator: false) == "a,b\n\(long),y")
        #expect(render([["a", "b"], [long, "y"]], format: .tsv, lineEnding: [0x0D, 0x0A], endsWithTerminator: false)
                == "a\tb\r\n\(long)\ty")
        #expect(render([[long]], format: .csv) == long + "\n")
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

    /// The rows a streaming parser hands out for `text` with a tiny cell limit.
    func pieces(_ text: String) throws -> [Row] {
        let parser = try RecordParser(dialect: Dialect(), streams: true, limits: .init(cell: 16, slice: 5))
        parser.parse(Array(text.utf8)[...])
        parser.finish()
        return parser.takeRecords()
    }

    @Test("a cell in pieces is written whole: csv, tsv and json as if it came at once", arguments: [OutputFormat.csv, .tsv, .json, .table])
    func piecesWriteWhole(format: OutputFormat) throws {
        _ = utf8Locale
        let long = String(repeating: "ab\"c,é中\n", count: 40)
        let text = "h1,h2\n1,\"" + long.replacingOccurrences(of: "\"", with: "\"\"") + "\"\n\"" + String(repeating: "z", count: 50) + "\"tail,3\n"
        let rows = try pieces(text)
        #expect(rows.contains { $0.continuesInNext })
        var streamed: [UInt8] = []
        let writer = OutputWriter(format: format) { streamed += $0; return true }
        for row in rows { writer.write(row) }
        writer.finish()
        let whole = [["h1", "h2"], ["1", long], [String(repeating: "z", count: 50) + "tail", "3"]]
        if format == .table {
            let lines = String(decoding: streamed, as: UTF8.self).split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines[3].hasSuffix("3"))
        } else if format == .csv || format == .tsv {
            // Cells in pieces are quoted where needed; read back, they are the same cells.
            let delimiter: UInt8 = format == .csv ? UInt8(ascii: ",") : 0x09
            let back = try RecordParser.records(in: streamed, dialect: Dialect(delimiter: delimiter)).map(\.strings)
            #expect(back == whole)
        } else {
            #expect(String(decoding: streamed, as: UTF8.self) == render(whole, format: format))
        }
    }

    @Test("a cell in pieces is held while nothing in it needs quotes, up to a limit: past it, or at a byte that needs them, it is quoted")
    func heldCellLimit() {
        func written(_ pieces: [[UInt8]], format: OutputFormat = .tsv) -> [UInt8] {
            var out: [UInt8] = []
            let writer = OutputWriter(format: format, headerRows: 0) { out += $0; return true }
            for (index, piece) in pieces.enumerated() {
                let first = index == 0, last = index == pieces.count - 1
                let cells: [[UInt8]] = (first ? [Array("1".utf8)] : []) + [piece] + (last ? [Array("z".utf8)] : [])
                var ends: [Int] = []
                for cell in cells { ends.append((ends.last ?? 0) + cell.count) }
                writer.write(Row(bytes: cells.flatMap { $0 }, ends: ends, continuesPrevious: !first, continuesInNext: !last))
            }
            writer.finish()
            return out
        }
        let mebibyte = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        let plain = written([mebibyte, mebibyte, mebibyte])
        #expect(plain == Array("1\t".utf8) + mebibyte + mebibyte + mebibyte + Array("\tz\n".utf8))
        let tabbed = written([mebibyte, Array("\t".utf8), mebibyte])
        #expect(tabbed.prefix(3) == Array("1\t\"".utf8)[...] && tabbed.suffix(4) == Array("\"\tz\n".utf8)[...])
        let past = written(Array(repeating: mebibyte, count: OutputWriter.heldLimit / (1 << 20) + 2))
        #expect(past.prefix(3) == Array("1\t\"".utf8)[...], "past the limit it is quoted whatever it holds")
    }

    @Test("a record handed out a few cells at a time is written as a whole one is: a cell in pieces quoted only where needed",
          arguments: [OutputFormat.csv, .tsv])
    func recordInParts(format: OutputFormat) throws {
        let delimiter: UInt8 = format == .csv ? UInt8(ascii: ",") : 0x09
        let d = format == .csv ? "," : "\t"
        let long = String(repeating: "L", count: 40)
        let text = ["h1", "h2", "h3", "h4", "h5", "h6", "h7"].joined(separator: d) + "\n"
            + ["a", "\"b\(d)c\"", "d", "", "\"g\"\"h\"", "\"\(long)\"", "e"].joined(separator: d) + "\n"
            + ["\"\(long)x\"\"\"", "1", "2", "3", "4", "5", "6"].joined(separator: d) + "\n" + "z"
        for pieceCells in 2...4 {
            let parser = try RecordParser(dialect: Dialect(delimiter: delimiter), streams: true,
                                          limits: .init(cell: 16, pieceCells: pieceCells, slice: 7))
            parser.parse(Array(text.utf8)[...])
            parser.finish()
            let rows = parser.takeRecords()
            #expect(rows.filter { !$0.continuesInNext }.count == 4)
            var streamed: [UInt8] = []
            let writer = OutputWriter(format: format) { streamed += $0; return true }
            for row in rows { writer.write(row) }
            writer.finish(endsWithTerminator: false)
            // The long cell needs no quotes: it is written without them, as a whole cell is.
            let expected = text.replacingOccurrences(of: "\"\(long)\"\(d)", with: "\(long)\(d)")
            #expect(String(decoding: streamed, as: UTF8.self) == expected, "\(pieceCells) cells a piece")
            #expect(expected == render(try RecordParser.records(in: Array(text.utf8), dialect: Dialect(delimiter: delimiter)).map(\.strings),
                                      format: format, endsWithTerminator: false))
        }
    }

    /// `text`'s one record as JSON lines writes it, the parser handing out `pieceCells`
    /// cells at a time.
    private func jsonLinesObject(_ text: String, pieceCells: Int) throws -> [String: String]? {
        let parser = try RecordParser(dialect: Dialect(), streams: true, limits: .init(pieceCells: pieceCells))
        parser.parse(Array(text.utf8)[...])
        parser.finish()
        var output: [UInt8] = []
        let writer = OutputWriter(format: .jsonl) { output += $0; return true }
        for row in parser.takeRecords() { writer.write(row) }
        writer.finish()
        return try JSONSerialization.jsonObject(with: Data(output)) as? [String: String]
    }

    @Test("jsonl: a header in pieces gives every key; one too long to be keys stops the output")
    func jsonLinesHeaderInPieces() throws {
        let names = (0..<10).map { "n\($0)" }
        let text = names.joined(separator: ",") + "\n" + (0..<10).map(String.init).joined(separator: ",") + "\n"
        let object = try jsonLinesObject(text, pieceCells: 3)
        #expect(object == Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, String($0)) }))
        let huge = OutputWriter(format: .jsonl) { _ in true }
        #expect(!huge.write(Row(cells: [String(repeating: "k", count: JSONLines.longestHeader + 1)])))
        #expect(huge.failure?.contains("header row is longer") == true)
    }

    @Test("jsonl: an object a line keyed by the header; repeated, empty and missing names")
    func jsonLines() throws {
        let text = render([["id", "name", "id", ""], ["1", "Ann \"A\"", "x", "y", "extra"], ["2"]], format: .jsonl)
        #expect(text == """
            {"id":"1","name":"Ann \\"A\\"","id_2":"x","column 4":"y","column 5":"extra"}
            {"id":"2"}

            """)
        var output: [UInt8] = []
        let writer = OutputWriter(format: .jsonl, headerRows: 0) { output += $0; return true }
        writer.write(Row(cells: ["a", "b"]))
        writer.finish()
        #expect(String(decoding: output, as: UTF8.self) == "{\"column 1\":\"a\",\"column 2\":\"b\"}\n")
    }

    @Test("jsonl: keys past those kept made as they come, in records of many cells and in pieces")
    func jsonLinesManyKeys() throws {
        let count = JSONLines.keptKeys + 50
        let text = "h1,h2\n" + (0..<count).map(String.init).joined(separator: ",") + "\n"
        let object = try jsonLinesObject(text, pieceCells: 1000)
        var expected = ["h1": "0", "h2": "1"]
        for column in 2..<count { expected["column \(column + 1)"] = String(column) }
        #expect(object == expected)
    }

    @Test("jsonl: a cell in pieces is one string under one key")
    func jsonLinesPieces() throws {
        let long = String(repeating: "é\"x", count: 30)
        let rows = try pieces("h1,h2,h3\n1,\"" + long.replacingOccurrences(of: "\"", with: "\"\"") + "\",3\n")
        #expect(rows.contains { $0.continuesInNext })
        var output: [UInt8] = []
        let writer = OutputWriter(format: .jsonl) { output += $0; return true }
        for row in rows { writer.write(row) }
        writer.finish()
        let object = try JSONSerialization.jsonObject(with: Data(output)) as? [String: String]
        #expect(object == ["h1": "1", "h2": long, "h3": "3"])
    }
}

extension OutputWriterTests {
    @Test("a table writes every cell whole: one wider than its column runs on, whatever row it is in")
    func tableCellsWhole() {
        let long = String(repeating: "x", count: 60) + "é" + String(repeating: "y", count: 60)
        var rows = [["id", "note", "n"], ["k", long, "5"]]
        for _ in 0..<1100 { rows.append(["k", "short", "1"]) }
        rows.append(["k", long + "!", "7"])
        let lines = render(rows, format: .table).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[2] == "k   " + long + "  5", "\(lines[2])")
        #expect(lines[rows.count] == "k   " + long + "!  7", "\(lines[rows.count])")
        // Short rows stay aligned under the widest cell sampled (up to 120 cells).
        #expect(lines[3] == "k   short" + String(repeating: " ", count: 115) + "  1")
        #expect(!lines.joined().contains("…"))
    }

    @Test("a table keeps spaces at the end of a cell and shows characters of no width, as the screen does")
    func tableKeepsEveryCharacter() {
        let text = render([["a", "b"], ["x", "y  "], ["zero\u{200B}width", "w"]], format: .table)
        #expect(text.contains("\ny  \n") || text.contains("  y  \n"), "\(text)")
        #expect(text.contains("zero<U+200B>width"), "\(text)")
    }

    @Test("a table writes a cell that comes in pieces whole, line breaks as symbols")
    func tablePiecesWhole() throws {
        _ = utf8Locale
        let long = String(repeating: "ab\"c,é中\n", count: 40)
        let rows = try pieces("h1,h2,h3\n1,\"" + long.replacingOccurrences(of: "\"", with: "\"\"") + "\",3\n2,b,4\n")
        #expect(rows.contains { $0.continuesInNext })
        var streamed: [UInt8] = []
        let writer = OutputWriter(format: .table) { streamed += $0; return true }
        for row in rows { writer.write(row) }
        writer.finish()
        let lines = String(decoding: streamed, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[2] == " 1  " + long.replacingOccurrences(of: "\n", with: "↵") + "   3", "\(lines[2])")
        // The cell that goes on past the pieces measured pads its column to the most a
        // column is padded, so the rows under it stay aligned.
        #expect(lines[3] == " 2  b" + String(repeating: " ", count: 119) + "   4", "\(lines[3])")
    }
}

extension OutputWriterTests {
    @Test("with a maximum width a table cuts wider cells to it, with …, in one piece or many")
    func tableMaximumWidth() throws {
        _ = utf8Locale
        var output: [UInt8] = []
        let writer = OutputWriter(format: .table, maximumWidth: 6) { output += $0; return true }
        for row in [["name", "n"], ["abcdefghij", "1234567"], ["中文中文中", "5"], ["abcdef", "1"]] { writer.write(Row(cells: row)) }
        writer.finish()
        #expect(String(decoding: output, as: UTF8.self) == "name    n\n──────────────\nabcde…  12345…\n中文 …       5\nabcdef       1\n")
        let rows = try pieces("h1,h2\n\"" + String(repeating: "é", count: 40) + "\",2\nx,3\n")
        #expect(rows.contains { $0.continuesInNext })
        var streamed: [UInt8] = []
        let cutting = OutputWriter(format: .table, maximumWidth: 6) { streamed += $0; return true }
        for row in rows { cutting.write(row) }
        cutting.finish()
        // A record in pieces ends the measuring: the rows before it (here the header) set the widths.
        #expect(String(decoding: streamed, as: UTF8.self) == "h1      h2\n──────────\nééééé…   2\nx        3\n")
    }
}

extension OutputWriterTests {
    @Test("a table written from pieces holds the same text as one written from whole records", arguments: UInt64(1)...20)
    func tablePiecesLoseNothing(seed: UInt64) throws {
        _ = utf8Locale
        var generator = SeededGenerator(seed: seed)
        let alphabet = ["a", "b", "é", "中", "\n", "\t", ",", "\"", "1", "e\u{301}", "\u{200B}", " "]
        var records: [[String]] = []
        for _ in 0..<(2 + Int(generator.next() % 6)) {
            records.append((0..<(1 + Int(generator.next() % 4))).map { _ in
                String((0..<Int(generator.next() % 40)).map { _ in Character(alphabet[Int(generator.next() % UInt64(alphabet.count))]) })
            })
        }
        var text = ""
        for record in records {
            text += record.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\n"
        }
        func table(_ rows: [Row]) -> String {
            var output: [UInt8] = []
            let writer = OutputWriter(format: .table) { output += $0; return true }
            for row in rows { writer.write(row) }
            writer.finish()
            return String(decoding: output, as: UTF8.self)
        }
        let whole = table(records.map { Row(cells: $0) })
        let streamed = table(try pieces(text))
        func letters(_ text: String) -> String {
            String(text.split(separator: "\n").enumerated().filter { $0.offset != 1 }.map(\.element).joined().filter { $0 != " " })
        }
        #expect(letters(streamed) == letters(whole), "\(records)")
        #expect(streamed.split(separator: "\n").count == whole.split(separator: "\n").count)
    }
}
