import CellStore
@testable import Insight
import Scan
import Table
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(30)))
struct FrequencyTests {
    func frequency(_ csv: [UInt8], column: Int, first: Int = 1, budget: InsightBudget = .standard,
                   records: (any RecordSequence)? = nil) throws -> FrequencyTable {
        let store = CellStore(bytes: csv, delimiter: UInt8(ascii: ","), checkpointSpacing: 16)
        let count = FrequencyCount(input: try #require(ScanInput(store: store)), column: column, headerRows: first,
                                   records: records, budget: budget)
        count.wait()
        guard case .finished(let table) = count.status else { throw CancellationError() }
        return table
    }

    /// Counts by a plain dictionary over the parser's records, in the table's order.
    func reference(_ csv: [UInt8], column: Int, first: Int) -> [(value: [UInt8], count: Int)] {
        var counts: [[UInt8]: (count: Int, first: Int)] = [:]
        for (index, row) in referenceRows(csv).enumerated() where index >= first {
            counts[Array(row.field(column)), default: (0, index)].count += 1
        }
        return counts.sorted { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.value.first < $1.value.first }
            .map { ($0.key, $0.value.count) }
    }

    @Test func countsMostFrequentFirstTiesInOrderOfFirstAppearance() throws {
        let csv = Array("country,n\nFR,1\nDE,2\n,3\nDE,4\nIT,5\nFR,6\n\"\",7\nCH,8\n".utf8)
        let table = try frequency(csv, column: 0)
        #expect(table.rows.map(\.text) == ["FR", "DE", "", "IT", "CH"])
        #expect(table.rows.map(\.count) == [2, 2, 2, 1, 1])
        #expect(table.total == 8)
        #expect(table.distinct == 5)
        #expect(table.isExact)
        #expect(abs(table.rows[0].percent - 25) < 1e-9)
    }

    @Test func aShortRowCountsAsEmpty() throws {
        let table = try frequency(Array("a,b\n1,x\n2\n3,x\n".utf8), column: 1)
        #expect(table.rows.map(\.text) == ["x", ""])
        #expect(table.rows.map(\.count) == [2, 1])
    }

    @Test(arguments: 0..<12)
    func countsMatchADictionary(seed: UInt64) throws {
        let csv = seed % 2 == 0 ? wellQuotedCSV(records: 400, seed: seed) : hostileCSV(length: 2000, seed: seed)
        for column in 0..<3 {
            let table = try frequency(csv, column: column)
            let expected = reference(csv, column: column, first: 1)
            #expect(table.rows.map(\.value) == expected.map(\.value), "seed \(seed) column \(column)")
            #expect(table.rows.map(\.count) == expected.map(\.count), "seed \(seed) column \(column)")
            #expect(table.distinct == expected.count)
        }
    }

    @Test func pastTheBudgetEveryFrequentValueIsListedWithItsExactCount() throws {
        // 20,000 unique values among values that recur 50, 49, … times.
        var generator = SeededGenerator(seed: 3)
        var lines = ["v"]
        var unique = 0
        var recurring: [Int] = []
        for value in 0..<40 { recurring += Array(repeating: value, count: 50 - value) }
        for _ in 0..<20_000 { lines.append("u\(unique)"); unique += 1 }
        for value in recurring { lines.insert("hot\(value)", at: 1 + Int(generator.next() % UInt64(lines.count))) }
        let csv = Array((lines.joined(separator: "\n") + "\n").utf8)
        let table = try frequency(csv, column: 0, budget: InsightBudget(bytes: 1 << 20, keptValues: 2048))
        #expect(!table.isExact)
        #expect(table.distinctIsEstimate)
        let expected = reference(csv, column: 0, first: 1)
        // Every value occurring more than `unlistedAtMost` times is listed, with its exact count.
        let frequent = expected.filter { $0.count > table.unlistedAtMost }
        #expect(table.rows.map(\.value) == frequent.map(\.value))
        #expect(table.rows.map(\.count) == frequent.map(\.count))
        #expect(table.rows.count >= 30)
        #expect(table.total == lines.count - 1)
        #expect(table.unlistedCount == table.total - table.rows.reduce(0) { $0 + $1.count })
        #expect(abs(Double(table.distinct - expected.count)) / Double(expected.count) < 0.02)
    }

    @Test func onlyTheRecordsOfASequence() throws {
        let csv = Array("c\nx\ny\nx\nz\nx\n".utf8)
        let table = try frequency(csv, column: 0, records: RecordList([5, 2, 4]))
        #expect(table.rows.map(\.text) == ["y", "z", "x"])
        #expect(table.total == 3)
    }

    @Test func aPartialTableIsReadableAndDroppingTheCountStopsIt() throws {
        let csv = wellQuotedCSV(records: 2000, seed: 1)
        let store = CellStore(bytes: csv, delimiter: UInt8(ascii: ","), checkpointSpacing: 64)
        var count: FrequencyCount? = FrequencyCount(input: try #require(ScanInput(store: store)), column: 0, headerRows: 1)
        _ = count?.partial
        count?.cancel()
        count = nil   // joins its thread
        let done = FrequencyCount(input: try #require(ScanInput(store: store)), column: 0, headerRows: 1)
        done.wait()
        #expect(done.partial?.isComplete == true)
    }

    @Test func hyperLogLogIsWithinTwoPercentOnAMillionDistinctValues() {
        var sketch = HyperLogLog(precision: 16)
        for value in 0..<1_000_000 {
            withUnsafeBytes(of: UInt64(value).bigEndian) { sketch.add(hash: valueHash($0)) }
        }
        #expect(abs(Double(sketch.estimate) - 1e6) / 1e6 < 0.02)
        var small = HyperLogLog(precision: 16)
        for value in 0..<5000 { withUnsafeBytes(of: value) { small.add(hash: valueHash($0)) } }
        #expect(abs(small.estimate - 5000) < 50)
    }

    @Test("a column whose values are all unique is known as such; past the budget only when that is sure")
    func allUnique() throws {
        let unique = Array(("v\n" + (0..<5000).map { "value \($0)" }.joined(separator: "\n") + "\n").utf8)
        #expect(try frequency(unique, column: 0).areAllUnique)
        // Past the budget it is claimed only when no value left out can occur twice.
        let past = try frequency(unique, column: 0, budget: InsightBudget(bytes: 1 << 16, keptValues: 64))
        #expect(!past.isExact && past.areAllUnique == (past.unlistedAtMost <= 1))
        let twice = Array(("v\n" + (0..<5000).map { "value \($0 == 4999 ? 0 : $0)" }.joined(separator: "\n") + "\n").utf8)
        #expect(try !frequency(twice, column: 0).areAllUnique)
        #expect(try !frequency(twice, column: 0, budget: InsightBudget(bytes: 1 << 16, keptValues: 64)).areAllUnique)
        #expect(try !frequency(Array("v\nx\n".utf8), column: 0).areAllUnique)
    }
}

@Suite("The distinct estimate", .timeLimit(.minutes(30)))
struct DistinctEstimateTests {
    @Test("never more than the values counted, nor fewer than those kept", arguments: [30_000, 120_000, 400_000])
    func bounded(count: Int) {
        var counter = ValueCounter(budget: 1 << 16, kept: 64)
        for index in 0..<count {
            var text = "value \(index)"
            _ = text.withUTF8 { counter.add(UnsafeRawBufferPointer($0), record: index) }
        }
        #expect(!counter.isExact)
        #expect(counter.distinct <= counter.total, "\(counter.distinct) of \(counter.total)")
        #expect(Double(counter.distinct) >= Double(count) * 0.97, "\(counter.distinct) of \(count)")
    }
}
