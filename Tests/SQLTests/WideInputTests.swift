import CellStore
import Testing
@testable import SQL

/// An input wider than SQLite lets a table be: the table has the first columns it allows.
@Suite("SQL over inputs wider than SQLite's limit", .timeLimit(.minutes(30)))
struct WideInputTests {
    @Test("the first columns SQLite allows are queried, the rest counted once", arguments: [2001, 5000])
    func wide(width: Int) throws {
        let limit = SQLInput.maximumColumns
        #expect(limit >= 1 && limit <= width - 1)
        let text = (0..<width).map { "h\($0)" }.joined(separator: ",") + "\n" + (0..<width).map(String.init).joined(separator: ",") + "\n"
        let db = try database([(name: "wide", text: text)])
        #expect(db.tables[0].columns.count == limit)
        #expect(try rows(db, "select h0, h\(limit - 1) from t") == [["0", String(limit - 1)]])
        let store = CellStore(bytes: Array(text.utf8), name: "wide", delimiter: UInt8(ascii: ","), checkpointSpacing: 64)
        let input = try #require(SQLInput(store: store, name: "t", headerRows: 1))
        #expect(input.columns.count == limit)
        #expect(input.columns.count + input.omittedColumns == width)
    }
}
