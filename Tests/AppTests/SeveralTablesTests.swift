import Foundation
import Testing
import App
import CellStore
import FreezeLayout
import Table
import Viewer

/// Several tables in one loop: switching, the list of tables, what each keeps, and what
/// is put away to bound memory.
@Suite("Several tables in one container", .serialized, .timeLimit(.minutes(30)))
struct SeveralTablesTests {
    /// Tables by name: `t0.csv` … with `rows` rows each, of different columns.
    static func tables(_ count: Int, rows: Int = 30) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for index in 0..<count {
            var text = index % 2 == 0 ? "id,name,city\n" : "key\tvalue\n"
            for row in 1...max(1, rows) {
                text += index % 2 == 0 ? "\(row),n\(index)-\(row),c\(row % 3)\n" : "k\(index)-\(row)\t\(row * 10)\n"
            }
            result["t\(index).csv"] = Array(text.utf8)
        }
        return result
    }

    /// A loop over in-memory tables `names` (in that order).
    static func loop(_ data: [String: [UInt8]], order names: [String]? = nil, size: Size = Size(width: 50, height: 10))
        -> (AppLoop, FakeScreen, TableShelf) {
        let names = names ?? data.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
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
        // The first store through the shelf, as the session opens it.
        let first = Viewer(store: try! shelf.store(0), options: options, screenSize: screen.size)
        return (AppLoop(shelf: shelf, first: first, options: ViewerOptions(), screen: screen, clock: clock), screen, shelf)
    }

    static func keys(_ text: String) -> [Happening] { text.map { .key(.character($0)) } }

    @Test("} and { go round the tables; the status line names each with its place; each keeps its own cursor")
    func switching() {
        let (subject, screen, _) = Self.loop(Self.tables(3))
        screen.script = [Self.keys("jjjl")]
        subject.step()
        #expect(subject.table.cursorRow == 3 && subject.table.cursorColumn == 1)
        screen.script = [Self.keys("}"), []]
        subject.step()
        subject.step()
        #expect(subject.current == 1)
        #expect(screen.lastScreen.last?.contains("t1.csv 2/3") == true, "\(screen.lastScreen.last ?? "")")
        #expect(screen.lastScreen.first?.contains("key") == true, "the second table's own header")
        #expect(subject.table.cursorRow == 0)
        screen.script = [Self.keys("G}"), []]
        subject.step()
        subject.step()
        #expect(subject.current == 2)
        #expect(screen.lastScreen.last?.contains("t2.csv 3/3") == true)
        screen.script = [Self.keys("}")]
        subject.step()
        #expect(subject.current == 0, "} wraps around to the first")
        #expect(subject.table.cursorRow == 3 && subject.table.cursorColumn == 1, "its cursor kept")
        screen.script = [Self.keys("{")]
        subject.step()
        #expect(subject.current == 2, "{ wraps around to the last")
        screen.script = [Self.keys("{")]
        subject.step()
        #expect(subject.current == 1 && subject.table.cursorRow == 29, "G stayed in the second table")
    }

    @Test("search, filter and sort stay with their table")
    func ownViews() {
        let (subject, screen, _) = Self.loop(Self.tables(2))
        screen.script = [Self.keys("/n0-2") + [.key(.enter)]]
        subject.step()
        turn(subject, screen, until: "the search") { !subject.table.isSearching }
        #expect(subject.table.cursorRow == 1)
        screen.script = [Self.keys("}")]
        subject.step()
        screen.script = [Self.keys("&k1-2") + [.key(.enter)]]
        subject.step()
        turn(subject, screen, until: "the filter") { subject.table.dataRowCount < 30 }
        let filtered = subject.table.dataRowCount
        #expect(filtered == 11, "k1-2 and k1-20…k1-29")
        screen.script = [Self.keys("}")]
        subject.step()
        #expect(subject.table.dataRowCount == 30, "the first table is not filtered")
        screen.script = [Self.keys("n")]
        subject.step()
        turn(subject, screen, until: "n") { !subject.table.isSearching }
        #expect(subject.table.cursorRow == 19, "n goes on with the first table's own search (n0-20)")
        screen.script = [Self.keys("}")]
        subject.step()
        #expect(subject.table.dataRowCount == filtered)
    }

    @Test("T lists the tables with their sizes and counts; Enter shows one; Esc goes back")
    func list() {
        let data = Self.tables(3, rows: 5)
        let (subject, screen, _) = Self.loop(data)
        screen.script = [Self.keys("T")]
        subject.step()
        #expect(subject.sheets.count == 2)
        turn(subject, screen, until: "every table counted") {
            screen.lastScreen.count > 3 && screen.lastScreen[1...3].allSatisfy { $0.contains(" 5 ") }
        }
        let lines = screen.lastScreen
        #expect(lines[0].contains("table") && lines[0].contains("rows") && lines[0].contains("columns"))
        #expect(lines[1].contains("t0.csv") && lines[1].contains("\(data["t0.csv"]!.count) B") && lines[1].contains("comma"))
        #expect(lines[2].contains("t1.csv") && lines[2].contains("tab"))
        screen.script = [[.key(.down), .key(.down), .key(.enter)]]
        subject.step()
        #expect(subject.current == 2 && subject.sheets.count == 1)
        screen.script = [Self.keys("T"), [.key(.escape)]]
        subject.step()
        subject.step()
        #expect(subject.current == 2 && subject.sheets.count == 1)
    }

    @Test("one table: } and T say there is only one")
    func oneTable() {
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = Size(width: 100, height: 8)
        let subject = AppLoop(table: Viewer(store: CellStore(bytes: Array("a\n1\n".utf8)), screenSize: screen.size),
                              screen: screen, clock: clock, reopen: { CellStore(bytes: []) })
        screen.script = [Self.keys("}"), []]
        subject.step()
        subject.step()
        #expect(screen.lastScreen.last?.contains("only one table is open") == true)
        screen.script = [Self.keys("T"), []]
        subject.step()
        subject.step()
        #expect(subject.sheets.count == 1)
        #expect(screen.lastScreen.last?.contains("only one table is open: T lists several") == true)
    }

    @Test("past a few tables shown, the least recent are put away, and come back as they were")
    func putAway() {
        let (subject, screen, shelf) = Self.loop(Self.tables(20))
        screen.script = [Self.keys("jjl")]
        subject.step()
        for _ in 0..<19 {
            screen.script = [Self.keys("}j")]
            subject.step()
            #expect(subject.liveTables.count <= 8, "\(subject.liveTables)")
            #expect(shelf.openStoreCount <= 8 + shelf.keptLimit)
        }
        #expect(!subject.liveTables.contains(0))
        screen.script = [Self.keys("}")]
        subject.step()
        #expect(subject.current == 0)
        #expect(subject.table.cursorRow == 2 && subject.table.cursorColumn == 1, "the cursor where it was")
    }

    @Test("a random walk across tables keeps every viewer's invariants", arguments: [1, 2, 3])
    func randomWalk(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let (subject, screen, shelf) = Self.loop(Self.tables(12, rows: 25), size: Size(width: 40, height: 8))
        let moves: [[Happening]] = [
            Self.keys("j"), Self.keys("k"), Self.keys("G"), Self.keys("g"), Self.keys("l"), Self.keys("}"), Self.keys("{"),
            Self.keys("F"), Self.keys("T"), [.key(.escape)], [.key(.enter)], Self.keys("5j"), Self.keys(">"), Self.keys("-"),
            Self.keys("+"), [.key(.pageDown)], [.news], [.resize(Size(width: 30, height: 6))], [.resize(Size(width: 50, height: 10))],
        ]
        for step in 0..<300 {
            screen.script = [moves[Int(random.next() % UInt64(moves.count))]]
            subject.step()
            if subject.isFinished { break }
            for viewer in subject.sheets {
                #expect(viewer.invariantViolations.isEmpty, "step \(step): \(viewer.invariantViolations)")
            }
            #expect(subject.liveTables.count <= 8)
            #expect(subject.table.options.place == "\(subject.current + 1)/12" || subject.current == 0)
            #expect(subject.table.source.name == shelf.inputs[subject.current].name)
        }
    }
}
