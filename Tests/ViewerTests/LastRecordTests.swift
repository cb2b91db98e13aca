import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("The last record of a file without a final line end", .timeLimit(.minutes(30)))
struct LastRecordTests {
    /// A file of `rows` data rows whose last record has no line end.
    private func unterminatedFile(rows: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("last-\(UUID()).csv").path
        var text = sampleCSV(rows: rows)
        text.removeLast()
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("rows parsed before the loader reached the end: the last record shows once it has", arguments: [60, 250, 5_000])
    func parsedBeforeTheEnd(rows: Int) throws {
        _ = utf8Locale
        let path = try unterminatedFile(rows: rows)
        defer { unlink(path) }
        // The loader runs when the test says: the first screens are parsed before it ends.
        let store = try CellStore.open(InputSpec(path: path), startsLoader: false)
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: 60, height: 10))
        subject.handle(.pageDown)
        _ = subject.frame()
        subject.handle(.lastRow)
        _ = subject.frame()
        store.indexNow()
        subject.handle(.refresh)
        subject.handle(.lastRow)
        let lines = subject.frame().lines
        #expect(lines[9].contains("row \(Viewer.grouped(rows))/\(Viewer.grouped(rows))"), "\(lines[9])")
        #expect(lines[8].contains("│\(rows) "), "the last record is drawn: \(lines[8])")
        #expect(store.row(rows)?.field(0).elementsEqual("\(rows)".utf8) == true)
    }
}
