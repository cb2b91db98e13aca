#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import App
import CellStore
import FreezeLayout
import Viewer

/// Several tables whose files change on disk while they are open: a deleted table is
/// passed over by `}` and `{` (said, with the arriving table's name kept), and the list
/// of tables and the stack show what the files hold now, never old counts as if current.
@Suite("Tables whose files change on disk", .serialized, .timeLimit(.minutes(30)))
struct ChangedFilesTests {
    /// `a.csv` (3 rows), `b.csv` (2 rows), `c.csv` (2 rows) in a new directory.
    static func files() throws -> (URL, [String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-changed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let contents = ["a.csv": "id,name\n1,Ann\n2,Bo\n3,Cy\n", "b.csv": "k,v\nk1,10\nk2,20\n", "c.csv": "x,y\n7,8\n9,10\n"]
        var paths: [String] = []
        for name in ["a.csv", "b.csv", "c.csv"] {
            let url = directory.appendingPathComponent(name)
            try Data(contents[name]!.utf8).write(to: url)
            paths.append(url.path)
        }
        return (directory, paths)
    }

    /// A loop over the files at `paths`, as the command line opens them.
    static func loop(_ paths: [String], stacked: Bool = false, size: Size = Size(width: 80, height: 14))
        throws -> (AppLoop, FakeScreen, TableShelf) {
        let inputs = TableInputs.gather(paths).inputs
        let clock = FakeClock()
        let screen = FakeScreen(clock: clock)
        screen.size = size
        // The stores, their passes and the census wake the screen, as the wake pipe does.
        let wake = screen.wake
        let open: @Sendable (TableInput) throws(CellStoreError) -> CellStore = { input throws(CellStoreError) in
            try CellStore.open(InputSpec(path: input.path), shared: input.stream, onChange: wake)
        }
        let count: @Sendable (TableInput) throws(CellStoreError) -> CellStore = { input throws(CellStoreError) in
            try CellStore.open(InputSpec(path: input.path), shared: input.stream, startsLoader: false, onChange: wake)
        }
        let shelf = TableShelf(inputs: inputs, open: open, count: count, wake: wake)
        var options = ViewerOptions()
        options.place = "1/\(inputs.count)"
        let first = Viewer(store: try shelf.store(0), options: options, screenSize: screen.size)
        let subject = AppLoop(shelf: shelf, first: first, options: ViewerOptions(), screen: screen, clock: clock, stacked: stacked)
        turn(subject, screen, until: "every table counted") {
            (0..<shelf.count).allSatisfy { shelf.facts($0).isFinal }
        }
        return (subject, screen, shelf)
    }

    @Test("} and { pass over a table whose file was deleted, say so, and the arriving table's name stays on 80 columns")
    func passOver() throws {
        let (directory, paths) = try Self.files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (subject, screen, _) = try Self.loop(paths)
        try FileManager.default.removeItem(atPath: paths[1])
        StackedViewTests.type(subject, screen, "}")
        #expect(subject.current == 2, "past b.csv to c.csv")
        let status = StackedViewTests.status(screen)
        #expect(status.contains("c.csv 3/3"), "the name kept: \(status)")
        #expect(status.hasSuffix("skipped b.csv: no such file"), "\(status)")
        StackedViewTests.type(subject, screen, "{")
        #expect(subject.current == 0, "back past it to a.csv")
        #expect(StackedViewTests.status(screen).hasSuffix("skipped b.csv: no such file"))
    }

    @Test("} with no other table that can be shown stays, says why, and keeps the name")
    func noneToShow() throws {
        let (directory, paths) = try Self.files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (subject, screen, _) = try Self.loop(paths)
        try FileManager.default.removeItem(atPath: paths[1])
        try FileManager.default.removeItem(atPath: paths[2])
        StackedViewTests.type(subject, screen, "}")
        #expect(subject.current == 0)
        #expect(subject.top.message == "no other table can be shown: b.csv: no such file; c.csv: no such file")
        #expect(StackedViewTests.status(screen).contains("a.csv 1/3"), "the name stays: \(StackedViewTests.status(screen))")
    }

    @Test("T lists a file deleted since it was counted as one that cannot be read, with no old size or count")
    func listDeleted() throws {
        let (directory, paths) = try Self.files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (subject, screen, shelf) = try Self.loop(paths, size: Size(width: 140, height: 8))
        StackedViewTests.type(subject, screen, "T")
        #expect(StackedViewTests.lines(screen).contains { $0.contains("b.csv│16 B    2       2 comma") })
        screen.script = [[.key(.escape)], []]
        subject.step()
        subject.step()
        try FileManager.default.removeItem(atPath: paths[1])
        StackedViewTests.type(subject, screen, "T")
        #expect(StackedViewTests.status(screen).contains("b.csv was deleted: counted again"), "\(StackedViewTests.status(screen))")
        turn(subject, screen, until: "the deleted file counted again") {
            StackedViewTests.lines(screen).contains { $0.contains("b.csv") && $0.contains("cannot be read") }
        }
        let line = StackedViewTests.lines(screen).first { $0.contains("b.csv") } ?? ""
        #expect(line.contains("cannot be read"), "\(line)")
        #expect(shelf.facts(1).failure == "\(paths[1]): no such file")
        #expect(line.range(of: "b.csv│ +cannot be read", options: .regularExpression) != nil, "no old size or count: \(line)")
    }

    @Test("the stack notices a file made shorter and one deleted: said, counted again, their old rows and counts gone")
    func stackNotices() throws {
        let (directory, paths) = try Self.files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (subject, screen, _) = try Self.loop(paths, stacked: true)
        turn(subject, screen, until: "the stack") { subject.table.stack?.isComplete == true }
        StackedViewTests.type(subject, screen, "")
        #expect(StackedViewTests.lines(screen).contains { $0.contains("k2") })
        #expect(StackedViewTests.lines(screen).contains { $0.contains("9") && $0.contains("10") })
        try Data("k,v\nk1,10\n".utf8).write(to: URL(fileURLWithPath: paths[1]))
        try FileManager.default.removeItem(atPath: paths[2])
        StackedViewTests.type(subject, screen, "j")
        #expect(StackedViewTests.status(screen).contains("b.csv and c.csv changed: counted again"),
                "\(StackedViewTests.status(screen))")
        turn(subject, screen, until: "the stack settled again") { subject.table.stack?.isComplete == true }
        StackedViewTests.type(subject, screen, "")
        let lines = StackedViewTests.lines(screen)
        #expect(lines.contains { $0.contains("k1") })
        #expect(!lines.contains { $0.contains("k2") }, "b.csv's old second row: \(lines)")
        #expect(!lines.contains { $0.contains("x") && $0.contains("y") }, "c.csv is gone: \(lines)")
        #expect(subject.table.dataRowCount == 3 + 2, "a.csv's 3 rows, b.csv's header and its one row")
        StackedViewTests.type(subject, screen, "}}")
        #expect(StackedViewTests.status(screen).contains("skipped c.csv: no such file"), "\(StackedViewTests.status(screen))")
    }
}
