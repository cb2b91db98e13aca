#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport
import CellStore
import FreezeLayout
import SQL
import Table
@testable import Viewer

/// The status line names what the table was read from: JSON lines, a JSON array, a
/// workbook's sheet, a database's table; not the dialect of the CSV made from it.
@Suite("The status line names the format", .timeLimit(.minutes(30)))
struct FormatStatusTests {
    /// The last line of a 100×4 frame over `source`, once it is read.
    func status(_ source: any RowSource, complete: () -> Bool) -> String {
        setlocale(LC_ALL, "C.UTF-8")
        let viewer = Viewer(source: source, options: ViewerOptions(bounce: .none, showsIndicators: false),
                            screenSize: Size(width: 100, height: 4))
        let deadline = Date().addingTimeInterval(60)
        while !complete() && Date() < deadline {
            source.takeNews()
            usleep(2_000)
        }
        source.takeNews()
        viewer.handle(.refresh)
        return viewer.frame().lines.last ?? ""
    }

    func store(_ path: String, table: String? = nil) throws -> CellStore {
        try CellStore.open(InputSpec(.file(path), table: table))
    }

    @Test("JSON lines, a JSON array, a workbook's sheet, a SQLite table and view; CSV keeps its dialect")
    func formats() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("format-status-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = dir.appendingPathComponent("log.jsonl").path
        try Data("{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\"}\n".utf8).write(to: URL(fileURLWithPath: lines))
        let array = dir.appendingPathComponent("api.json").path
        try Data("[{\"a\":1},{\"a\":2}]\n".utf8).write(to: URL(fileURLWithPath: array))
        let csv = dir.appendingPathComponent("plain.csv").path
        try Data("a;b\n1;2\n".utf8).write(to: URL(fileURLWithPath: csv))
        let book = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/xlsx/values.xlsx").path
        let db = dir.appendingPathComponent("shop.db").path
        try DatabaseFixture.make(at: db, "CREATE TABLE orders(id INTEGER PRIMARY KEY, item TEXT); INSERT INTO orders(item) VALUES ('pen');"
                                    + "CREATE VIEW cheap AS SELECT item FROM orders")

        for (path, table, said) in [(lines, nil, "JSON lines"), (array, nil, "JSON array"),
                                    (book, nil, "workbook sheet Values"), (book, "Second sheet", "workbook sheet Second sheet"),
                                    (csv, nil, "semicolon")] {
            let opened = try store(path, table: table)
            let line = status(opened) { opened.progress.isComplete }
            #expect(line.contains(said), "\(path): \(line)")
            #expect(said == "semicolon" || !line.contains("comma"), "\(path): \(line)")
        }
        for (table, said) in [("orders", "SQLite table orders"), ("cheap", "SQLite view cheap")] {
            let rows = try DatabaseRows(path: db, table: table)
            let line = status(rows) { rows.isComplete }
            #expect(line.contains(said), "\(table): \(line)")
        }
    }
}
