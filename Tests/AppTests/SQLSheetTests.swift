import Foundation
import Testing
@testable import App
import CellStore
import FreezeLayout
import SQL
import Table
import TestSupport
@testable import Viewer

@Suite("SQL answers as sheets over the table", .timeLimit(.minutes(30)))
struct SQLSheetTests {
    /// Orders: id, city, amount (every seventh empty), note.
    struct Order {
        var id: Int
        var city: String
        var amount: Int?
    }

    static let orders: [Order] = {
        var generator = SeededGenerator(seed: 42)
        let cities = ["Oslo", "Bergen", "Tromsø", "Bodø", "Alta"]
        return (1...300).map { id in
            Order(id: id, city: cities[Int(generator.next() % UInt64(cities.count))],
                  amount: id % 7 == 0 ? nil : Int(generator.next() % 1000))
        }
    }()

    static let csv = "id,city,amount,note\n" + orders.map { order in
        "\(order.id),\(order.city),\(order.amount.map(String.init) ?? ""),\"n, \(order.id)\""
    }.joined(separator: "\n") + "\n"

    /// A loop whose screen hears every wake: the store's, and through it the answer's and
    /// its passes' (a sheet's source wakes as the table's does).
    private func loop(_ csv: String = csv, name: String = "orders.csv") -> (AppLoop, FakeScreen) {
        setlocale(LC_ALL, "C.UTF-8")
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 100, height: 14)
        let store = CellStore(bytes: Array(csv.utf8), name: name, onChange: screen.wake)
        let table = Viewer(store: store, screenSize: screen.size)
        return (AppLoop(table: table, screen: screen, clock: clock, reopen: { CellStore(bytes: Array(csv.utf8)) }), screen)
    }

    private func keys(_ text: String) -> [Happening] { text.map { .key(.character($0)) } }

    /// Q, the query, Enter.
    private func ask(_ query: String, _ subject: AppLoop, _ screen: FakeScreen) {
        screen.script = [keys("Q") + keys(query) + [.key(.enter)]]
        subject.step()
    }

    /// Turns with news until `condition` holds (the answer's thread steps on its own): a
    /// turn each time the loop is woken, as the terminal's loop does, at most a minute.
    private func run(_ subject: AppLoop, _ screen: FakeScreen, until what: String, sourceLocation: SourceLocation = #_sourceLocation,
                     _ condition: () -> Bool) {
        let held = TestSupport.turn(news: screen.news, { screen.turnWithNews(subject) }, until: condition)
        #expect(held, "timed out waiting for \(what); the status line: \(status(subject))", sourceLocation: sourceLocation)
    }

    private func status(_ subject: AppLoop) -> String { subject.top.frame().lines.last ?? "" }

    private func cells(_ viewer: Viewer) -> [[String]] {
        (0..<viewer.dataRowCount).map { row in
            (0..<viewer.columnCount).map { String(decoding: viewer.table.cell(row: row, column: $0), as: UTF8.self) }
        }
    }

    private func sortedByBytes(_ texts: [String]) -> [String] {
        texts.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    @Test("Q, a query and Enter open its answer as a sheet: the rows a computation of its own gives, the count on the status line")
    func answer() {
        let (subject, screen) = loop()
        ask("select city, count(*), sum(amount) from t group by city", subject, screen)
        #expect(subject.sheets.count == 2)
        run(subject, screen, until: "the answer") { status(subject).contains("rows in") }
        var counts: [String: (Int, Int)] = [:]
        for order in Self.orders {
            counts[order.city, default: (0, 0)].0 += 1
            counts[order.city, default: (0, 0)].1 += order.amount ?? 0
        }
        let expected = sortedByBytes(Array(counts.keys)).map { [$0, String(counts[$0]!.0), String(counts[$0]!.1)] }
        #expect(cells(subject.top) == expected)
        let lines = subject.top.frame().lines
        #expect(lines[0].contains("city") && lines[0].contains("count(*)") && lines[0].contains("sum(amount)"), "\(lines[0])")
        #expect(lines[1].contains(expected[0][0]) && lines[1].contains(expected[0][1]), "\(lines[1])")
        #expect(status(subject).contains("\(expected.count) rows in"), "\(status(subject))")
        // The file's stem names it too, and the history keeps the query.
        screen.script = [[.key(.escape)]]
        subject.step()
        #expect(subject.sheets.count == 1)
        ask("select count(*) from orders where amount is null", subject, screen)
        run(subject, screen, until: "the count") { status(subject).contains("1 row in") }
        #expect(cells(subject.top) == [[String(Self.orders.filter { $0.amount == nil }.count)]])
        #expect(subject.table.history.queries == ["select city, count(*), sum(amount) from t group by city",
                                                   "select count(*) from orders where amount is null"])
        screen.script = [[.key(.escape)] + keys("Q") + [.key(.up)]]
        subject.step()
        #expect(status(subject).trimmingCharacters(in: .whitespaces) == "SQL> select count(*) from orders where amount is null")
    }

    @Test("an empty answer says so; a query SQLite refuses leaves the table with its message")
    func emptyAndRefused() {
        let (subject, screen) = loop()
        ask("select * from t where amount > 5000", subject, screen)
        run(subject, screen, until: "the empty answer") { status(subject).contains("no rows: the answer is empty") }
        #expect(subject.sheets.count == 2 && subject.top.dataRowCount == 0)
        #expect(subject.top.frame().lines[0].contains("amount"), "the columns still show")
        screen.script = [[.key(.escape)]]
        subject.step()
        ask("select nope from t", subject, screen)
        run(subject, screen, until: "the refusal") { subject.sheets.count == 1 }
        #expect(status(subject).contains("SQL: no such column: nope"), "\(status(subject))")
        ask("selec 1", subject, screen)
        run(subject, screen, until: "the refusal") { subject.sheets.count == 1 }
        #expect(status(subject).contains("SQL: near \"selec\": syntax error"), "\(status(subject))")
    }

    /// Every file in `directory`, with its bytes.
    private func contents(of directory: URL) throws -> [String: Data] {
        var all: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            all[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return all
    }

    @Test("SQL on screen may only read: a statement that would write, attach or change a setting says what was refused, and changes nothing")
    func onlyReads() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("orders.csv").path
        try Data(Self.csv.utf8).write(to: URL(fileURLWithPath: path))
        try Data().write(to: directory.appendingPathComponent("empty.csv"))
        let before = try contents(of: directory)
        setlocale(LC_ALL, "C.UTF-8")
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 100, height: 14)
        let store = try CellStore.open(InputSpec(path: path), onChange: screen.wake)
        let subject = AppLoop(table: Viewer(store: store, screenSize: screen.size), screen: screen, clock: clock,
                              reopen: { () throws(CellStoreError) in try CellStore.open(InputSpec(path: path)) })
        run(subject, screen, until: "the file") { store.isComplete }
        let dir = directory.path
        let refusals = [
            ("ATTACH DATABASE '\(dir)/x.db' AS x; CREATE TABLE x.t2 AS SELECT * FROM t; SELECT 1", "ATTACH"),
            ("attach '\(dir)/empty.csv' as e", "ATTACH"),
            ("VACUUM INTO '\(dir)/v.db'", "VACUUM"),
            ("drop table t; select 1", "DROP TABLE"),
            ("PRAGMA temp_store_directory = '\(dir)'", "PRAGMA temp_store_directory"),
            ("create temp table c as select * from t", "CREATE TEMP TABLE"),
            ("insert into t (id) values (9)", "INSERT"),
            ("select load_extension('\(dir)/x')", "load_extension()"),
            ("detach temp", "DETACH"),
            ("vacuum", "VACUUM"),
            ("create table c(a)", "CREATE TABLE"),
            ("pragma cache_size = 5", "PRAGMA cache_size"),
        ]
        for (query, refused) in refusals {
            ask(query, subject, screen)
            run(subject, screen, until: "the refusal of \(query)") { subject.sheets.count == 1 }
            #expect(status(subject).trimmingCharacters(in: .whitespaces).hasSuffix("comma SQL may only read: \(refused) is refused"), "\(query): \(status(subject))")
        }
        // SQLite itself refuses to change a virtual table: its message, and still no sheet.
        for query in ["delete from t", "update t set amount = 0"] {
            ask(query, subject, screen)
            run(subject, screen, until: "the refusal of \(query)") { subject.sheets.count == 1 }
            #expect(status(subject).contains("table t may not be modified"), "\(query): \(status(subject))")
        }
        #expect(try contents(of: directory) == before)
        // Reading goes on as before, the columns' types shown by pragma table_info.
        ask("pragma table_info(t)", subject, screen)
        run(subject, screen, until: "the types") { status(subject).contains("rows in") }
        #expect(cells(subject.top).map { [$0[1], $0[2]] } == [["id", "INTEGER"], ["city", "TEXT"], ["amount", "INTEGER"], ["note", "TEXT"]])
    }

    @Test("an answer whose statement ended before its sheet was made shows every column at once")
    func quickAnswerLaidOut() {
        let store = CellStore(bytes: Array(Self.csv.utf8), name: "orders.csv")
        let table = Viewer(store: store, screenSize: Size(width: 100, height: 14))
        let rows = QueryRows(query: "select * from t where amount > 5000", readers: store.recordReaders,
                             header: store.row(0)?.strings ?? [], headerRows: 1, names: ["t", "orders"], wake: {})
        rows.waitForEnd()
        let sheet = QuerySheet(rows: rows, headerRows: 1, table: table)
        let lines = sheet.viewer.frame().lines
        #expect(lines[0].contains("id") && lines[0].contains("city") && lines[0].contains("amount") && lines[0].contains("note"),
                "\(lines[0])")
        #expect(lines.last?.contains("no rows: the answer is empty") == true, "\(lines.last ?? "")")
    }

    /// A query that runs until it is stopped: its first row at once, then no more.
    static let endless = "with recursive c(x) as (select 1 union all select x + 1 from c) select x from c where x = 1 or x < 0"

    @Test("Esc stops a long query (SQLite's progress handler): the rows so far stay; Esc again goes back")
    func escapeStops() {
        let (subject, screen) = loop()
        ask(Self.endless, subject, screen)
        run(subject, screen, until: "the first row") { subject.top.dataRowCount == 1 && status(subject).contains("SQL running") }
        #expect(status(subject).contains("(Esc stops)"), "\(status(subject))")
        screen.script = [[.key(.escape)]]
        subject.step()
        run(subject, screen, until: "the stop") { status(subject).contains("stopped: the 1 row so far stay") }
        #expect(subject.sheets.count == 2 && cells(subject.top) == [["1"]])
        screen.script = [[.key(.escape)]]
        subject.step()
        #expect(subject.sheets.count == 1)
    }

    @Test("Esc on a long query with no row yet goes back at once and stops it")
    func escapeWithNoRows() {
        let (subject, screen) = loop()
        ask("with recursive c(x) as (select 1 union all select x + 1 from c) select x from c where x < 0", subject, screen)
        run(subject, screen, until: "the query to run") { status(subject).contains("SQL running") }
        screen.script = [[.key(.escape)]]
        // Closing the sheet waits for the statement to stop: it returns only if it did.
        subject.step()
        #expect(subject.sheets.count == 1)
    }

    @Test("q on a long query's sheet stops it and goes back at once; q again quits, and Ctrl-C quits from the sheet")
    func quitStops() {
        let (subject, screen) = loop()
        ask(Self.endless, subject, screen)
        run(subject, screen, until: "the first row") { subject.top.dataRowCount == 1 && status(subject).contains("SQL running") }
        // Closing the sheet waits for the statement to stop: it returns only if it did (a
        // statement that went on would hang here, and the suite's time limit fails it).
        screen.script = [keys("q")]
        subject.step()
        #expect(subject.sheets.count == 1 && !subject.isFinished)
        screen.script = [keys("q")]
        subject.step()
        #expect(subject.isFinished)

        let (again, screen2) = loop()
        ask(Self.endless, again, screen2)
        run(again, screen2, until: "the query to run") { status(again).contains("SQL running") }
        screen2.script = [[.key(Key.control("c"))]]
        again.step()
        #expect(again.isFinished)
    }

    @Test("the answer sheet sorts, filters, searches and saves like any sheet")
    func sheetKeys() throws {
        let (subject, screen) = loop()
        ask("select id, city, amount from t where amount is not null", subject, screen)
        run(subject, screen, until: "the answer") { status(subject).contains("rows in") }
        let sheet = subject.top
        let priced = Self.orders.filter { $0.amount != nil }
        #expect(sheet.dataRowCount == priced.count)
        // ] on amount: descending, ties in the answer's order.
        screen.script = [keys("ll]")]
        subject.step()
        run(subject, screen, until: "the sort") { !sheet.isQueryRunning && status(subject).contains("sorted by amount") }
        let byAmount = priced.enumerated().sorted { ($0.element.amount!, -$0.offset) > ($1.element.amount!, -$1.offset) }.map(\.element)
        #expect(cells(sheet).map { $0[0] } == byAmount.map { String($0.id) })
        // & keeps the rows where a cell matches: Tromsø's.
        screen.script = [keys("&Tromsø") + [.key(.enter)]]
        subject.step()
        run(subject, screen, until: "the filter") { !sheet.isQueryRunning && status(subject).contains("1 filter") }
        let tromsø = byAmount.filter { $0.city == "Tromsø" }
        #expect(cells(sheet).map { $0[0] } == tromsø.map { String($0.id) })
        // / finds a value of the rows in view.
        let wanted = tromsø[tromsø.count / 2]
        screen.script = [keys("g0\\^\(wanted.id)$") + [.key(.enter)]]
        subject.step()
        run(subject, screen, until: "the search") { !sheet.isSearching && sheet.cursorRow == tromsø.count / 2 }
        // Ctrl-S writes the view: the header, the rows in their order.
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("answer-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        screen.script = [[.key(Key.control("s"))] + keys(target) + [.key(.enter)]]
        subject.step()
        run(subject, screen, until: "the save") { status(subject).contains("wrote \(tromsø.count) rows") }
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written == "id,city,amount\n" + tromsø.map { "\($0.id),\($0.city),\($0.amount!)\n" }.joined())
    }

    @Test("Enter on a row of an answer with t's rowid goes to that row of the table; without one it says how")
    func enterGoesToTheRow() {
        let (subject, screen) = loop()
        ask("select rowid, city from t where city = 'Alta' order by rowid desc", subject, screen)
        run(subject, screen, until: "the answer") { status(subject).contains("rows in") }
        #expect(status(subject).contains("(Enter: that row in the table)"), "\(status(subject))")
        let alta = Self.orders.filter { $0.city == "Alta" }.reversed().map(\.id)
        screen.script = [[.key(.down), .key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 1)
        #expect(subject.table.cursorRow == alta[2] - 1)
        #expect(status(subject).contains("row \(alta[2]): the answer's rowid"), "\(status(subject))")
        #expect(status(subject).contains("row \(alta[2])/300"), "\(status(subject))")
        ask("select city from t limit 3", subject, screen)
        run(subject, screen, until: "the answer") { status(subject).contains("rows in") }
        screen.script = [[.key(.enter)]]
        subject.step()
        #expect(subject.sheets.count == 2)
        #expect(status(subject).contains("Enter goes to a row of the table when the answer has its rowid"), "\(status(subject))")
    }

    @Test("Q in a sheet says where to go instead, and does not quit")
    func qInASheet() {
        let (subject, screen) = loop()
        ask("select 1", subject, screen)
        run(subject, screen, until: "the answer") { status(subject).contains("1 row in") }
        screen.script = [keys("Q")]
        subject.step()
        #expect(subject.sheets.count == 2 && !subject.isFinished)
        #expect(status(subject).contains("SQL asks the file: Esc goes back to it"), "\(status(subject))")
    }
}
