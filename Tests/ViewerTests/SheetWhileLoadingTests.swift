import CellStore
import Foundation
import FreezeLayout
import Testing
import TestSupport
@testable import Viewer

/// `#` and `I` pressed while the file is still being read: the sheet waits for the index,
/// then counts the whole file with the pass the command line runs after the index (it
/// parsed every record not indexed yet, on one core, twice past the budget).
@Suite("Sheets opened while the file is read", .timeLimit(.minutes(30)))
struct SheetWhileLoadingTests {
    /// A viewer over a file of `rows` rows whose loader has not run: nothing is indexed
    /// until the test says so.
    /// The store's news (its loader and the sheets' passes wake it), as the event loop's.
    let news = ChangeSignal()

    func unindexed(rows: Int) throws -> (CellStore, Viewer, String) {
        _ = utf8Locale
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-loading-\(UUID()).csv").path
        try Data(sampleCSV(rows: rows).utf8).write(to: URL(fileURLWithPath: path))
        let news = self.news
        let store = try CellStore.open(InputSpec(path: path), startsLoader: false, onChange: { news.notify() })
        return (store, Viewer(store: store, options: .plain, screenSize: Size(width: 120, height: 12)), path)
    }

    /// Takes the sheet's news, as the event loop does, each time there is some, until its
    /// status line says `done` (for at most a minute).
    func settle(_ sheet: SheetSource, until done: (String) -> Bool) -> String {
        var note = ""
        let settled = turn(news: news, {
            sheet.update()
            sheet.viewer.handle(.refresh)
            note = sheet.viewer.frame().lines.last ?? ""
        }, until: { !note.isEmpty && done(note) })
        #expect(settled, "timed out: \(note)")
        return note
    }

    @Test("# waits for the index, saying so, then bins every row of the file; % counts every value of it")
    func frequencyWaitsForTheIndex() throws {
        let (store, viewer, path) = try unindexed(rows: 30_000)
        defer { unlink(path) }
        #expect(!store.isComplete)
        // The id column: more distinct numbers than fit on a screen, so bins.
        viewer.handle(.frequency)
        let sheet = try #require(viewer.takeSheet() as? HistogramSheet)
        sheet.update()
        let waiting = sheet.viewer.frame().lines.last ?? ""
        #expect(waiting.contains("reading the file to the end first"), "\(waiting)")
        // Nothing is counted before the index is whole.
        #expect(sheet.viewer.dataRowCount == 0)
        store.indexNow()
        let binned = settle(sheet) { !$0.contains("reading") && !$0.contains("counting") }
        #expect(binned.contains("30,000 numbers in 7 bins of 5000") && !binned.contains("read so far"), "\(binned)")
        // `%`: the exact values, counted over the whole file too.
        let values = try #require(sheet.switched())
        let note = settle(values) { !$0.contains("reading") && !$0.contains("counting") }
        #expect(note.contains("all 30,000 values are unique"), "\(note)")
        #expect(!note.contains("read so far"))
        #expect(values.viewer.dataRowCount == 30_000)
    }

    @Test("I waits for the index too, then summarises every row")
    func summaryWaitsForTheIndex() throws {
        let (store, viewer, path) = try unindexed(rows: 20_000)
        defer { unlink(path) }
        viewer.handle(.summary)
        let sheet = try #require(viewer.takeSheet())
        sheet.update()
        #expect((sheet.viewer.frame().lines.last ?? "").contains("reading the file to the end first"))
        store.indexNow()
        let note = settle(sheet) { !$0.contains("reading") && !$0.contains("summarising") }
        #expect(note.contains("Enter: the column's frequency sheet") && !note.contains("read so far"), "\(note)")
        // The id column's filled count is every row's.
        let filled = String(decoding: sheet.viewer.table.cell(row: 0, column: 2), as: UTF8.self)
        #expect(filled == "20000", "\(sheet.viewer.frame().lines)")
    }
}
