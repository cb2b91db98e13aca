import Foundation
import Testing

/// `--sql` with the real binary: answers, several files, compressed input, errors and
/// exit statuses, and inputs never written.
@Suite("SQL", .timeLimit(.minutes(30)))
struct SQLEndToEndTests {
    let binary = Paths.binary

    let sales = "id,country,city,price,note\n1,Kenya,Nairobi,10.5,ok\n2,France,Paris,,\"late, again\"\n"
        + "3,Kenya,Mombasa,20,\"said \"\"fine\"\"\"\n4,Japan,Tokyo,7.25,\"line one\nline two\"\n5,Kenya,Nairobi,4,\n"

    let rates = "country,rate\nKenya,0.16\nFrance,0.2\nPeru,0.18\n"

    func directory() throws -> URL { try Paths.temporaryDirectory() }

    @Test("a group-by with avg, as CSV, in the keys' order; NULL from an empty cell")
    func groupBy() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sales.csv").path
        try Data(sales.utf8).write(to: URL(fileURLWithPath: path))
        let result = try run([binary, "--sql", "select country, count(*), avg(price), count(price) from t group by country", "--output", "csv", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "country,count(*),avg(price),count(price)\nFrance,1,,0\nJapan,1,7.25,1\nKenya,3,11.5,3\n")
        #expect(result.stderr.isEmpty)
        let cells = try run([binary, "--sql", "select note from sales where id in (3, 4)", "--output", "json", path])
        #expect(cells.text == "[\n  [\"note\"],\n  [\"said \\\"fine\\\"\"],\n  [\"line one\\nline two\"]\n]\n")
        let table = try run([binary, "--sql", "select city, price from t where price > 5 order by price desc", path])
        #expect(table.text == "city     price\n──────────────\nMombasa     20\nNairobi   10.5\nTokyo     7.25\n")
    }

    @Test("JSON tells SQL's types apart: numbers bare, NULL as null, text (and what JSON has no number for) as strings")
    func typedJSON() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sales.csv").path
        try Data(sales.utf8).write(to: URL(fileURLWithPath: path))
        let query = "select id, price, price * 2 as twice, note, null as missing, 1e400 as huge, cast(city as blob) as raw "
            + "from t where id in (1, 2, 3)"
        let lines = try run([binary, "--sql", query, "--output", "jsonl", path])
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(lines.text == """
            {"id":1,"price":10.5,"twice":21.0,"note":"ok","missing":null,"huge":"Inf","raw":"Nairobi"}
            {"id":2,"price":null,"twice":null,"note":"late, again","missing":null,"huge":"Inf","raw":"Paris"}
            {"id":3,"price":20,"twice":40,"note":"said \\"fine\\"","missing":null,"huge":"Inf","raw":"Mombasa"}

            """)
        for line in lines.text.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
        }
        let array = try run([binary, "--sql", "select id, price, note from t where id < 3", "--output", "json", path])
        #expect(array.text == "[\n  [\"id\",\"price\",\"note\"],\n  [1,10.5,\"ok\"],\n  [2,null,\"late, again\"]\n]\n")
        // CSV has no NULL: an empty cell, as the screen shows it.
        let csv = try run([binary, "--sql", "select id, price, null as missing from t where id = 2", "--output", "csv", path])
        #expect(csv.text == "id,price,missing\n2,,\n")
    }

    @Test("a join of two files, one of them compressed, each named by its stem")
    func join() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let salesPath = dir.appendingPathComponent("sales-2024.csv").path
        try Data(sales.utf8).write(to: URL(fileURLWithPath: salesPath))
        let ratesPath = dir.appendingPathComponent("tax rates.csv").path
        try Data(rates.utf8).write(to: URL(fileURLWithPath: ratesPath))
        #expect(try run(["/bin/sh", "-c", "gzip \(shellQuote(salesPath))"]).status == 0)
        let query = "select s.country, round(sum(s.price * (1 + r.rate)), 2) as gross from sales_2024 s join tax_rates r using (country) group by s.country"
        let result = try run([binary, "--sql", query, "--output", "tsv", salesPath + ".gz", ratesPath])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "country\tgross\nFrance\t\nKenya\t40.02\n")
        let inOther = try run([binary, "--sql", "select id from t where country in (select country from tax_rates)", "--output", "csv",
                               salesPath + ".gz", ratesPath])
        #expect(inOther.text == "id\n1\n2\n3\n5\n")
    }

    @Test("standard input is t")
    func standardInput() throws {
        let result = try run([binary, "--sql", "select count(*) from t where city = 'Nairobi'", "--output", "csv"], stdin: Data(sales.utf8))
        #expect(result.status == 0)
        #expect(result.text == "count(*)\n2\n")
    }

    @Test("a bad query: SQLite's message on one line, exit 65; a missing column is named")
    func badQuery() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sales.csv").path
        try Data(sales.utf8).write(to: URL(fileURLWithPath: path))
        let syntax = try run([binary, "--sql", "select from where", path])
        #expect(syntax.status == 65)
        #expect(syntax.stdout.isEmpty)
        #expect(syntax.stderr == "csvfreeze: near \"from\": syntax error\n")
        let column = try run([binary, "--sql", "select pricee from t", path])
        #expect(column.status == 65)
        #expect(column.stderr.hasPrefix("csvfreeze: no such column: pricee (columns of t: id, country, city, price, note;"))
        #expect(column.stderr.components(separatedBy: "\n").count == 2)
        let table = try run([binary, "--sql", "select * from nope", path])
        #expect(table.status == 65)
        #expect(table.stderr == "csvfreeze: no such table: nope (tables: t, sales)\n")
    }

    @Test("the inputs are read only: writing to a table fails, and the file is untouched")
    func readOnly() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sales.csv").path
        try Data(sales.utf8).write(to: URL(fileURLWithPath: path))
        let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        for statement in ["delete from t", "update t set price = 0", "insert into t (id) values (9)"] {
            let result = try run([binary, "--sql", statement, path])
            #expect(result.status == 65, "\(statement): \(result.stderr)")
            #expect(result.stderr.contains("may not be modified") || result.stderr.contains("is refused"), "\(result.stderr)")
        }
        #expect(try run([binary, "--sql", "drop table t; create temp table t as select 1 as x", path]).stderr
                == "csvfreeze: SQL may only read: DROP TABLE is refused\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == sales)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["sales.csv"])
    }

    @Test("--quote none: a LIKE searched for in raw bytes finds every row, quotes and empty last cells in them")
    func unquotedLike() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("notes.tsv").path
        // The raw-byte search once took the line feed (--quote none's quote) for a quote,
        // and lost record 16 after the empty last cell of record 15.
        let text = "id\tname\tnote\n0\t\"x\"\tz\n1\tplain\tz\n2\tNairobi \"q\tw\"w\n3\tNairobi \"q\tw\"w\n4\t\"x\"\tz\n"
            + "5\tNairobi \"q\tz\n6\tNairobi \"q\tw\"w\n7\t\tz\n8\tNairobi \"q\t\"\n9\t\"x\"\tz\n10\tplain\tz\n11\ta\"b\tz\n"
            + "12\t\tz\n13\tNairobi \"q\t\n14\tNairobi \"q\tz\n15\t\t\n16\tNairobi \"q\tw\"w\n23\ta\"b\t\"\n24\t\tw\"w\n"
            + "26\tplain\t\"\n27\t\tw\"w\n28\t\tw\"w\n29\t\tz\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let result = try run([binary, "--quote", "none", "--delimiter", "tab", "--sql",
                              "select group_concat(id) from t where name like '%Nairobi%'", "--output", "csv", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "group_concat(id)\n\"2,3,5,6,8,13,14,16\"\n")
    }

    @Test("a cell longer than SQL reads is the input's error: named, exit 1, never cut silently")
    func longCell() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("long.csv").path
        try Data(("a,b\n1," + String(repeating: "x", count: 2 << 20) + "\n2,y\n").utf8).write(to: URL(fileURLWithPath: path))
        let result = try run([binary, "--sql", "select length(b) from t", "--output", "csv", path])
        #expect(result.status == 1)
        #expect(result.stderr == "csvfreeze: t: row 1, column 2: a cell longer than 1 MiB, more than SQL reads\n")
        let other = try run([binary, "--sql", "select a from t", "--output", "csv", path])
        #expect(other.status == 0)
        #expect(other.text == "a\n1\n2\n")
        // Two long cells: the one named is the row the query needs; a row its constraint
        // turns away never needs its long cell.
        let long = String(repeating: "L", count: 2 << 20)
        let two = dir.appendingPathComponent("two.csv").path
        try Data("id,v\n1,a\n2,\(long)\n3,c\n4,\(long)\n5,e\n".utf8).write(to: URL(fileURLWithPath: two))
        let fourth = try run([binary, "--sql", "select v from t where id = 4", "--output", "csv", two])
        #expect(fourth.status == 1)
        #expect(fourth.stderr == "csvfreeze: t: row 4, column 2: a cell longer than 1 MiB, more than SQL reads\n")
        let short = try run([binary, "--sql", "select v from t where id = 5", "--output", "csv", two])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.text == "v\ne\n")
    }

    @Test("--summary over several files without --sql: one line, exit 2; --sql with a view option: exit 64")
    func severalFiles() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sales.csv").path
        try Data(sales.utf8).write(to: URL(fileURLWithPath: path))
        let result = try run([binary, "--summary", path, path])
        #expect(result.status == 2)
        #expect(result.stderr == "csvfreeze: --frequency, --histogram and --summary read one input (--sql can count over several)\n")
        #expect(try run([binary, "--sql", "select 1", "--summary", path]).status == 64)
        #expect(try run([binary, "--sql", "select 1", path, "-", "-"]).status == 2)
    }
}

/// `Q` in the real binary, in a terminal: the prompt, the answer as a sheet, Esc back, a
/// long query left with `q` at once, and the query remembered for the next session.
@Suite("SQL on screen", .timeLimit(.minutes(30)))
struct SQLScreenEndToEndTests {
    func status(_ lines: [String]) -> String { lines.last { !$0.isEmpty } ?? "" }

    @Test("Q, a query and Enter show its answer; Esc goes back; q leaves a long query at once; the query is remembered")
    func onScreen() throws {
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sales.csv").path
        try Data(SQLEndToEndTests().sales.utf8).write(to: URL(fileURLWithPath: path))
        let history = dir.appendingPathComponent("history").path
        let command = "CSVFREEZE_HISTORY=\(shellQuote(history)) \(shellQuote(Paths.binary)) \(shellQuote(path))"
        var pane = try TmuxPane(command, width: 90, height: 12)
        try pane.waitFor("the table") { status($0).contains("row 1/5") }
        let query = "select country, count(*), avg(price) from t group by country"
        try pane.send("Q")
        try pane.send("-l", query)
        try pane.waitFor("the prompt") { status($0).hasPrefix("SQL> select country") }
        try pane.send("Enter")
        let answer = try pane.waitFor("the answer") { status($0).contains("3 rows in") }
        #expect(answer[0].contains("country") && answer[0].contains("count(*)") && answer[0].contains("avg(price)"), "\(answer[0])")
        // Each row's cells, as words (the frozen column's bar apart).
        let rows = answer[1...3].map { $0.replacingOccurrences(of: "│", with: " ").split(separator: " ").map(String.init) }
        #expect(rows == [["1", "France", "1"], ["2", "Japan", "1", "7.25"], ["3", "Kenya", "3", "11.5"]], "\(answer)")
        try pane.send("Escape")
        try pane.waitFor("the table again") { status($0).contains("row 1/5") && !status($0).contains("rows in") }

        // A query that never ends: q goes back at once, q again quits.
        try pane.send("Q")
        try pane.send("-l", "with recursive c(x) as (select 1 union all select x + 1 from c) select x from c where x < 0")
        try pane.send("Enter")
        try pane.waitFor("the query to run") { status($0).contains("SQL running") }
        try pane.send("q")
        try pane.waitFor("the table, the query stopped") { status($0).contains("row 1/5") }
        try pane.send("q")
        #expect(try pane.waitForExit()?.hasPrefix("[exit=0") == true)
        let remembered = try String(contentsOfFile: history, encoding: .utf8)
        #expect(remembered.contains("Q" + query + "\n"), "\(remembered)")

        // The next session brings the query back with Up.
        pane = try TmuxPane(command, width: 90, height: 12)
        try pane.waitFor("the table") { status($0).contains("row 1/5") }
        try pane.send("Q")
        try pane.send("Up")
        try pane.send("Up")
        try pane.waitFor("the last session's query") { status($0).hasPrefix("SQL> " + query) }
        try pane.send("Escape")
        try pane.send("q")
        _ = try pane.waitForExit()
    }
}
