import CellStore
import Foundation
import Insight
import Table
import Testing
@testable import Viewer

/// A summary pass that ends while the sheet takes its news: running at the first look,
/// finished at every later one, its partial summary the one it had before it ended.
private final class EndingPass: SummaryPass {
    let before: [ColumnSummary], after: [ColumnSummary]
    private var looks = 0

    init(before: [ColumnSummary], after: [ColumnSummary]) {
        self.before = before
        self.after = after
    }

    var status: SummaryScan.Status {
        looks += 1
        return looks == 1 ? .running(done: 1, total: 2) : .finished(after)
    }

    var partial: [ColumnSummary]? { looks <= 1 ? before : after }
    func cancel() {}
}

@Suite("The summary sheet while its pass ends", .timeLimit(.minutes(30)))
struct SummarySheetTests {
    /// The summary of `rows` data rows of two columns, as the pass makes it.
    func summaries(rows: Int) -> [ColumnSummary] {
        let records = [Row(cells: ["id", "city"])] + (1...rows).map { Row(cells: ["\($0)", $0 % 2 == 0 ? "Oslo" : ""]) }
        let scan = SummaryScan(rows: RowSnapshot(rows: records), names: ["id", "city"], headerRows: 1)
        scan.wait()
        return scan.partial ?? []
    }

    @Test("the note says the pass is done only over the finished summary's rows, never over the rows it had before")
    func noteAndRowsAgree() {
        _ = utf8Locale
        let table = viewer(sampleCSV(rows: 10), width: 100, height: 6)
        let before = summaries(rows: 4), after = summaries(rows: 10)
        let pass = EndingPass(before: before, after: after)
        let sheet = SummarySheet(input: SheetInput(table.source)!, names: ["id", "city"], headerRows: 1, records: nil,
                                 table: table, scan: pass)
        sheet.viewer.handle(.refresh)
        var status = sheet.viewer.frame().lines.last ?? ""
        let filled = { String(decoding: sheet.viewer.table.cell(row: 0, column: 2), as: UTF8.self) }
        #expect(filled() == "4", "the rows of the summary so far")
        #expect(status.contains("summarising") && !status.contains("Enter: the column"), "\(status)")
        // The pass's end is the next news.
        sheet.update()
        sheet.viewer.handle(.refresh)
        status = sheet.viewer.frame().lines.last ?? ""
        #expect(filled() == "10")
        #expect(status.contains("Enter: the column") && status.contains("row 1/2 "), "\(status)")
    }
}
