import CellStore
import FreezeLayout
import Foundation
import Query
import Viewer

/// The cost of a frame in a sorted and in a filtered view of the 1 GiB file, at 200×60,
/// at the top, the middle and the end of the view: each row on screen is read alone from
/// its offset, so a frame costs about a screen of records wherever it is.
@MainActor func viewFrameBenchmark(big: String) throws {
    print("\n— frames in sorted and filtered views —")
    let store = try CellStore.open(InputSpec(path: big), startsLoader: false, onChange: markViewerNews)
    store.indexNow()
    let viewer = Viewer(store: store, screenSize: Size(width: 200, height: 60))
    func settle() {
        turnViewer(viewer) { viewer.isQueryRunning }
        viewer.handle(.refresh)
    }
    func page(at row: Int) -> Double {
        // A jump: every row on screen is new, none cached.
        let (_, time) = timed {
            viewer.moveCursor(toRow: row, column: 0)
            _ = viewer.frame()
        }
        return time
    }
    viewer.apply(filters: [], sortKeys: [SortKey(column: 5, descending: true)], columns: nil)
    settle()
    let rows = viewer.dataRowCount
    for (name, row) in [("top", 0), ("middle", rows / 2), ("end", max(0, rows - 2000))] {
        let cost = frameCost(of: viewer, at: row, steps: 1000)
        report("sorted view: frame at the \(name)", ms(cost), target: "≤ 1 ms", ok: cost <= 0.001)
    }
    let jump = page(at: rows / 3)
    report("sorted view: jump, 60 new rows", ms(jump), target: "≤ 20 ms", ok: jump <= 0.02)
    viewer.apply(filters: [RecordFilter(pattern: "7$", column: 0)], sortKeys: [], columns: nil)
    settle()
    let filtered = viewer.dataRowCount
    for (name, row) in [("top", 0), ("end", max(0, filtered - 2000))] {
        let cost = frameCost(of: viewer, at: row, steps: 1000)
        report("filtered (1 in 10): frame at \(name)", ms(cost), target: "≤ 1 ms", ok: cost <= 0.001)
    }
}

/// The mean time of one scroll step and its frame at 200×60, from `row` on, after a warm-up.
@MainActor func frameCost(of viewer: Viewer, at row: Int, steps: Int) -> Double {
    viewer.moveCursor(toRow: row, column: 0)
    for _ in 0..<60 { viewer.handle(.moveDown); _ = viewer.frame() }   // warm
    let (_, time) = timed {
        for _ in 0..<steps {
            viewer.handle(.moveDown)
            _ = viewer.frame()
        }
    }
    return time / Double(steps)
}
