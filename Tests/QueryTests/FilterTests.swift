import CellStore
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Scan
import Table
import TestSupport
import Testing
@testable import Query

/// The filters' rule applied plainly: every record parsed, every cell matched.
func referenceFilter(_ rows: [Row], headerRows: Int, filters: [RecordFilter]) throws -> [Int] {
    let matchers = try filters.map { PatternMatcher(try SearchPattern(text: $0.pattern, column: $0.column).compile()) }
    return rows.indices.filter { record in
        guard record >= headerRows else { return false }
        return filters.indices.allSatisfy { index in
            let row = rows[record]
            let cells = filters[index].column.map { [$0] } ?? Array(0..<row.count)
            let hit = cells.contains { matchers[index].matches(row.field($0)) }
            return hit != filters[index].inverted
        }
    }
}

func filtered(_ store: CellStore, _ filters: [RecordFilter], over base: (any RecordSequence)? = nil) throws -> FilteredRecords {
    let result = try FilteredRecords.start(store: store, headerRows: 1, filters: filters, over: base)
    result.wait()
    return result
}

@Suite(.timeLimit(.minutes(30))) struct FilterTests {
    static let cases: [[RecordFilter]] = [
        [RecordFilter(pattern: "a")], [RecordFilter(pattern: "^bc$")], [RecordFilter(pattern: "x,")],
        [RecordFilter(pattern: "é|中")], [RecordFilter(pattern: "A")], [RecordFilter(pattern: "a", inverted: true)],
        [RecordFilter(pattern: "bc", column: 1)], [RecordFilter(pattern: "^$", column: 0, inverted: true)],
        [RecordFilter(pattern: "a"), RecordFilter(pattern: "bc", inverted: true)],
        [RecordFilter(pattern: "\"", column: 2), RecordFilter(pattern: "y")],
    ]

    @Test(arguments: UInt64(1)...5)
    func matchesEveryCellAsTheReferenceDoes(seed: UInt64) throws {
        let bytes = hostileCSV(length: 20_000, seed: seed)
        let store = CellStore(bytes: bytes, name: "h.csv", delimiter: UInt8(ascii: ","), checkpointSpacing: 512)
        let rows = (0..<store.rowCount).compactMap { store.row($0) }
        for filters in Self.cases {
            let result = try filtered(store, filters)
            let got = result.records(in: 0..<result.count).map(\.record)
            let expected = try referenceFilter(rows, headerRows: 1, filters: filters)
            #expect(got == expected, "seed \(seed) \(filters): \(got.count) rows, expected \(expected.count)")
            for (row, record) in got.enumerated().prefix(50) { #expect(result.index(of: record) == row) }
            #expect(result.index(of: 0) == nil)
        }
    }

    @Test func keepsTheOrderOfTheViewItFilters() throws {
        let (bytes, cells) = hostileTable(rows: 2000, seed: 3)
        let store = CellStore(bytes: bytes, name: "t.csv", checkpointSpacing: 1024)
        let sorted = sortedRecords(store, keys: [SortKey(column: 0, descending: true)])
        let result = try filtered(store, [RecordFilter(pattern: "file", column: 2)], over: sorted)
        let order = sorted.records(in: 0..<sorted.count).map(\.record)
        let expected = order.filter { cells[$0][2].lowercased().contains("file") }
        let got = result.records(in: 0..<result.count).map(\.record)
        #expect(got == expected)
        if let record = expected.dropFirst(7).first { #expect(result.index(of: record) == 7) }
    }

    @Test func aBadPatternSaysWhy() {
        let store = CellStore(bytes: Array("a\n1\n".utf8), name: "x.csv")
        #expect(throws: QueryError.self) { try FilteredRecords.start(store: store, headerRows: 1, filters: [RecordFilter(pattern: "(")]) }
    }

    @Test func bitmapRanksAndSelects() {
        var bitmap = RankedBitmap()
        var members: [Int] = []
        var generator = SeededGenerator(seed: 5)
        var length = 0
        for _ in 0..<40 {
            let next = length + Int(generator.next() % 900)
            let added = (length..<next).filter { _ in generator.next() % 3 == 0 }
            bitmap.extend(to: next, members: added)
            members += added
            length = next
        }
        #expect(bitmap.count == members.count)
        #expect(bitmap.members(0..<members.count) == members)
        for (k, member) in members.enumerated() where k % 17 == 0 {
            #expect(bitmap.select(k) == member)
            #expect(bitmap.rank(member) == k)
            #expect(bitmap.contains(member))
        }
        #expect(bitmap.members(5..<9) == Array(members[5..<9]))
    }
}

/// A filter and a sort over an input that is still arriving through a pipe.
@Suite(.serialized, .timeLimit(.minutes(30))) struct LoadingInputTests {
    @Test func aFilterFollowsTheInputAsItArrives() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-fifo-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("in.csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let lines = (0..<40_000).map { "\($0),\($0 % 7 == 0 ? "Oslo" : "Lyon"),\(($0 * 7919) % 1000)" }
        let text = "id,city,n\n" + lines.joined(separator: "\n") + "\n"
        let half = text.utf8.count / 2
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data(Array(text.utf8)[..<half]))
            Thread.sleep(forTimeInterval: 0.5)
            handle.write(Data(Array(text.utf8)[half...]))
            try? handle.close()
        }
        writer.start()
        let store = try CellStore.open(InputSpec(path: fifo))
        // Waits (at most 2 s) for the first half to be indexed; either way the passes follow.
        _ = turn(within: 2, pausing: { usleep(5_000) }) { !(store.recordReaders.current().map { $0.checkpoints.count < 2 } ?? true) }
        let filter = try FilteredRecords.start(store: store, headerRows: 1, filters: [RecordFilter(pattern: "Oslo")])
        let sorted = SortedRecords.start(store: store, headerRows: 1, keys: [SortKey(column: 2, descending: true)], kinds: [.number])
        filter.wait()
        sorted.wait()
        let expected = lines.indices.filter { $0 % 7 == 0 }.map { $0 + 1 }
        #expect(filter.records(in: 0..<filter.count).map(\.record) == expected)
        let order = sorted.records(in: 0..<sorted.count).map(\.record)
        #expect(order.count == lines.count)
        let values = order.map { (($0 - 1) * 7919) % 1000 }
        #expect(values == values.sorted(by: >))
    }
}
