import CellStore
import Export
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

/// The x of the first cell of `text` on line `y` of `frame`, if it is there.
private func column(of text: String, in frame: Frame, line y: Int) -> Int? {
    let cells = (0..<frame.size.width).map { frame[$0, y].text }
    let wanted = text.map(String.init)
    guard wanted.count <= cells.count else { return nil }
    return (0...(cells.count - wanted.count)).first { x in Array(cells[x..<(x + wanted.count)]) == wanted }
}

@Suite("Made names in the header row", .timeLimit(.minutes(30)))
struct MadeNameTests {
    @Test("a repeated or empty header cell shows its unique name, in a style of its own; the file's names do not")
    func uniqueNamesOnScreen() throws {
        let subject = viewer("a,a_2,a,,column 4\n1,2,3,4,5\n", width: 80, height: 5, options: .plain(showsRowNumbers: false))
        let frame = subject.frame()
        let header = frame.lines[0]
        #expect(header.hasPrefix("a "), "\(header)")
        let made3 = try #require(column(of: "a_3", in: frame, line: 0), "\(header)")
        let made4 = try #require(column(of: "column 4_2", in: frame, line: 0), "the empty cell's name shows whole: \(header)")
        let own2 = try #require(column(of: "a_2", in: frame, line: 0))
        let own5 = try #require(column(of: "column 4 ", in: frame, line: 0))
        #expect(frame.style(x: made3, y: 0) == .madeName)
        #expect(frame.style(x: made4 + 9, y: 0) == .madeName)
        #expect(frame.style(x: own2, y: 0) == .header)
        #expect(frame.style(x: own5, y: 0) == .header)
        // The cursor's column: the made name in the cursor column's made style.
        subject.handle(.moveRight)
        subject.handle(.moveRight)
        let moved = subject.frame()
        #expect(moved.style(x: made3, y: 0) == .madeNameOfCursorColumn)
        #expect(moved.lines.last?.contains("col 3/5 a_3") == true, "\(moved.lines.last ?? "")")
    }

    @Test("the header cell's own bytes stay what output gives; the record view names columns as the grid does")
    func bytesStay() throws {
        let subject = viewer("a,a_2,a,,column 4\n1,2,3,4,5\n", width: 80, height: 8, options: .plain(showsRowNumbers: false))
        var bytes: [UInt8] = []
        OutputWriter.appendDelimited(try #require(subject.table.headerRecord(0)), delimiter: UInt8(ascii: ","), lineEnding: [],
                                     to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "a,a_2,a,,column 4")
        subject.handle(.recordView)
        let lines = subject.frame().lines
        #expect(lines.contains { $0.contains("a_3") } && lines.contains { $0.contains("column 4_2") }, "\(lines)")
    }

    @Test("a header row whose names are all the file's own looks as before")
    func ownNames() {
        let frame = viewer("id,name\n1,Ann\n", width: 40, height: 4, options: .plain(showsRowNumbers: false)).frame()
        #expect((0..<7).allSatisfy { frame.style(x: $0, y: 0) == .header || frame.style(x: $0, y: 0) == .headerOfCursorColumn })
    }
}
