import Foundation
import Testing

/// Several inputs written as one table (as csvstack does) through the real binary, held
/// to a reference the test builds itself from the cells it generated.
@Suite("Several inputs written as one table", .timeLimit(.minutes(30)))
struct StackedOutputEndToEndTests {
    let binary = Paths.binary

    /// A table's header and rows, and its text in a delimiter.
    struct Table {
        var header: [String]
        var rows: [[String]]

        func text(_ delimiter: Character = ",") -> String {
            func quoted(_ cell: String) -> String {
                cell.contains(where: { "\"\n\r".contains($0) || $0 == delimiter })
                    ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
            }
            return ([header] + rows).map { $0.map(quoted).joined(separator: String(delimiter)) }.joined(separator: "\n") + "\n"
        }

        /// The cell of `row` in the column named `name`; empty where there is none.
        func cell(_ row: [String], _ name: String) -> String {
            header.firstIndex(of: name).map { $0 < row.count ? row[$0] : "" } ?? ""
        }
    }

    /// Rows of `columns` (of id, city, amount, note), with quotes, commas, line breaks and
    /// amounts in several dresses; `seed` makes each table its own.
    static func table(columns: [String], rows: Int, seed: UInt64) -> Table {
        var state = seed
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let cities = ["Oslo", "oslo", "Bergen", "Lyon", "São Paulo", ""]
        let notes = ["plain", "with, comma", "say \"hi\"", "two\nlines", "", "Oslo again"]
        var table = Table(header: columns, rows: [])
        for index in 1...rows {
            var cells: [String: String] = ["id": "\(seed)-\(index)", "city": cities[next(cities.count)], "note": notes[next(notes.count)]]
            switch next(4) {
            case 0: cells["amount"] = "\(next(2000) - 1000)"
            case 1: cells["amount"] = "\(next(100)).\(next(10))"
            case 2: cells["amount"] = "\(1 + next(4)),\(100 + next(900))"
            default: cells["amount"] = next(8) == 0 ? "" : "-\(next(50))"
            }
            table.rows.append(columns.map { cells[$0] ?? "" })
        }
        return table
    }

    static func amount(_ text: String) -> Double? { Double(text.replacingOccurrences(of: ",", with: "")) }

    /// Writes `tables` as files named `names` in a new directory; returns it and the paths.
    func write(_ tables: [Table], names: [String]) throws -> (URL, [String]) {
        let directory = try Paths.temporaryDirectory()
        var paths: [String] = []
        for (table, name) in zip(tables, names) {
            let url = directory.appendingPathComponent(name)
            try Data(table.text(name.hasSuffix(".tsv") ? "\t" : ",").utf8).write(to: url)
            paths.append(url.path)
        }
        return (directory, paths)
    }

    func json(_ arguments: [String]) throws -> (Int32, [[String]], String) {
        let result = try run([binary] + arguments + ["--output", "json"])
        let parsed = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [[String]]
        return (result.status, parsed ?? [], result.stderr)
    }

    @Test("equal headers: one header, a first column naming each record's file; renamed or left out on request")
    func equalHeaders() throws {
        let header = ["id", "city", "amount", "note"]
        let tables = (1...3).map { Self.table(columns: header, rows: 300, seed: UInt64($0)) }
        let (directory, paths) = try write(tables, names: ["a.csv", "b.csv", "c.csv"])
        defer { try? FileManager.default.removeItem(at: directory) }
        var reference = [["file"] + header]
        for (table, path) in zip(tables, paths) { reference += table.rows.map { [path] + $0 } }
        let (status, got, _) = try json(paths)
        #expect(status == 0)
        #expect(got == reference)
        // CSV: the same, quoted as the writer quotes, each line as the reference's.
        let csv = try run([binary, "--output", "csv"] + paths)
        #expect(csv.text == Table(header: reference[0], rows: Array(reference.dropFirst())).text())
        let renamed = try json(["--source-column", "from"] + paths)
        #expect(renamed.1.first == ["from"] + header)
        let bare = try json(["--no-source-column"] + paths)
        #expect(bare.1 == [header] + tables.flatMap(\.rows))
        // A pipe without --output writes an aligned table, with the same first column.
        let aligned = try run([binary] + paths)
        #expect(aligned.status == 0)
        #expect(aligned.text.hasPrefix("file") && aligned.text.contains(paths[2]))
    }

    @Test("different headers: their union by name in first-seen order, empty cells where a file lacks a column")
    func unionOfHeaders() throws {
        let tables = [Self.table(columns: ["id", "city", "amount"], rows: 50, seed: 7),
                      Self.table(columns: ["city", "id", "note"], rows: 40, seed: 8),
                      Self.table(columns: ["note", "amount"], rows: 30, seed: 9)]
        let (directory, paths) = try write(tables, names: ["a.csv", "b.tsv", "c.csv"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let union = ["id", "city", "amount", "note"]
        var reference = [["file"] + union]
        for (table, path) in zip(tables, paths) {
            reference += table.rows.map { row in [path] + union.map { table.cell(row, $0) } }
        }
        let (status, got, _) = try json(paths)
        #expect(status == 0)
        #expect(got == reference)
    }

    @Test("--filter, --sort and --columns apply across all the files; a sort is one order over them all, ties in file order")
    func queryAcrossFiles() throws {
        let tables = [Self.table(columns: ["id", "city", "amount", "note"], rows: 1500, seed: 11),
                      Self.table(columns: ["note", "amount", "id"], rows: 1200, seed: 12),
                      Self.table(columns: ["amount", "city", "id", "note"], rows: 1300, seed: 13)]
        let (directory, paths) = try write(tables, names: ["a.csv", "b.csv", "c.csv"])
        defer { try? FileManager.default.removeItem(at: directory) }
        // Every record of every file, in file order, with its file.
        var all: [(file: String, table: Table, row: [String])] = []
        for (table, path) in zip(tables, paths) { all += table.rows.map { (path, table, $0) } }
        let (status, got, _) = try json(["--filter-out", "again", "--filter-column", "note=i", "--sort", "amount:desc",
                                         "--columns", "city,amount,id"] + paths)
        #expect(status == 0)
        let kept = all.enumerated().filter { item in
            !item.element.row.contains { $0.contains("again") } && item.element.table.cell(item.element.row, "note").contains("i")
        }
        let sorted = kept.sorted { a, b in
            let x = Self.amount(a.element.table.cell(a.element.row, "amount")), y = Self.amount(b.element.table.cell(b.element.row, "amount"))
            switch (x, y) {
            case (nil, nil): return a.offset < b.offset
            case (nil, _): return false
            case (_, nil): return true
            case let (x?, y?): return x != y ? x > y : a.offset < b.offset
            }
        }
        #expect(got.first == ["file", "city", "amount", "id"])
        let expected = sorted.map { item in [item.element.file] + ["city", "amount", "id"].map { item.element.table.cell(item.element.row, $0) } }
        #expect(got.count == expected.count + 1)
        #expect(Array(got.dropFirst()) == expected)
        // A filter on a column a file lacks: its empty cells meet it or not, as a cell would.
        let lacking = try json(["--filter-column", "city=^$", "--columns", "id"] + paths)
        let empties = all.filter { $0.table.cell($0.row, "city").isEmpty }
        #expect(Array(lacking.1.dropFirst()) == empties.map { [$0.file, $0.table.cell($0.row, "id")] })
        #expect(empties.contains { $0.file == paths[1] })
    }

    @Test("a sort over many small files merges them all")
    func manyFilesSorted() throws {
        let tables = (0..<150).map { Self.table(columns: ["id", "amount"], rows: 4, seed: UInt64(100 + $0)) }
        let names = tables.indices.map { String(format: "part-%03d.csv", $0) }
        let (directory, paths) = try write(tables, names: names)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, got, error) = try json(["--sort", "amount", "--no-source-column", directory.path])
        #expect(status == 0, "\(error)")
        let rows = tables.flatMap(\.rows).enumerated().sorted { a, b in
            let x = Self.amount(a.element[1]), y = Self.amount(b.element[1])
            switch (x, y) {
            case (nil, nil): return a.offset < b.offset
            case (nil, _): return false
            case (_, nil): return true
            case let (x?, y?): return x != y ? x < y : a.offset < b.offset
            }
        }
        #expect(got == [["id", "amount"]] + rows.map(\.element))
        #expect(paths.count == 150)
    }

    @Test("mistakes: an unknown column, both source-column options, cells past a header when headers differ")
    func mistakes() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.csv"), b = directory.appendingPathComponent("b.csv")
        try Data("x,y\n1,2\n".utf8).write(to: a)
        try Data("y,z\n3,4,5\n".utf8).write(to: b)
        let unknown = try run([binary, "--sort", "nosuch", "--output", "csv", a.path, b.path])
        #expect(unknown.status == 2 && unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("nosuch") && unknown.stderr.split(separator: "\n").count == 1)
        let both = try run([binary, "--source-column", "f", "--no-source-column", "--output", "csv", a.path, b.path])
        #expect(both.status == 64)
        let past = try run([binary, "--output", "csv", a.path, b.path])
        #expect(past.status == 1)
        #expect(past.stderr.hasPrefix("csvfreeze: \(b.path): row 1 has more cells than its header names"))
        #expect(past.stderr.split(separator: "\n").count == 1)
        // The records before the bad one are written: the output ends as far as it came.
        #expect(past.text == "file,x,y,z\n\(a.path),1,2,\n", "\(past.text)")
        // Output that cannot be written says so, in one line, exit 1.
        let full = try run(["/bin/sh", "-c", "\(binary) --output csv \(shellQuote(a.path)) \(shellQuote(a.path)) > /dev/full"])
        #expect(full.status == 1 && full.stderr.contains("cannot write the output"), "\(full.stderr)")
        // Standard input among the files: read once, named stdin.
        let piped = try run([binary, "--output", "csv", a.path, "-"], stdin: Data("x,y\n7,8\n".utf8))
        #expect(piped.text == "file,x,y\n\(a.path),1,2\nstdin,7,8\n")
    }

    @Test("JSON lines of several inputs without a header: the source column keyed by its name, the columns by their place in the input")
    func jsonLinesWithoutHeader() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.csv"), b = directory.appendingPathComponent("b.csv")
        try Data("1,2\n3,4,5\n".utf8).write(to: a)
        try Data("6,7\n".utf8).write(to: b)
        let named = try run([binary, "--output", "jsonl", "--no-header", "--source-column", "src", a.path, b.path])
        #expect(named.status == 0 && named.text == """
            {"src":"\(a.path)","column 1":"1","column 2":"2"}
            {"src":"\(a.path)","column 1":"3","column 2":"4","column 3":"5"}
            {"src":"\(b.path)","column 1":"6","column 2":"7"}

            """, "\(named.text)")
        let chosen = try run([binary, "--output", "jsonl", "--no-header", "--columns", "2", a.path, b.path])
        #expect(chosen.text.hasPrefix("{\"file\":\"\(a.path)\",\"column 2\":\"2\"}\n"), "a chosen column keeps its own number: \(chosen.text)")
        let plain = try run([binary, "--output", "jsonl", "--no-header", "--no-source-column", a.path, b.path])
        #expect(plain.text.hasPrefix("{\"column 1\":\"1\",\"column 2\":\"2\"}\n"), "\(plain.text)")
    }

    @Test("a sorted merge goes on past an input that breaks off: every readable record of every input, then one line, exit 1")
    func sortedPastDamage() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = directory.appendingPathComponent("d.csv"), cut = directory.appendingPathComponent("t.csv.gz")
        try Data("id\n1000000\n-5\n".utf8).write(to: whole)
        let full = directory.appendingPathComponent("full.gz").path
        let make = try run(["/bin/sh", "-c", "seq 0 99999 | sed '1i id' | gzip -c > \(shellQuote(full)) && head -c 100000 \(shellQuote(full)) > \(shellQuote(cut.path))"])
        #expect(make.status == 0, "\(make.stderr)")
        let result = try run([binary, "--output", "csv", "--sort", "id", whole.path, cut.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("t.csv.gz: compressed data ends early") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        let lines = result.text.split(separator: "\n")
        #expect(lines.first == "file,id" && lines.dropFirst().first == "\(whole.path),-5", "\(lines.prefix(3))")
        #expect(lines.last == "\(whole.path),1000000", "the records after the broken input's last are written: \(lines.suffix(2))")
        let numbers = lines.dropFirst(2).dropLast().compactMap { $0.split(separator: ",").last.flatMap { Int($0) } }
        #expect(numbers.count > 1000 && numbers == Array(0..<numbers.count), "the broken input's readable records, in order")
    }

    @Test("ragged records when the headers differ: short ones get empty cells, a long one stops with one line, in every format")
    func raggedRecords() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let header = try file("h.csv", "x,y\n")
        let shortThenLong = try file("m.csv", "a,b\nd\nf,g,h\n")
        let short = try file("s.csv", "a,b\nd\n\n,e,\n")
        let empty = try file("e.csv", "")
        for format in ["csv", "json", "jsonl", "table"] {
            let stopped = try run([binary, "--output", format, header, shortThenLong])
            #expect(stopped.status == 1, "\(format): \(stopped.stderr)")
            #expect(stopped.stderr.hasPrefix("csvfreeze: \(shortThenLong): row 2 has more cells than its header names"), "\(format)")
            #expect(stopped.stderr.split(separator: "\n").count == 1, "\(format): \(stopped.stderr)")
            #expect(stopped.text.contains("\(shortThenLong)"), "\(format): the record before the bad one is written")
            if format == "csv" { #expect(stopped.text == "file,x,y,a,b\n\(shortThenLong),,,d,\n", "\(stopped.text)") }
            let written = try run([binary, "--output", format, header, short])
            #expect(written.status == 0 && written.stderr.isEmpty, "\(format): \(written.stderr)")
        }
        // A pipe without --output, and a directory holding the files, take the same path.
        let piped = try run([binary, header, shortThenLong])
        #expect(piped.status == 1 && piped.stderr.contains("row 2 has more cells than its header names"))
        let folder = directory.appendingPathComponent("both")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("x,y\n".utf8).write(to: folder.appendingPathComponent("h.csv"))
        try Data("a,b\nd\nf,g,h\n".utf8).write(to: folder.appendingPathComponent("m.csv"))
        let inFolder = try run([binary, "--output", "csv", folder.path])
        #expect(inFolder.status == 1 && inFolder.stderr.contains("m.csv: row 2 has more cells than its header names"))
        // Short records, an empty one and empty cells past the header are written in the union.
        let csv = try run([binary, "--output", "csv", header, short])
        #expect(csv.text == "file,x,y,a,b\n\(short),,,d,\n\(short),,,,\n\(short),,,,e\n", "\(csv.text)")
        let (_, json, _) = try json([header, short, "--sort", "b:desc"])
        #expect(json == [["file", "x", "y", "a", "b"], [short, "", "", "", "e"], [short, "", "", "d", ""], [short, "", "", "", ""]])
        // An empty first input has no header: the table's header is still written.
        let emptyFirst = try run([binary, "--output", "csv", empty, short])
        #expect(emptyFirst.text == "file,a,b\n\(short),d,\n\(short),,\n\(short),,e\n", "\(emptyFirst.text)")
    }

    @Test("randomized ragged inputs never crash: the union written, or one line and exit 1 for cells past a header")
    func randomizedRaggedInputs() throws {
        var state: UInt64 = 0x5eed
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let headers = [["x", "y"], ["y", "x"], ["a", "b", "x"], ["x"], ["x", "y"], []]
        for trial in 0..<40 {
            let directory = try Paths.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            var tables: [(path: String, header: [String], rows: [[String]])] = []
            for input in 0..<(2 + next(2)) {
                let header = headers[next(headers.count)]
                var rows: [[String]] = []
                for row in 0..<(header.isEmpty ? 0 : next(6)) {
                    // Short, whole, long with empty cells past the header, or long with text there.
                    let count = [0, 1, header.count, header.count + 1 + next(2)][next(4)]
                    // An empty line is a record of one empty cell.
                    rows.append((0..<max(1, count)).map { column in
                        column >= header.count && next(3) != 0 ? "" : (next(4) == 0 ? "" : "c\(input)-\(row)-\(column)")
                    })
                }
                let lines = header.isEmpty ? [] : [header] + rows
                let path = directory.appendingPathComponent("t\(input).csv").path
                try Data(lines.map { $0.joined(separator: ",") + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
                tables.append((path, header, rows))
            }
            let format = ["csv", "json", "jsonl", "table"][next(4)]
            let sorted = next(3) == 0 && tables.contains { !$0.header.isEmpty }
            let result = try run([binary, "--output", format] + (sorted ? ["--sort", "x"] : []) + tables.map(\.path))
            let context = "trial \(trial) \(format) sorted \(sorted): \(result.stderr)"
            #expect(result.status == 0 || result.status == 1, "\(context)")
            let positional = tables.allSatisfy { $0.header == tables[0].header }
            // The first record (in file order) with text past its header, when headers differ.
            let bad = positional ? nil : tables.first { table in
                table.rows.contains { $0.count > table.header.count && $0[table.header.count...].contains { !$0.isEmpty } }
            }
            if let bad {
                #expect(result.status == 1, "\(context)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(context)")
                #expect(result.stderr.contains("has more cells than its header names"), "\(context)")
                if !sorted {
                    // Named as the screen numbers it: data rows from 1.
                    let row = 1 + (bad.rows.firstIndex { $0.count > bad.header.count && $0[bad.header.count...].contains { !$0.isEmpty } } ?? 0)
                    #expect(result.stderr.hasPrefix("csvfreeze: \(bad.path): row \(row) "), "\(context)")
                }
                continue
            }
            #expect(result.status == 0 && result.stderr.isEmpty, "\(context)")
            guard format == "json" else { continue }
            var union: [String] = []
            for table in tables { for name in table.header where !union.contains(name) { union.append(name) } }
            var expected: [[String]] = []
            for table in tables {
                expected += table.rows.map { row in
                    positional ? [table.path] + row
                        : [table.path] + union.map { name in table.header.firstIndex(of: name).map { $0 < row.count ? row[$0] : "" } ?? "" }
                }
            }
            let got = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [[String]] ?? []
            #expect(got.first == (union.isEmpty ? nil : ["file"] + union), "\(context)")
            let rows = Array(got.dropFirst())
            if sorted {
                #expect(rows.map { $0.description }.sorted() == expected.map { $0.description }.sorted(), "\(context)")
            } else {
                #expect(rows == expected, "\(context)")
            }
        }
    }


    @Test("what was asked decides the file column: several FILEs or a directory have it, however many can be read; --skip-bad names what it left out")
    func schemaFollowsTheArguments() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let semi = directory.appendingPathComponent("semi.csv").path
        try Data("a;b\n1;2\n3;4\n".utf8).write(to: URL(fileURLWithPath: semi))
        let missing = directory.appendingPathComponent("nosuch.csv").path
        let gone = directory.appendingPathComponent("gone.csv").path
        let one = try run([binary, "--skip-bad", "--output", "csv", semi, missing])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.text == "file,a,b\n\(semi),1,2\n\(semi),3,4\n", "\(one.text)")
        // Every input left out is named, on one line.
        #expect(one.stderr.split(separator: "\n").count == 1 && one.stderr.hasPrefix("csvfreeze: left out") && one.stderr.contains(missing),
                "\(one.stderr)")
        let two = try run([binary, "--skip-bad", "--output", "csv", semi, semi, missing, gone])
        #expect(two.status == 0 && two.text.hasPrefix("file,a,b\n"), "\(two.text)")
        #expect(two.stderr.split(separator: "\n").count == 1 && two.stderr.contains(missing) && two.stderr.contains(gone), "\(two.stderr)")
        // Without --output too (standard output a pipe), and in every format.
        for format in ["json", "jsonl", "table"] {
            let written = try run([binary, "--skip-bad", "--output", format, semi, missing])
            #expect(written.status == 0 && written.text.contains("file") && written.stderr.contains(missing), "\(format): \(written.text)")
        }
        let piped = try run([binary, "--skip-bad", semi, missing])
        #expect(piped.text.hasPrefix("file") && piped.stderr.contains(missing), "\(piped.text)")
        // A directory is several inputs, even holding one file.
        let folder = directory.appendingPathComponent("onedir")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let inside = folder.appendingPathComponent("semi.csv").path
        try Data("a;b\n1;2\n".utf8).write(to: URL(fileURLWithPath: inside))
        let folded = try run([binary, "--output", "csv", folder.path])
        #expect(folded.status == 0 && folded.stderr.isEmpty && folded.text == "file,a,b\n\(inside),1,2\n", "\(folded.text)")
        let bare = try run([binary, "--output", "csv", "--no-source-column", folder.path])
        #expect(bare.text == "a,b\n1,2\n", "\(bare.text)")
        // One FILE is one table, as it was.
        let single = try run([binary, "--output", "csv", semi])
        #expect(single.status == 0 && !single.text.contains("file"), "\(single.text)")
        // --frequency reads one input: several asked is refused (2), and --skip-bad, which
        // could only leave some of several out, is refused with it (64).
        let counted = try run([binary, "--frequency", "a", semi, semi])
        #expect(counted.status == 2 && counted.stdout.isEmpty, "\(counted.stderr)")
        let skipping = try run([binary, "--skip-bad", "--frequency", "a", semi, missing])
        #expect(skipping.status == 64 && skipping.stdout.isEmpty && skipping.stderr.contains("--skip-bad"), "\(skipping.stderr)")
    }

    @Test("the source column's name never meets a column's: one line naming the clash, exit 2, nothing written")
    func sourceColumnClash() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let hasFile = try file("hasfile.csv", "file,x\nf1,9\n")
        let semi = try file("semi.csv", "a;b\n1;2\n")
        let doubled = try file("dup.csv", "a,a\n1,2\n")
        for format in ["csv", "jsonl", "json", "table"] {
            let union = try run([binary, "--output", format, hasFile, semi])
            #expect(union.status == 2 && union.stdout.isEmpty, "\(format): \(union.text)")
            #expect(union.stderr.split(separator: "\n").count == 1 && union.stderr.contains("'file'") && union.stderr.contains(hasFile)
                    && union.stderr.contains("--source-column NAME"), "\(format): \(union.stderr)")
            let named = try run([binary, "--output", format, "--source-column", "a", semi, semi])
            #expect(named.status == 2 && named.stdout.isEmpty && named.stderr.contains("'a'"), "\(format): \(named.stderr)")
        }
        // A name a made name would take, and `column N` without a header, clash too.
        let made = try run([binary, "--output", "jsonl", "--source-column", "a_2", doubled, doubled])
        #expect(made.status == 2, "\(made.text)")
        let numbered = try run([binary, "--output", "jsonl", "--no-header", "--source-column", "column 1", semi, semi])
        #expect(numbered.status == 2, "\(numbered.text)")
        // A column not written is no clash; another name, or none, writes the table.
        let chosen = try run([binary, "--output", "csv", "--columns", "x,a", hasFile, semi])
        #expect(chosen.status == 0 && chosen.text == "file,x,a\n\(hasFile),9,\n\(semi),,1\n", "\(chosen.text) \(chosen.stderr)")
        let other = try run([binary, "--output", "csv", "--source-column", "from", hasFile, semi])
        #expect(other.status == 0 && other.text.hasPrefix("from,file,x,a,b\n"), "\(other.text)")
        let none = try run([binary, "--output", "csv", "--no-source-column", hasFile, semi])
        #expect(none.status == 0 && none.text.hasPrefix("file,x,a,b\n"), "\(none.text)")
        #expect(try run([binary, "--output", "csv", "--source-column", "", semi, semi]).status == 64)
    }

    @Test("JSON lines of several inputs key each column by the name the table gives it, the source column aside")
    func jsonLinesKeys() throws {
        let directory = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let blank = directory.appendingPathComponent("blank.csv")
        try Data(",b\n1,2\n".utf8).write(to: blank)
        let result = try run([binary, "--output", "jsonl", blank.path, blank.path])
        #expect(result.status == 0)
        #expect(result.text.hasPrefix("{\"file\":\"\(blank.path)\",\"column 1\":\"1\",\"b\":\"2\"}\n"), "\(result.text)")
        let chosen = try run([binary, "--output", "jsonl", "--columns", "column 1", blank.path, blank.path])
        #expect(chosen.text.hasPrefix("{\"file\":\"\(blank.path)\",\"column 1\":\"1\"}\n"), "\(chosen.text)")
    }
}
