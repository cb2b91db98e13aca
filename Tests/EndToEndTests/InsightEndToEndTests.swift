import Foundation
import Testing

/// `--frequency` and `--summary` with the real binary: exact output, errors, stdin and
/// compressed input.
@Suite("Frequency and summary", .timeLimit(.minutes(30)))
struct InsightEndToEndTests {
    let binary = Paths.binary

    func file(_ text: String, _ name: String = "insight") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString).csv")
        try Data(text.utf8).write(to: url)
        return url
    }

    let sample = "country,n,when\nFR,1,2024-01-01\nDE,2,2024-01-02\n,3,\nDE,4.5,2023-12-31\n\"F\"\"R\",-5,2024-01-01\nFR,10,2024-01-01\n"

    @Test("--frequency writes value,count,percent, most frequent first, the empty value as a value")
    func frequencyCSV() throws {
        let url = try file(sample)
        defer { try? FileManager.default.removeItem(at: url) }
        let csv = try run([binary, "--frequency", "country", "--output", "csv", url.path])
        #expect(csv.status == 0)
        #expect(csv.text == "value,count,percent\nFR,2,33.33\nDE,2,33.33\n,1,16.67\n\"F\"\"R\",1,16.67\n")
        #expect(csv.stderr.isEmpty)
        let byNumber = try run([binary, "--frequency", "1", "--output", "csv", url.path])
        #expect(byNumber.text == csv.text)
        let table = try run([binary, "--frequency", "country", url.path])
        #expect(table.text.contains("(empty)"))
        #expect(table.text.components(separatedBy: "\n")[2].hasPrefix("FR "))
    }

    @Test("every format writes the counted tables' bytes: a table quotes a value that passes for the empty one, JSON keeps each value as it is, the values in no bin are said on stderr")
    func countedTablesInEveryFormat() throws {
        let url = try file("name,n\na,1\n,2\n(empty),3\n\"\"\"q\"\"\",4\na,5\nb,\n")
        defer { try? FileManager.default.removeItem(at: url) }
        let table = try run([binary, "--frequency", "name", "--output", "table", url.path])
        #expect(table.text == """
            value      count  percent
            ─────────────────────────
            a              2    33.33
            (empty)        1    16.67
            "(empty)"      1    16.67
            \"""q\"""        1    16.67
            b              1    16.67

            """)
        let json = try run([binary, "--frequency", "name", "--output", "json", url.path])
        #expect(json.text == "[\n  [\"value\",\"count\",\"percent\"],\n  [\"a\",\"2\",\"33.33\"],\n  [\"\",\"1\",\"16.67\"],\n"
                + "  [\"(empty)\",\"1\",\"16.67\"],\n  [\"\\\"q\\\"\",\"1\",\"16.67\"],\n  [\"b\",\"1\",\"16.67\"]\n]\n")
        let bins = try run([binary, "--histogram", "n", "--bins", "2", "--output", "jsonl", url.path])
        #expect(bins.text == "{\"low\":\"0\",\"high\":\"5\",\"count\":\"4\",\"percent\":\"66.67\"}\n"
                + "{\"low\":\"5\",\"high\":\"10\",\"count\":\"1\",\"percent\":\"16.67\"}\n")
        #expect(bins.stderr == "csvfreeze: 1 empty: in no bin\n")
        let summary = try run([binary, "--summary", "--columns", "n", "--output", "tsv", url.path])
        #expect(summary.text == "column\ttype\tfilled\tempty\tdistinct\tmin\tmax\tmean\tstddev\tshortest\tlongest\tcommon\tmedian"
                + "\tp25\tp75\tp5\tp95\nn\tinteger\t5\t1\t6\t1\t5\t3.0\t1.5811388300841898\t1\t1\t1 (1), 2 (1), 3 (1)\t3\t2\t4\t1.2\t4.8\n")
    }

    @Test("--summary writes a row per column with kinds, counts, min, max, mean and quantiles")
    func summaryCSV() throws {
        let url = try file(sample)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try run([binary, "--summary", "--output", "csv", url.path])
        #expect(result.status == 0)
        let lines = result.text.components(separatedBy: "\n")
        #expect(lines[0] == "column,type,filled,empty,distinct,min,max,mean,stddev,shortest,longest,common,median,p25,p75,p5,p95")
        #expect(lines[1].hasPrefix("country,text,5,1,4,DE,FR,,,2,3,") && lines[1].hasSuffix(",,,,,"))
        #expect(lines[2].hasPrefix("n,decimal,6,0,6,-5,10,2.58333"))
        #expect(lines[3].hasPrefix("when,date/time,5,1,4,2023-12-31,2024-01-02,,,10,10,"))
        // Dates: the date at or below each rank, one the column holds.
        #expect(lines[3].hasSuffix(",2024-01-01,2024-01-01,2024-01-01,2023-12-31,2024-01-01"), "\(lines[3])")
    }

    @Test("an unknown column: one line naming the columns, exit 2")
    func unknownColumn() throws {
        let url = try file(sample)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try run([binary, "--frequency", "nope", url.path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "csvfreeze: --frequency 'nope': no column 'nope' (columns: 'country', 'n', 'when')\n")
        let both = try run([binary, "--frequency", "n", "--summary", url.path])
        #expect(both.status == 64)
    }

    @Test("standard input and compressed input")
    func stdinAndCompressed() throws {
        let plain = try run([binary, "--frequency", "country", "--output", "tsv", "-"], stdin: Data(sample.utf8))
        #expect(plain.text == "value\tcount\tpercent\nFR\t2\t33.33\nDE\t2\t33.33\n\t1\t16.67\n\"F\"\"R\"\t1\t16.67\n")
        let url = try file(sample)
        defer { try? FileManager.default.removeItem(at: url) }
        let gzip = try run(["/bin/sh", "-c", "gzip -c \(shellQuote(url.path)) | \(shellQuote(binary)) --summary --output jsonl"])
        #expect(gzip.status == 0)
        #expect(gzip.text.hasPrefix("{\"column\":\"country\",\"type\":\"text\",\"filled\":\"5\""))
    }

    @Test("--filter and its kin: only the records they keep are counted")
    func filtered() throws {
        let url = try file(sample)
        defer { try? FileManager.default.removeItem(at: url) }
        let frequency = try run([binary, "--frequency", "country", "--filter-column", "n=^[0-9]$", "--output", "csv", url.path])
        #expect(frequency.text == "value,count,percent\nFR,1,33.33\nDE,1,33.33\n,1,33.33\n")
        let summary = try run([binary, "--summary", "--filter-out", "DE", "--output", "csv", url.path])
        #expect(summary.text.components(separatedBy: "\n")[1].hasPrefix("country,text,3,1,3,"))
        let bad = try run([binary, "--frequency", "country", "--filter", "(", url.path])
        #expect(bad.status == 2 && bad.stderr.contains("--filter '('"))
    }

    @Test("a header and no records: an empty table, and kinds of empty")
    func headerOnly() throws {
        let url = try file("a,b\n")
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try run([binary, "--frequency", "b", "--output", "csv", url.path]).text == "value,count,percent\n")
        let summary = try run([binary, "--summary", "--output", "csv", url.path])
        #expect(summary.status == 0)
        #expect(summary.text.components(separatedBy: "\n")[1] == "a,empty,0,0,0,,,,,,,,,,,,")
        let empty = try file("")
        defer { try? FileManager.default.removeItem(at: empty) }
        let none = try run([binary, "--frequency", "a", empty.path])
        #expect(none.status == 1 && none.stderr == "csvfreeze: \(empty.path): empty input, nothing to count\n")
    }

    @Test("a column of unique values past the budget: counts stay honest")
    func manyDistinct() throws {
        var text = "id,k\n"
        for index in 0..<50_000 { text += "\(index),\(index % 7 == 0 ? "seven" : "other")\n" }
        let url = try file(text)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try run([binary, "--frequency", "k", "--output", "csv", url.path])
        #expect(result.text == "value,count,percent\nother,42857,85.71\nseven,7143,14.29\n")
        let summary = try run([binary, "--summary", "--output", "csv", url.path])
        #expect(summary.text.components(separatedBy: "\n")[1].hasPrefix("id,integer,50000,0,50000,0,49999,24999.5,"))
    }
}
