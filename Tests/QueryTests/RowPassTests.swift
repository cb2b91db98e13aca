import CellStore
import Scan
import Table
import TestSupport
import Testing
@testable import Query

/// The table of `store` as rows in memory (a sheet's kind of source): the same records,
/// parsed once and published as they are.
func memoryCopy(of store: CellStore) -> MemoryRows {
    let rows = (0..<store.rowCount).compactMap { store.row($0) }
    let memory = MemoryRows(name: "copy", header: rows.first ?? Row())
    memory.append(Array(rows.dropFirst()))
    memory.finish()
    return memory
}

/// Sorts, filters and searches over rows in memory give exactly what they give over the
/// same table in a file, whose passes read raw bytes: the same keys, matchers and rules.
@Suite("Passes over rows in memory and over a file agree", .timeLimit(.minutes(30)))
struct RowPassTests {
    @Test("sorts: the same order, and every record found again by its key", arguments: UInt64(1)...4)
    func sorts(seed: UInt64) throws {
        let (bytes, _) = hostileTable(rows: 600, seed: seed)
        let store = CellStore(bytes: bytes, name: "t.csv", checkpointSpacing: 512)
        let rows = try #require(memoryCopy(of: store).snapshot())
        #expect(rows.count == store.rowCount)
        for keys in [[SortKey(column: 0)], [SortKey(column: 1, descending: true)], [SortKey(column: 2)],
                     [SortKey(column: 3), SortKey(column: 0, descending: true)]] {
            let overFile = SortedRecords.start(store: store, headerRows: 1, keys: keys)
            let overRows = SortedRecords.start(rows: rows, headerRows: 1, keys: keys, memoryBudget: 1 << 14)
            overFile.wait()
            overRows.wait()
            #expect(overRows.phase == .done && overRows.kinds == overFile.kinds)
            let expected = overFile.records(in: 0..<overFile.count).map(\.record)
            let got = overRows.records(in: 0..<overRows.count)
            #expect(got.map(\.record) == expected, "seed \(seed) keys \(keys)")
            #expect(got.allSatisfy { $0.offset == nil }, "rows have no bytes to point at")
            for row in [0, 1, got.count / 2, got.count - 1] { #expect(overRows.index(of: got[row].record) == row) }
        }
    }

    @Test("filters, alone and over a sort: the same rows in the same order", arguments: UInt64(1)...4)
    func filters(seed: UInt64) throws {
        let store = CellStore(bytes: hostileCSV(length: 12_000, seed: seed), name: "h.csv", delimiter: UInt8(ascii: ","),
                              checkpointSpacing: 512)
        let rows = try #require(memoryCopy(of: store).snapshot())
        let sortedFile = SortedRecords.start(store: store, headerRows: 1, keys: [SortKey(column: 1)], kinds: [.text])
        let sortedRows = SortedRecords.start(rows: rows, headerRows: 1, keys: [SortKey(column: 1)], kinds: [.text])
        for filters in FilterTests.cases + [[RecordFilter(pattern: "a", columns: [2, 0])]] {
            for (fileBase, rowsBase) in [(nil, nil), (sortedFile, sortedRows)] as [(SortedRecords?, SortedRecords?)] {
                let overFile = try FilteredRecords.start(store: store, headerRows: 1, filters: filters, over: fileBase)
                let overRows = try FilteredRecords.start(rows: rows, headerRows: 1, filters: filters, over: rowsBase)
                overFile.wait()
                overRows.wait()
                let expected = overFile.records(in: 0..<overFile.count).map(\.record)
                #expect(overRows.records(in: 0..<overRows.count).map(\.record) == expected,
                        "seed \(seed) \(filters) \(fileBase == nil ? "" : "over a sort")")
                for (row, record) in expected.enumerated().prefix(20) { #expect(overRows.index(of: record) == row) }
            }
        }
    }

    @Test("searches: the same matching records and columns, and the same hits both ways", arguments: UInt64(1)...4)
    func searches(seed: UInt64) throws {
        let store = CellStore(bytes: hostileCSV(length: 12_000, seed: seed), name: "h.csv", delimiter: UInt8(ascii: ","),
                              checkpointSpacing: 512)
        let rows = try #require(memoryCopy(of: store).snapshot())
        let input = try #require(ScanInput(store: store))
        for (text, column) in [("a", nil), ("^bc$", nil), ("x,", nil), ("é|中", 1), ("\"", nil), ("^$", 0)] as [(String, Int?)] {
            let pattern = try SearchPattern(text: text, column: column).compile()
            let overFile = CellSearch(input: input, pattern: pattern, column: column)
            let overRows = CellSearch(rows: rows, pattern: pattern, column: column)
            var expected: [String] = [], got: [String] = []
            overFile.forEachMatch(in: 1..<store.rowCount, control: ScanControl()) { expected.append("\($0):\($1)"); return true }
            overRows.forEachMatch(in: 1..<store.rowCount, control: ScanControl()) { got.append("\($0):\($1)"); return true }
            #expect(got == expected, "seed \(seed) /\(text)/")
            let middle = store.rowCount / 2
            for forward in [true, false] {
                let range = forward ? middle..<store.rowCount : 1..<middle
                let fileHit = overFile.find(in: range, forward: forward, control: ScanControl()) { _, columns in columns.last }
                let rowsHit = overRows.find(in: range, forward: forward, control: ScanControl()) { _, columns in columns.last }
                #expect(rowsHit == fileHit, "seed \(seed) /\(text)/ \(forward ? "forward" : "backward")")
            }
        }
    }
}
