import CellStore
import Foundation
import Testing
import TestSupport
@testable import SQL

@Suite("SQL over inputs", .timeLimit(.minutes(30)))
struct SQLQueryTests {
    static let sales = Sales(count: 3000, seed: 7)

    /// Budgets that keep everything in memory, and budgets so small that the grouping
    /// spills and splits its partitions again.
    static let settings: [SQLSettings] = [SQLSettings(), .tiny(spreading: 2048, gathering: 4096)]

    @Test("count, group by and avg agree with a computation of their own", arguments: settings.indices)
    func groupBy(setting: Int) throws {
        let data = Self.sales
        let db = try database([("sales", data.csv)], settings: Self.settings[setting])
        let answer = try rows(db, "select country, count(*), avg(price), count(price) from t group by country")
        var expected: [String: (count: Int, sum: Double, priced: Int)] = [:]
        for sale in data.sales {
            var entry = expected[sale.country] ?? (0, 0, 0)
            entry.count += 1
            if let price = sale.price {
                entry.sum += price
                entry.priced += 1
            }
            expected[sale.country] = entry
        }
        // Groups come in the keys' order (BINARY: bytes), as SQLite's own GROUP BY gives them.
        #expect(answer.map { $0[0] } == expected.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        for row in answer {
            let entry = try #require(expected[row[0]])
            #expect(row[1] == String(entry.count))
            #expect(close(row[2], entry.sum / Double(entry.priced)), "\(row)")
            #expect(row[3] == String(entry.priced))
        }
    }

    @Test("a GROUP BY on many keys, ordered either way, spilled or not", arguments: settings.indices)
    func groupByManyKeys(setting: Int) throws {
        let data = Self.sales
        let db = try database([("sales", data.csv)], settings: Self.settings[setting])
        // id % 97: 97 keys, more than the ranges a sample makes; city and price pairs: many.
        let byRemainder = try rows(db, "select id % 97 as r, count(*), sum(id) from t group by r order by r desc")
        #expect(byRemainder.map { $0[0] } == (0..<97).reversed().map(String.init))
        for row in byRemainder {
            let remainder = Int(row[0])!
            let ids = data.sales.map(\.id).filter { $0 % 97 == remainder }
            #expect(row[1] == String(ids.count))
            #expect(row[2] == String(ids.reduce(0, +)))
        }
        let pairs = try rows(db, "select city, price, count(*) from t group by city, price")
        var expected: [String: Int] = [:]
        for sale in data.sales { expected["\(sale.city)|\(sale.price.map { QueryAnswer.text(of: $0) } ?? "")", default: 0] += 1 }
        #expect(pairs.count == expected.count)
        for row in pairs {
            // A whole price written "76" is an integer; as a real it reads the same.
            let price = row[1].isEmpty ? "" : QueryAnswer.text(of: Double(row[1])!)
            #expect(expected["\(row[0])|\(price)"] == Int(row[2]), "\(row)")
        }
    }

    @Test("SQLite takes the rows grouped: no sort of its own")
    func groupByIsConsumed() throws {
        let db = try database([("sales", Self.sales.csv)])
        let plan = try rows(db, "explain query plan select country, count(*) from t group by country").map { $0.joined(separator: " ") }
        #expect(!plan.joined().contains("TEMP B-TREE"), "\(plan)")
        #expect(plan.joined().contains("g=1"), "\(plan)")
    }

    @Test("where with numbers, min, max and sum")
    func whereNumbers() throws {
        let data = Self.sales
        let db = try database([("sales", data.csv)])
        let kept = try rows(db, "select id from t where price > 100 and price <= 400.5")
        #expect(kept.map { Int($0[0])! } == data.sales.filter { ($0.price ?? 0) > 100 && ($0.price ?? 0) <= 400.5 }.map(\.id))
        let prices = data.sales.compactMap(\.price)
        let summary = try rows(db, "select min(price), max(price), sum(price), avg(price) from t")[0]
        #expect(close(summary[0], prices.min()!) && close(summary[1], prices.max()!))
        #expect(close(summary[2], prices.reduce(0, +)) && close(summary[3], prices.reduce(0, +) / Double(prices.count)))
    }

    @Test("empty cells are NULL")
    func nulls() throws {
        let data = Self.sales
        let db = try database([("sales", data.csv)])
        let counts = try rows(db, "select count(*), count(price), count(note), sum(price is null) from t")[0]
        #expect(counts[0] == String(data.sales.count))
        #expect(counts[1] == String(data.sales.filter { $0.price != nil }.count))
        #expect(counts[2] == String(data.sales.filter { !$0.note.isEmpty }.count))
        #expect(counts[3] == String(data.sales.filter { $0.price == nil }.count))
        #expect(try rows(db, "select count(*) from t where note = ''") == [["0"]])
    }

    @Test("quoted and multi-line cells come back as they were")
    func quotedCells() throws {
        let data = Self.sales
        let db = try database([("sales", data.csv)])
        let notes = try rows(db, "select id, note, country from t")
        #expect(notes.count == data.sales.count)
        for (row, sale) in zip(notes, data.sales) {
            #expect(row == [String(sale.id), sale.note, sale.country])
        }
    }

    @Test("equality, LIKE and GLOB find what a scan of every row finds")
    func textConstraints() throws {
        let data = Self.sales
        let db = try database([("sales", data.csv)])
        func ids(_ keep: (Sales.Sale) -> Bool) -> [[String]] { data.sales.filter(keep).map { [String($0.id)] } }
        #expect(try rows(db, "select id from t where city = 'Zürich'") == ids { $0.city == "Zürich" })
        #expect(try rows(db, "select id from t where country = 'Zürich, CH'") == ids { $0.country == "Zürich, CH" })
        #expect(try rows(db, "select id from t where note = 'said \"fine\"'") == ids { $0.note == "said \"fine\"" })
        #expect(try rows(db, "select id from t where note = 'line one' || char(10) || 'line two'") == ids { $0.note == "line one\nline two" })
        #expect(try rows(db, "select id from t where note like '%AGAIN%'") == ids { $0.note.lowercased().contains("again") })
        #expect(try rows(db, "select id from t where city glob 'S*o P*'") == ids { $0.city == "São Paulo" })
        #expect(try rows(db, "select id from t where city in ('Lima', 'Rio')") == ids { $0.city == "Lima" || $0.city == "Rio" })
        #expect(try rows(db, "select id from t where city = 'Atlantis'").isEmpty)
    }

    @Test("rowid is the data row's number, and its ranges read only their pieces")
    func rowid() throws {
        let db = try database([("sales", Self.sales.csv)], spacing: 256)
        #expect(try rows(db, "select rowid, id from t where rowid between 10 and 13") == (10...13).map { [String($0), String($0)] })
        #expect(try rows(db, "select id from t where rowid = 5") == [["5"]])
        #expect(try rows(db, "select id from t where rowid > 2998") == [["2999"], ["3000"]])
        #expect(try rows(db, "select id from t where rowid < 2.5") == [["1"], ["2"]])
        #expect(try rows(db, "select count(*) from t where rowid >= 0") == [["3000"]])
    }

    @Test("a join of two inputs, and the rows of one whose key is in the other")
    func join() throws {
        let data = Self.sales
        let continents = "country,continent\nKenya,Africa\nFrance,Europe\nJapan,Asia\nBrazil,America\nPeru,America\n\"Zürich, CH\",Europe\n"
        var picks = "id\n"
        var picked: Set<Int> = []
        for id in stride(from: 3, through: 3000, by: 7) {
            picks += "\(id)\n"
            picked.insert(id)
        }
        let db = try database([("sales", data.csv), ("continents", continents), ("picks", picks)])
        let byContinent = try rows(db, "select continent, count(*) from t join continents using (country) group by continent")
        var expected: [String: Int] = [:]
        let continentOf = ["Kenya": "Africa", "France": "Europe", "Japan": "Asia", "Brazil": "America", "Peru": "America", "Zürich, CH": "Europe"]
        for sale in data.sales { expected[continentOf[sale.country]!, default: 0] += 1 }
        #expect(byContinent == expected.keys.sorted().map { [$0, String(expected[$0]!)] })
        let inPicks = try rows(db, "select id from sales where id in (select id from picks)")
        #expect(inPicks.map { Int($0[0])! } == data.sales.map(\.id).filter(picked.contains))
        let joined = try rows(db, "select count(*) from picks p join t on t.id = p.id")
        #expect(joined == [[String(picked.count)]])
    }

    @Test("in a number column 1 and 1.0 are one group; a number SQL cannot hold, or spelt with a leading zero, is text as written")
    func typing() throws {
        let db = try database([("kinds", "v\n1\n1.0\n007\n7\n$7\n\n-0\n0.0\n2\n3\n4\n1e400\n5\n6\n9223372036854775807\n"
                                         + "-9223372036854775808\n9223372036854775808\n" + (8...30).map { "\($0)\n" }.joined())])
        #expect(try columnTypes(db) == [.numeric])
        #expect(try rows(db, "select typeof(v), count(*) from t where rowid <= 8 group by v order by min(rowid)")
                == [["integer", "2"], ["text", "1"], ["integer", "2"], ["null", "1"], ["integer", "2"]])
        #expect(try rows(db, "select typeof(v), v from t where rowid in (12, 15, 16, 17)")
                == [["text", "1e400"], ["integer", "9223372036854775807"], ["integer", "-9223372036854775808"],
                    ["text", "9223372036854775808"]])
        // Numeric affinity: SQLite compares a text that spells a number as that number.
        #expect(try rows(db, "select v from t where v = 7") == [["007"], ["7"], ["7"]])
        #expect(try rows(db, "select v from t where v = '7'") == [["007"], ["7"], ["7"]])
    }

    @Test("a column's type is judged from its first filled cells as the summary judges them: a text column gives back every cell as written")
    func columnTypesAsWritten() throws {
        var csv = "code,amount,id,price,day,kind\n"
        let codes = ["2e7591323090", "1E10", "0e5", "a3f9c0", "ffe1", "09ab", "7d3e", "b0b0"]
        for row in 0..<40 {
            csv += "\(codes[row % codes.count]),\(row == 3 ? " 50" : String(100 + row)),\(12345678901234567890 + UInt64(row)),"
                + "\(row % 2 == 0 ? "1.10" : "2"),2024-01-\(10 + row % 20),\(row % 3 == 0 ? "yes" : "no")\n"
        }
        let db = try database([("codes", csv)])
        #expect(try columnTypes(db) == [.text, .integer, .text, .numeric, .text, .text])
        #expect(try rows(db, "pragma table_info(t)").map { $0[2] } == ["TEXT", "INTEGER", "TEXT", "NUMERIC", "TEXT", "TEXT"])
        #expect(try rows(db, "select code, id, day from t where rowid <= 3")
                == [["2e7591323090", "12345678901234567890", "2024-01-10"], ["1E10", "12345678901234567891", "2024-01-11"],
                    ["0e5", "12345678901234567892", "2024-01-12"]])
        #expect(try rows(db, "select count(*) from t where code = '2e7591323090'") == [["5"]])
        #expect(try rows(db, "select rowid from t where id = '12345678901234567895'") == [["6"]])
        // A number with spaces around is a number, as the summary and the sort read it.
        #expect(try rows(db, "select typeof(amount), amount from t where rowid = 4") == [["integer", "50"]])
        #expect(try rows(db, "select count(*) from t where amount > 100") == [["38"]])
        #expect(try rows(db, "select rowid from t where amount = '50'") == [["4"]])
        #expect(try rows(db, "select price from t where rowid <= 2") == [["1.1"], ["2"]])
        #expect(try rows(db, "select count(*) from t where day >= '2024-01-25'") == [["10"]])
    }

    @Test("a column blank in its first records is judged by the cells that follow; one never filled is text")
    func sparseColumn() throws {
        let csv = "a,b,c\n" + (0..<3000).map { row in "\(row),\(row < 2500 ? "" : String(row)),\n" }.joined()
        let db = try database([("sparse", csv)], spacing: 4096)
        #expect(try columnTypes(db) == [.integer, .integer, .text])
        #expect(try rows(db, "select typeof(b), count(*) from t group by 1") == [["integer", "500"], ["null", "2500"]])
    }

    @Test("column names: the screen's, with names alike but for case made unique")
    func columnNames() throws {
        let db = try database([("names", "a,,A,a,column 2\n1,2,3,4,5\n")])
        let answer = try db.prepare("select * from t")
        // The screen calls them a, column 2_2, A, a_2, column 2; to SQLite A is a.
        #expect(answer.columns == ["a", "column 2_2", "A_3", "a_2", "column 2"])
    }

    @Test("a bad query, a missing column and a missing table are the query's errors, named")
    func errors() throws {
        let db = try database([("sales", Self.sales.csv)])
        #expect(throws: SQLError.query("near \"selec\": syntax error")) { try db.prepare("selec 1") }
        // In a later statement too (the earlier one's end must not hide the message).
        #expect(throws: SQLError.query("near \"selec\": syntax error")) { try db.prepare("select 1; selec 2") }
        do {
            _ = try db.prepare("select pricee from t")
            Issue.record("no error")
        } catch {
            #expect(error.isQueryError)
            #expect(error.description.hasPrefix("no such column: pricee (columns of t: id, country, city, price, note"))
        }
        do {
            _ = try db.prepare("select * from nowhere")
            Issue.record("no error")
        } catch {
            #expect(error.description == "no such table: nowhere (tables: t, sales)")
        }
        #expect(throws: SQLError.self) { try rows(db, "delete from t") }
    }

    @Test("several statements: the last one's answer")
    func statements() throws {
        let db = try database([("sales", Self.sales.csv)])
        #expect(try rows(db, "select count(*) from t; select count(*) from t where id <= 3") == [["3"]])
    }

    @Test("cancel stops a running answer from another thread")
    func cancel() throws {
        let db = try database([("sales", Self.sales.csv)])
        let answer = try db.prepare("select count(*) from t a, t b, t c")
        let cancellation = answer.cancellation
        let outcome = Mutex<SQLError?>(nil)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let running = answer   // only the thread below uses it until `done`
        Thread {
            do throws(SQLError) { _ = try running.next(batch: 1) } catch { outcome.withLock { $0 = error } }
            done.signal()
        }.start()
        cancellation.cancel()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(outcome.withLock { $0 } == .cancelled)
    }
}

import Synchronization

@Suite("SQL over an input still being read", .timeLimit(.minutes(30)))
struct SQLFollowingTests {
    @Test("queries started before the index is done wait for it and see every row")
    func followsTheIndex() throws {
        let data = Sales(count: 20_000, seed: 11)
        let bytes = Array(data.csv.utf8)
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }   // no child the suite spawns keeps it open
        let store = try CellStore.open(InputSpec(path: "/dev/fd/\(fds[0])", delimiter: UInt8(ascii: ",")))
        defer { store.stopLoading() }
        func write(_ range: Range<Int>) {
            bytes[range].withUnsafeBytes { part in
                var done = 0
                while done < part.count {
                    let count = Glibc.write(fds[1], part.baseAddress! + done, part.count - done)
                    if count <= 0 { return }
                    done += count
                }
            }
        }
        // The first half, then the header and the first rows are read...
        write(0..<(bytes.count / 2))
        #expect(turn(pausing: { usleep(1000) }, { store.prefetch(upTo: 1000) }, until: { store.readRowCount >= 1001 }),
                "the first rows are read")
        let input = try #require(SQLInput(store: store, name: "t", headerRows: 1))
        #expect(!store.isComplete)
        // ...two queries start, and wait for the rest.
        let outcomes = Mutex<[Int: [[String]]]>([:])
        let done = DispatchSemaphore(value: 0)
        let queries = ["select count(*), sum(id), count(price) from t",
                       "select country, count(*) from t group by country"]
        for (index, query) in queries.enumerated() {
            Thread {
                let answer = try? rows(try SQLDatabase(inputs: [input], settings: .tiny(pieceBytes: 4096)), query)
                outcomes.withLock { $0[index] = answer ?? [] }
                done.signal()
            }.start()
        }
        write((bytes.count / 2)..<bytes.count)
        close(fds[1])
        for _ in queries { #expect(done.wait(timeout: .now() + 120) == .success) }
        let answers = outcomes.withLock { $0 }
        #expect(answers[0] == [[String(data.sales.count), String(data.sales.map(\.id).reduce(0, +)),
                                String(data.sales.filter { $0.price != nil }.count)]])
        var counts: [String: Int] = [:]
        for sale in data.sales { counts[sale.country, default: 0] += 1 }
        #expect(answers[1] == counts.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { [$0, String(counts[$0]!)] })
        close(fds[0])
    }
}

#if canImport(Glibc)
import Glibc
#endif
