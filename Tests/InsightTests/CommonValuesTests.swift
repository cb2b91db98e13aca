import CellStore
@testable import Insight
import Scan
import Testing

/// Past the counting budget, the summary and the frequency table answer "which values are
/// most common, and how many distinct values are there" the same way.
@Suite("Common values past the budget", .timeLimit(.minutes(30)))
struct CommonValuesTests {
    /// `unique` values that occur once, and `hot`×300, `warm`×200, `cool`×100, shuffled.
    static func column(unique: Int, seed: UInt64) -> [UInt8] {
        var values = (0..<unique).map { "u\($0)" }
        values += Array(repeating: "hot", count: 300) + Array(repeating: "warm", count: 200) + Array(repeating: "cool", count: 100)
        var generator = SeededGenerator(seed: seed)
        values.shuffle(using: &generator)
        return Array(("v\n" + values.joined(separator: "\n") + "\n").utf8)
    }

    @Test("--summary lists what --frequency lists, counted exactly, with the same distinct estimate", arguments: [1, 2] as [UInt64])
    func summaryAgreesWithFrequency(seed: UInt64) throws {
        let csv = Self.column(unique: 20_000, seed: seed)
        let store = CellStore(bytes: csv, delimiter: UInt8(ascii: ","), checkpointSpacing: 4096)
        let input = try #require(ScanInput(store: store))
        let budget = InsightBudget(bytes: 1 << 18, keptValues: 1 << 12)
        let count = FrequencyCount(input: input, column: 0, headerRows: 1, budget: budget)
        count.wait()
        guard case .finished(let table) = count.status else { throw CancellationError() }
        let scan = SummaryScan(input: input, names: ["v"], headerRows: 1, budget: budget)
        scan.wait()
        guard case .finished(let rows) = scan.status else { throw CancellationError() }
        let summary = try #require(rows.first)

        #expect(!table.isExact, "the test must be past the budget")
        let listed = table.rows.prefix(3).map { "\($0.text) \($0.count)" }
        #expect(listed == ["hot 300", "warm 200", "cool 100"])
        #expect(summary.common.map { "\($0.text) \($0.count)" } == listed)
        #expect(summary.distinctIsEstimate && table.distinctIsEstimate)
        #expect(summary.distinct == table.distinct, "one sketch over the same values, one estimate")
        #expect(!summary.commonIsEstimate, "the counts listed are exact")
        #expect(!summary.cells[11].contains("≈"), "\(summary.cells[11])")
    }
}
