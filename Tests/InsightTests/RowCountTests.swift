import CellStore
@testable import Insight
import Scan
import Table
import TestSupport
import Testing

/// Counts and summaries over rows in memory (a sheet's) equal those over the same table in
/// a file, read through its raw bytes: the same sinks, the same counters.
@Suite("Counts over rows in memory and over a file agree", .timeLimit(.minutes(30)))
struct RowCountTests {
    /// A file and the same table as rows in memory.
    private func both(_ bytes: [UInt8]) throws -> (ScanInput, RowSnapshot, CellStore) {
        let store = CellStore(bytes: bytes, delimiter: UInt8(ascii: ","), checkpointSpacing: 64)
        let rows = (0..<store.rowCount).compactMap { store.row($0) }
        let memory = MemoryRows(name: "copy", header: rows.first ?? Row())
        memory.append(Array(rows.dropFirst()))
        memory.finish()
        return (try #require(ScanInput(store: store)), try #require(memory.snapshot()), store)
    }

    @Test("frequency tables, exact and past the budget, of every record or of a list of them", arguments: UInt64(1)...4)
    func frequencies(seed: UInt64) throws {
        let (input, rows, _) = try both(wellQuotedCSV(records: 3000, seed: seed))
        for column in 0..<3 {
            for budget in [InsightBudget.standard, InsightBudget(bytes: 4096, keptValues: 8)] {
                for records in [nil, RecordList(Array(stride(from: 2, to: 2500, by: 3)))] as [RecordList?] {
                    let overFile = FrequencyCount(input: input, column: column, headerRows: 1, records: records, budget: budget)
                    let overRows = FrequencyCount(rows: rows, column: column, headerRows: 1, records: records, budget: budget)
                    overFile.wait()
                    overRows.wait()
                    guard case .finished(let expected) = overFile.status, case .finished(let got) = overRows.status else {
                        Issue.record("a count did not finish")
                        return
                    }
                    #expect(got.rows == expected.rows && got.total == expected.total && got.isExact == expected.isExact,
                            "seed \(seed) column \(column) budget \(budget.bytes) \(records == nil ? "" : "listed")")
                }
            }
        }
    }

    @Test("summaries of every column", arguments: UInt64(1)...3)
    func summaries(seed: UInt64) throws {
        let (input, rows, _) = try both(wellQuotedCSV(records: 2000, seed: seed))
        let names = ["a", "b", "c", "d", "e"]
        let overFile = SummaryScan(input: input, names: names, headerRows: 1)
        let overRows = SummaryScan(rows: rows, names: names, headerRows: 1)
        overFile.wait()
        overRows.wait()
        guard case .finished(let expected) = overFile.status, case .finished(let got) = overRows.status else {
            Issue.record("a summary did not finish")
            return
        }
        #expect(got == expected, "seed \(seed)")
    }
}
