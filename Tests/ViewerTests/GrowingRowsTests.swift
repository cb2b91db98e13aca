import Synchronization
import Testing
import CellStore
import FreezeLayout
import Table
@testable import Viewer

/// A view's rows in reverse file order that a pass is still adding: each lookup of a
/// record finds the pass further on, as when its thread ran between the viewer's last
/// look at the count and the lookup.
private final class GrowingRows: RecordSequence {
    let total: Int
    let known: Mutex<Int>
    let changes = ChangeSignal()

    init(total: Int, known: Int) {
        self.total = total
        self.known = Mutex(known)
    }

    var count: Int { known.withLock { $0 } }
    var isComplete: Bool { count == total }

    func records(in range: Range<Int>) -> [RecordRef] {
        range.clamped(to: 0..<count).map { RecordRef(record: total - $0) }
    }

    func index(of record: Int) -> Int? {
        let now = known.withLock { $0 = total; return $0 }
        let row = total - record
        return (0..<now).contains(row) ? row : nil
    }
}

@Suite("Rows a pass adds between two looks", .timeLimit(.minutes(30)))
struct GrowingRowsTests {
    private static func viewer() -> Viewer {
        let csv = "n\n" + (1...1_000).map { "\($0)\n" }.joined()
        let viewer = Viewer(store: CellStore(bytes: Array(csv.utf8)), options: .plain, screenSize: Size(width: 40, height: 10))
        waitUntil("the index") { viewer.handle(.refresh); return viewer.table.file?.isComplete == true }
        return viewer
    }

    @Test("rows shown while their pass runs: the cursor lands on its record, not on the last row the count had")
    func showsOnItsRecord() {
        let viewer = Self.viewer()
        viewer.moveCursor(toRow: 9, column: 0)
        #expect(viewer.table.record(ofRow: viewer.cursorRow) == 10)
        viewer.show(rows: GrowingRows(total: 1_000, known: 100))
        #expect(viewer.cursorRow == 990)
        #expect(viewer.table.record(ofRow: viewer.cursorRow) == 10)
    }

    @Test("a row found past the count the screen last took in is where the cursor goes")
    func movesPastTheOldCount() {
        let viewer = Self.viewer()
        let rows = GrowingRows(total: 1_000, known: 100)
        viewer.show(rows: rows)
        // Showing looked the cursor's record up: the pass back where the screen takes it in.
        rows.known.withLock { $0 = 100 }
        viewer.handle(.refresh)
        rows.known.withLock { $0 = 1_000 }
        viewer.moveCursor(toRow: 990, column: 0)
        #expect(viewer.table.record(ofRow: viewer.cursorRow) == 10)
    }
}
