import CellStore
import Foundation
import Testing
import FreezeLayout
@testable import Viewer

/// What the screen shows of a table read from JSON beyond its cells: a line that is not an
/// object marked in the grid, null in the record view, a repeated key said there.
@Suite("JSON marks on screen", .timeLimit(.minutes(30)))
struct JSONMarksTests {
    /// The fixture (scripts/make-json-fixtures.py): its 8th line is `[1,2]`; the 1st
    /// `{"k":null,"s":""}`; the 4th `{"k":"a","k":null}`.
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/json/nulls.jsonl").path

    func jsonViewer(width: Int = 60, height: Int = 16) throws -> Viewer {
        _ = utf8Locale
        let store = try CellStore.open(InputSpec(path: Self.path))
        waitUntil("the whole file") { store.isComplete }
        let subject = Viewer(store: store, options: .plain, screenSize: Size(width: width, height: height))
        subject.handle(.refresh)
        return subject
    }

    @Test("a line that is not a JSON object: `!` at its row number, its text in the first column marked")
    func wholeLine() throws {
        let subject = try jsonViewer(width: 140)
        let frame = subject.frame()
        let lines = frame.lines
        let y = try #require(lines.firstIndex { $0.contains("[1,2]") })
        #expect(lines[y].hasPrefix("!"), "\(lines[y])")
        #expect(frame.style(x: 0, y: y) == .symbol)
        let x = try #require(Array(lines[y]).firstIndex(of: "["))
        #expect(frame.style(x: x, y: y) == .symbol)
        // An object's row: no mark.
        let plain = try #require(lines.firstIndex { $0.contains("│z ") })
        #expect(!lines[plain].hasPrefix("!"))
        #expect(lines.filter { $0.hasPrefix("!") }.count == 3)
        #expect(lines.last?.contains("line 8 is not a JSON object: shown whole in the first column, marked !") == true, "\(lines.last ?? "")")
    }

    @Test("the record view shows null apart from \"\", and says which key a record repeats")
    func recordView() throws {
        let subject = try jsonViewer()
        subject.handle(key: .character("v"))
        var frame = subject.frame()
        var lines = frame.lines
        let k = try #require(lines.firstIndex { $0.hasPrefix(" k ") })
        let s = try #require(lines.firstIndex { $0.hasPrefix(" s ") })
        #expect(lines[k].contains("│ null"), "\(lines[k])")
        let x = try #require(Array(lines[k]).firstIndex(of: "n"))
        #expect(frame.style(x: x, y: k) == .madeName)
        #expect(!lines[s].contains("null"), "\(lines[s])")
        #expect(!lines[0].contains("appears"))
        // The 4th record: `k` twice, the last (null) shown.
        for _ in 0..<3 { subject.handle(key: .right) }
        frame = subject.frame()
        lines = frame.lines
        #expect(lines[0].contains("record 4 of 12"), "\(lines[0])")
        #expect(lines[0].contains("key `k` appears 2 times; the last is shown"), "\(lines[0])")
    }

    @Test("a CSV's empty cells show nothing in the record view, quoted or not")
    func csvRecordView() {
        let subject = viewer("k,s\n\"\",\n", width: 60, height: 10)
        subject.handle(key: .character("v"))
        let lines = subject.frame().lines
        #expect(!lines.joined().contains("null"))
    }
}
