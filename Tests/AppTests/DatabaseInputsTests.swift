import Foundation
import Testing
import TestSupport
import App
import CellStore

/// A database among the inputs: one input per table and view, `--table` choosing one, and
/// one line for what cannot be shown.
@Suite("A database's tables as inputs", .timeLimit(.minutes(30)))
struct DatabaseInputsTests {
    @Test("every table and view is an input, in the schema's order; --table takes one, found as SQLite finds names")
    func tablesAreInputs() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("db-inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("shop").path
        try DatabaseFixture.make(at: db, "CREATE TABLE b(x); CREATE TABLE a(y); CREATE VIEW v AS SELECT x FROM b")
        let csv = dir.appendingPathComponent("c.csv").path
        try Data("p\n1\n".utf8).write(to: URL(fileURLWithPath: csv))
        let all = TableInputs.gather([db, csv])
        #expect(all.problems.isEmpty)
        #expect(all.inputs.map(\.name) == [db + ":b", db + ":a", db + ":v", csv])
        #expect(all.inputs.map(\.isDatabaseTable) == [true, true, true, false])
        #expect(all.inputs.first?.shortName == "shop:b")
        let one = TableInputs.gather([db], table: "V")
        #expect(one.inputs.map(\.table) == ["v"])
        #expect(!one.asksForSeveral)
        let none = TableInputs.gather([db], table: "zz")
        #expect(none.inputs.isEmpty)
        #expect(none.problemLine == "\(db): cannot read (no table or view named 'zz' (tables: b, a, v))")
        let empty = dir.appendingPathComponent("empty.db").path
        try DatabaseFixture.make(at: empty, "CREATE TABLE x(a); DROP TABLE x")
        #expect(TableInputs.gather([empty]).problemLine == "\(empty): the database has no tables")
    }
}
