import Foundation
import Testing
import TestSupport
import App
import CellStore
import FreezeLayout
import Table
import Viewer

/// The stacked view: every table in one scroll over the tables' own stores, each table's
/// header pinned while it is under the top, row numbers each table's own, the status
/// line naming the table under the cursor, `g` `G` `:` `}` `{` and search across tables.
@Suite("Stacked tables", .serialized, .timeLimit(.minutes(30)))
struct StackedViewTests {
    /// Three small tables of different shapes: `a.csv` (id,name: 6 rows), `b.tsv`
    /// (key, value, note: 4 rows), `c.csv` (x: 3 rows).
    static let data: [String: [UInt8]] = [
        "a.csv": Array("id,name\n1,Ann\n2,Bo\n3,Cy\n4,Di\n5,Ed\n6,Flo\n".utf8),
        "b.tsv": Array("key\tvalue\tnote\nk1\t10\tfirst\nk2\t20\tAnn again\nk3\t30\t\nk4\t40\tlast\n".utf8),
        "c.csv": Array("x\n7\n8\n9\n".utf8),
    ]

    /// A stacked loop over `data`, counted and settled.
    static func stacked(_ data: [String: [UInt8]] = data, order: [String]? = nil,
                        size: Size = Size(width: 44, height: 7), loopOptions: ViewerOptions = ViewerOptions()) -> (AppLoop, FakeScreen, TableShelf) {
        let names = order ?? data.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let inputs = names.map { TableInput(path: $0, facts: InputFacts(size: Int64(data[$0]?.count ?? 0), compression: nil)) }
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = size
        // The stores, their passes and the census wake the screen, as the wake pipe does.
        let wake = screen.wake
        let open: @Sendable (TableInput) throws(CellStoreError) -> CellStore = { input throws(CellStoreError) in
            guard let path = input.path, let bytes = data[path] else { throw CellStoreError.notFound(input.path ?? "-") }
            return CellStore(bytes: bytes, name: path, onChange: wake)
        }
        let shelf = TableShelf(inputs: inputs, open: open, count: open, wake: wake)
        var options = ViewerOptions()
        options.place = "1/\(names.count)"
        let first = Viewer(store: try! shelf.store(0), options: options, screenSize: screen.size)
        let subject = AppLoop(shelf: shelf, first: first, options: loopOptions, screen: screen, clock: clock, stacked: true)
        turn(subject, screen, until: "every table in the stack") {
            subject.table.stack?.isComplete == true && subject.table.dataRowCount == subject.table.stack!.rowCount - 1
        }
        screen.script = [[]]
        subject.step()
        return (subject, screen, shelf)
    }

    static func keys(_ text: String) -> [Happening] { text.map { .key(.character($0)) } }

    /// Sends `text` (a key each, Enter for `\n`), takes a turn, and one more to draw it.
    static func type(_ subject: AppLoop, _ screen: FakeScreen, _ text: String) {
        screen.script = [text.map { $0 == "\n" ? .key(.enter) : .key(.character($0)) }, []]
        subject.step()
        subject.step()
    }

    /// The screen's lines, without the scroll indicator and trailing blanks.
    static func lines(_ screen: FakeScreen) -> [String] {
        screen.lastScreen.map { String($0.reversed().drop(while: { $0 == " " || $0 == "▐" }).reversed()) }
    }

    static func status(_ screen: FakeScreen) -> String { lines(screen).last ?? "" }

    @Test("--band over stacked tables says where the band is drawn, not nothing")
    func bandAskedInStack() {
        var options = ViewerOptions()
        options.showsBand = true
        let (subject, screen, _) = Self.stacked(size: Size(width: 100, height: 7), loopOptions: options)
        #expect(Self.status(screen).contains("the band works in one table: S leaves the stack"),
                "\(Self.status(screen))")
        #expect(subject.table.stack != nil)
    }

    @Test("frames: the first table's header pinned; the next one's in the scroll, then pinned in its place")
    func stickyHeaders() {
        let (subject, screen, _) = Self.stacked()
        #expect(Self.lines(screen) == [
            "  #│id  name  column 3",
            "  1│  1 Ann",
            "  2│  2 Bo",
            "  3│  3 Cy",
            "  4│  4 Di",
            "  5│  5 Ed",
            " a.csv 1/3 stacked  row 1/6  col 1/3 id",
        ])
        // The second table's header at the top of the scroll: the first's still pinned.
        Self.type(subject, screen, ":b.tsv:4\n")
        #expect(Self.lines(screen) == [
            "  #│id  name  column 3",
            "  #│key value note",
            "  1│k1     10 first",
            "  2│k2     20 Ann again",
            "  3│k3     30",
            "  4│k4     40 last",
            " b.tsv 2/3 stacked  row 4/4  col 1/3 key",
        ])
        // One line further: the second table's header takes the pinned place.
        Self.type(subject, screen, "j")
        #expect(Self.lines(screen) == [
            "  #│key value note",
            "  1│k1     10 first",
            "  2│k2     20 Ann again",
            "  3│k3     30",
            "  4│k4     40 last",
            "  #│x",
            " c.csv 3/3 stacked  header/3  col 1/3 x",
        ])
        Self.type(subject, screen, "jj")
        #expect(Self.lines(screen) == [
            "  #│key value note",
            "  3│k3     30",
            "  4│k4     40 last",
            "  #│x",
            "  1│  7",
            "  2│  8",
            " c.csv 3/3 stacked  row 2/3  col 1/3 x",
        ])
    }

    @Test("g and G: the first row of the first table, the last of the last; } and { go from table to table")
    func endsAndSections() {
        let (subject, screen, _) = Self.stacked()
        Self.type(subject, screen, "G")
        #expect(Self.status(screen).hasPrefix(" c.csv 3/3 stacked  row 3/3"))
        #expect(Self.lines(screen)[0] == "  #│key value note", "the line above the top is the second table's")
        Self.type(subject, screen, "g")
        #expect(Self.status(screen).hasPrefix(" a.csv 1/3 stacked  row 1/6"))
        Self.type(subject, screen, "}")
        #expect(Self.status(screen).hasPrefix(" b.tsv 2/3 stacked  row 1/4"))
        Self.type(subject, screen, "}")
        #expect(Self.status(screen).hasPrefix(" c.csv 3/3 stacked  row 1/3"))
        Self.type(subject, screen, "}")
        #expect(Self.status(screen).contains("the last table"))
        Self.type(subject, screen, "j{")
        #expect(Self.status(screen).hasPrefix(" c.csv 3/3 stacked  row 1/3"), "{ below a table's first row: to it")
        Self.type(subject, screen, "{")
        #expect(Self.status(screen).hasPrefix(" b.tsv 2/3 stacked  row 1/4"))
        Self.type(subject, screen, "''")
        #expect(Self.status(screen).hasPrefix(" c.csv 3/3 stacked  row 1/3"), "'' comes back")
    }

    @Test(": takes table:row by number or name, and a plain row in the table under the cursor")
    func goTo() {
        let (subject, screen, _) = Self.stacked()
        Self.type(subject, screen, ":2:3\n")
        #expect(Self.status(screen).hasPrefix(" b.tsv 2/3 stacked  row 3/4"))
        Self.type(subject, screen, ":c:2\n")
        #expect(Self.status(screen).hasPrefix(" c.csv 3/3 stacked  row 2/3"))
        Self.type(subject, screen, ":a.csv:\n")
        #expect(Self.status(screen).hasPrefix(" a.csv 1/3 stacked  row 1/6"))
        Self.type(subject, screen, ":5\n")
        #expect(Self.status(screen).hasPrefix(" a.csv 1/3 stacked  row 5/6"))
        Self.type(subject, screen, "}:3\n")
        #expect(Self.status(screen).hasPrefix(" b.tsv 2/3 stacked  row 3/4"), "a plain row: of the table under the cursor")
        Self.type(subject, screen, ":b:9\n")
        #expect(Self.status(screen).contains("b.tsv has 4 rows") && Self.status(screen).contains("row 4/4"))
        Self.type(subject, screen, ":nosuch:1\n")
        #expect(Self.status(screen).contains("no table nosuch"))
        Self.type(subject, screen, ":#2\n")
        #expect(subject.table.cursorColumn == 1, "a column by number still works")
    }

    @Test("/ n N search through every table in order, pass over the headers, and wrap")
    func search() {
        let (subject, screen, _) = Self.stacked()
        Self.type(subject, screen, "/Ann\n")
        turn(subject, screen, until: "the search") { !subject.table.isSearching }
        Self.type(subject, screen, "")
        #expect(Self.status(screen).hasPrefix(" a.csv 1/3 stacked  row 1/6  col 2/3"), "the cursor's row, a later column")
        Self.type(subject, screen, "n")
        turn(subject, screen, until: "n") { !subject.table.isSearching }
        Self.type(subject, screen, "")
        #expect(Self.status(screen).hasPrefix(" b.tsv 2/3 stacked  row 2/4  col 3/3"), "into the next table")
        Self.type(subject, screen, "n")
        turn(subject, screen, until: "n") { !subject.table.isSearching }
        Self.type(subject, screen, "")
        #expect(Self.status(screen).contains("row 1/6  col 2/3") && Self.status(screen).contains("wrapped"))
        Self.type(subject, screen, "N")
        turn(subject, screen, until: "N") { !subject.table.isSearching }
        Self.type(subject, screen, "")
        #expect(Self.status(screen).contains("row 2/4  col 3/3"), "N wraps back to the last match")
        // A header's names are not data: searching one finds nothing in the stack.
        Self.type(subject, screen, "/^note$\n")
        turn(subject, screen, until: "the header search") { !subject.table.isSearching }
        Self.type(subject, screen, "")
        #expect(Self.status(screen).contains("not found"))
    }

    @Test("S leaves the stack for the table under the cursor, on its record, and comes back to where it was")
    func toggle() {
        let (subject, screen, _) = Self.stacked()
        Self.type(subject, screen, ":b:3\nl")
        Self.type(subject, screen, "S")
        #expect(!subject.isStacked && subject.current == 1)
        #expect(subject.table.cursorRow == 2 && subject.table.cursorColumn == 1)
        #expect(Self.status(screen).hasPrefix(" b.tsv 2/3  row 3/4"))
        Self.type(subject, screen, "j")
        Self.type(subject, screen, "S")
        #expect(subject.isStacked)
        #expect(Self.status(screen).hasPrefix(" b.tsv 2/3 stacked  row 4/4"), "the table's cursor, taken into the stack")
        // T lists the tables with the one under the cursor chosen; Enter there shows one.
        Self.type(subject, screen, "T")
        #expect(subject.sheets.count == 2 && subject.top.cursorRow == 1)
        Self.type(subject, screen, "k\n")
        #expect(!subject.isStacked && subject.current == 0 && subject.sheets.count == 1)
    }

    @Test("what a stack does not do is said at the key, in one line that fits 80 columns and says what to do")
    func refused() {
        let (subject, screen, _) = Self.stacked(size: Size(width: 80, height: 7))
        for key in ["[", "]", "#", "I", "R", "o", "@"] {
            Self.type(subject, screen, key)
            #expect(Self.status(screen).hasSuffix("works in one table: S leaves the stack"), "\(key): \(Self.status(screen))")
            #expect(Self.status(screen).contains("a.csv 1/3 stacked  row 1/6"), "beside where the cursor is: \(Self.status(screen))")
        }
        #expect(subject.table.dataRowCount == 15 && subject.sheets.count == 1)
    }

    @Test("a prompt's key in the stack (Ctrl-S, &, |, Q) refuses at once, on one line of 80 columns, and what is typed next runs nothing until Enter or Esc")
    func refusedPrompts() {
        let (subject, screen, _) = Self.stacked(size: Size(width: 80, height: 7))
        let said: [Key: String] = [
            .control("s"): "Ctrl-S writes one table: S leaves the stack, then Ctrl-S there  (Esc)",
            .character("&"): "filters work in one table: S leaves the stack, then filter there  (Esc)",
            .character("|"): "filters work in one table: S leaves the stack, then filter there  (Esc)",
            .character("Q"): "Q asks SQL of one table: S leaves the stack, then Q there  (Esc)",
        ]
        for (key, line) in said {
            screen.script = [[.key(key)], []]
            subject.step()
            subject.step()
            #expect(Self.status(screen) == line)
            #expect(DisplayWidth.of(line) <= 80)
            // A path typed for a save that did not open, keys among it: none of them runs.
            Self.type(subject, screen, "jjGout.csv")
            #expect(Self.status(screen) == line, "still said while typing")
            Self.type(subject, screen, "\n")
            #expect(subject.table.cursorRow == 0 && subject.table.cursorColumn == 0, "\(key): nothing typed moved the cursor")
            #expect(Self.status(screen).hasPrefix(" a.csv 1/3 stacked  row 1/6"), "Enter ends it: \(Self.status(screen))")
        }
        screen.script = [[.key(.control("s"))], [.key(.escape)], []]
        for _ in 0..<3 { subject.step() }
        #expect(Self.status(screen).hasPrefix(" a.csv 1/3 stacked  row 1/6"), "Esc ends it too: \(Self.status(screen))")
        #expect(subject.sheets.count == 1)
    }

    @Test("one table: S says there is only one")
    func oneTable() {
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 100, height: 8)
        let subject = AppLoop(table: Viewer(store: CellStore(bytes: Array("a\n1\n".utf8)), screenSize: screen.size),
                              screen: screen, clock: clock, reopen: { CellStore(bytes: []) })
        Self.type(subject, screen, "S")
        #expect(Self.status(screen).contains("only one table is open: S stacks several"))
    }

    @Test("a stack over many tables opens only those on screen; tables come in order as they are counted")
    func lazy() {
        var data: [String: [UInt8]] = [:]
        for index in 0..<300 { data[String(format: "t%03d.csv", index)] = Array("n\n\(index)a\n\(index)b\n".utf8) }
        let (subject, screen, shelf) = Self.stacked(data, size: Size(width: 60, height: 7))
        #expect(subject.table.dataRowCount == 300 * 3 - 1)
        #expect(shelf.openStoreCount <= 1 + shelf.keptLimit, "\(shelf.openStoreCount)")
        Self.type(subject, screen, "G")
        #expect(Self.status(screen).hasPrefix(" t299.csv 300/300 stacked  row 2/2"))
        // (The width may have been measured before the last tables' rows could be read.)
        #expect(Self.lines(screen)[5].hasPrefix("  2│29"))
        #expect(String(decoding: subject.table.table.cell(row: subject.table.cursorRow, column: 0), as: UTF8.self) == "299b")
        #expect(shelf.openStoreCount <= 1 + shelf.keptLimit)
        Self.type(subject, screen, ":t150:1\n")
        #expect(Self.status(screen).hasPrefix(" t150.csv 151/300 stacked  row 1/2"))
        #expect(String(decoding: subject.table.table.cell(row: subject.table.cursorRow, column: 0), as: UTF8.self) == "150a")
    }

    @Test("a random walk through the stack keeps the viewer's invariants and the stack's", arguments: [1, 2, 3])
    func randomWalk(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var data = Self.data
        data["d.csv"] = Array("only,a,header\n".utf8)
        data["e.csv"] = Array("p,q\n\(String(repeating: "1,2\n", count: 40))".utf8)
        let (subject, screen, _) = Self.stacked(data, size: Size(width: 70, height: 8))
        let moves = ["j", "k", "G", "g", "l", "h", "}", "{", "F", "d", "u", "5j", ">", "S", "S", ":b:2\n", ":3\n", "/1\n", "n", "N",
                     "T", "\n"]
        for step in 0..<300 {
            let move = moves[Int(random.next() % UInt64(moves.count))]
            Self.type(subject, screen, move)
            if subject.table.isSearching {
                turn(subject, screen, until: "a search") { !subject.table.isSearching }
                Self.type(subject, screen, "")
            }
            for viewer in subject.sheets {
                #expect(viewer.invariantViolations.isEmpty, "step \(step) (\(move)): \(viewer.invariantViolations)")
            }
            guard subject.isStacked, subject.sheets.count == 1, let stack = subject.table.stack else { continue }
            let viewer = subject.table
            let record = viewer.table.record(ofRow: viewer.cursorRow)
            let section = stack.section(ofRecord: record)
            let name = stack.name(ofSection: section)
            let status = Self.status(screen)
            if viewer.message == nil {
                #expect(status.hasPrefix(" \(name) \(section + 1)/5 stacked"), "step \(step) (\(move)): \(status)")
            }
            let local = stack.localRecord(record)
            #expect(local >= 0 && local < stack.recordCount(ofSection: section))
            #expect(status.contains(local == 0 ? "header/" : "row \(local)/") || viewer.message != nil, "step \(step): \(status)")
            // The pinned header is the header of the table of the line above main's top
            // (while the sheet springs back from an edge, the whole grid is pulled).
            guard !viewer.isAnimating else { continue }
            let top = Self.lines(screen)[0]
            let topRow = viewer.mainFirstRow + max(0, viewer.window.drawingOffset.y - viewer.scrollingHeaderRows)
            let above = topRow > 0 ? stack.section(ofRecord: viewer.table.record(ofRow: topRow - 1)) : 0
            let header = stack.row(stack.start(ofSection: above))?.strings.first ?? ""
            #expect(top.hasPrefix("  #│") && top.contains(header), "step \(step) (\(move)): '\(top)' for \(header)")
        }
    }

    /// A table of `rows` rows of three columns, some cells with `x` in them (quoted, with
    /// a delimiter or a line break inside, sometimes), tab-separated when `tabs`.
    static func matchTable(_ random: inout SeededGenerator, rows: Int, tabs: Bool) -> [UInt8] {
        let words = ["a", "x", "bx", "xx", "ab", "\"x,y\"", "\"a\nx\"", "\"q\"\"x\"", "", "X"]
        var text = tabs ? "p\tq\tr\n" : "p,q,r\n"
        for _ in 0..<rows {
            let cells = (0..<3).map { _ in words[Int(random.next() % UInt64(words.count))] }
            text += cells.joined(separator: tabs ? "\t" : ",") + "\n"
        }
        return Array(text.utf8)
    }

    /// Where the cursor of `viewer` is: its table in the stack (0 when not stacked), its
    /// data row in that table, and its input column.
    static func place(_ viewer: Viewer) -> [Int] {
        let record = viewer.table.record(ofRow: viewer.cursorRow)
        let column = viewer.table.fileColumn(viewer.cursorColumn)
        guard let stack = viewer.table.source as? StackRows else { return [0, record - 1, column] }
        return [stack.section(ofRecord: record), stack.localRecord(record) - 1, column]
    }

    /// The matches `step` visits (`n` or `N` each time), from the one after the cursor
    /// round to it again, each with whether the status line said the search wrapped;
    /// `settle` waits for a search to end.
    static func cycle(_ viewer: Viewer, settle: () -> Void, step: () -> Void) -> [(place: [Int], wrapped: Bool)] {
        var visited: [(place: [Int], wrapped: Bool)] = []
        while visited.count < 2000 {
            step()
            settle()
            let place = Self.place(viewer)
            if visited.first?.place == place { break }
            visited.append((place, viewer.message?.contains("wrapped") == true))
        }
        return visited
    }

    /// `cycle` turned to begin at the first match of the first table, in that order.
    static func fromTop(_ visited: [(place: [Int], wrapped: Bool)], backward: Bool) -> [[Int]] {
        var places = visited.map(\.place)
        if backward { places.reverse() }
        guard let first = places.indices.min(by: { places[$0].lexicographicallyPrecedes(places[$1]) }) else { return [] }
        return Array(places[first...] + places[..<first])
    }

    @Test("/ n N in the stack find each table's own matches, in the order searching each table alone finds them, and wrap",
          arguments: [1, 2, 3] as [UInt64])
    func searchAsEachTableAlone(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var data: [String: [UInt8]] = [:]
        data["t1.csv"] = Self.matchTable(&random, rows: 16, tabs: false)
        data["t2.csv"] = Array("p,q,r\n".utf8)   // a header only
        data["t3.tsv"] = Self.matchTable(&random, rows: 12, tabs: true)
        data["t4.csv"] = Self.matchTable(&random, rows: 8, tabs: false)
        let order = ["t1.csv", "t2.csv", "t3.tsv", "t4.csv"]
        for pattern in ["x", "^x$", "x,y|a\\nx"] {
            // Each table alone: its matches from its top, as n finds them.
            var expected: [[Int]] = []
            for (index, name) in order.enumerated() {
                let viewer = Viewer(store: CellStore(bytes: try #require(data[name]), name: name), screenSize: Size(width: 80, height: 10))
                let settle = {
                    viewer.handle(.refresh)
                    #expect(turn(pausing: {}, { viewer.handle(.refresh) }, until: { !viewer.isSearching && viewer.source.isComplete }),
                            "the search ends")
                }
                settle()
                guard viewer.dataRowCount > 0 else { continue }
                var started = false
                let alone = Self.cycle(viewer, settle: settle) {
                    if started { viewer.handle(key: .character("n")) } else {
                        for key in "/\(pattern)" { viewer.handle(key: .character(key)) }
                        viewer.handle(key: .enter)
                        started = true
                    }
                }
                expected += Self.fromTop(alone, backward: false).map { [index] + $0.dropFirst() }
            }
            #expect(!expected.isEmpty, "\(pattern): the tables have matches")

            let (subject, screen, _) = Self.stacked(data, order: order, size: Size(width: 80, height: 10))
            let settle = { turn(subject, screen, until: "the search") { !subject.table.isSearching } }
            Self.type(subject, screen, "/\(pattern)\n")
            settle()
            let forward = Self.cycle(subject.table, settle: settle) { Self.type(subject, screen, "n") }
            #expect(Self.fromTop(forward, backward: false) == expected, "\(pattern): n in the stack")
            // Wrapped: said on the step from the last match to the first, and only there.
            for (index, step) in forward.enumerated() {
                #expect(step.wrapped == (step.place == expected.first), "\(pattern): n to \(step.place), step \(index)")
            }
            let backward = Self.cycle(subject.table, settle: settle) { Self.type(subject, screen, "N") }
            #expect(Self.fromTop(backward, backward: true) == expected, "\(pattern): N in the stack")
            for step in backward {
                #expect(step.wrapped == (step.place == expected.last), "\(pattern): N to \(step.place)")
            }
        }
    }
}
