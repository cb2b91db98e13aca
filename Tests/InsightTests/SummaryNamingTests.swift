import CellStore
@testable import Insight
import Scan
import Testing

/// A column is called what `ColumnNames` calls it, in the summary as everywhere else.
@Suite("Summary names", .timeLimit(.minutes(30)))
struct SummaryNamingTests {
    @Test("chosen columns in their order; one past the names given is 'column N', as the screen and the options call it")
    func unnamedColumns() throws {
        let store = CellStore(bytes: Array("a,b,c\n1,2,3\n".utf8), delimiter: UInt8(ascii: ","), checkpointSpacing: 64)
        let scan = SummaryScan(input: try #require(ScanInput(store: store)), names: ["a"], headerRows: 1, columns: [2, 0, 1])
        scan.wait()
        guard case .finished(let rows) = scan.status else { throw CancellationError() }
        #expect(rows.map(\.name) == ["column 3", "a", "column 2"])
        #expect(rows.map(\.column) == [2, 0, 1])
        #expect(rows.map(\.maximum) == ["3", "1", "2"])
    }
}
