// A 50 MB Excel workbook: its first screen and peak memory, beside openpyxl's read-only
// load of the same first rows, in the same run.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import Viewer

/// The child that opens the workbook as the viewer does: prints the seconds to the first
/// screen (200×60, full), to the whole sheet indexed, the peak MiB and the row count.
func xlsxChild(_ path: String) -> Never {
    let start = now()
    guard let store = try? CellStore.open(InputSpec(path: path)) else { exit(1) }
    let viewer = Viewer(store: store, screenSize: Size(width: 200, height: 60))
    store.waitForIndex {
        viewer.handle(.refresh)
        return viewer.dataRowCount >= 58
    }
    _ = viewer.frame()
    let firstScreen = now() - start
    store.waitForIndex { false }
    let indexed = now() - start
    viewer.handle(.lastRow)
    _ = viewer.frame()
    print(String(format: "%.4f %.3f %.1f %d", firstScreen, indexed, peakMemoryMiB(), store.progress.failure == nil ? store.rowCount : -1))
    exit(0)
}

/// `--xlsx-only`: makes `directory/bench-50m.xlsx` with openpyxl when missing
/// (scripts/make-xlsx-bench.py, through `.venv-peers`), then measures it.
@MainActor func xlsxSection(directory: String, me: String) {
    let path = directory + "/bench-50m.xlsx"
    let python = option("--python") ?? FileManager.default.currentDirectoryPath + "/.venv-peers/bin/python"
    if !FileManager.default.fileExists(atPath: path) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-xlsx-bench.py").path
        print("making \(path) with openpyxl …")
        _ = shellTime("'\(python)' '\(script)' '\(path)' 50")
    }
    guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64 else {
        print("no \(path): sh scripts/setup-peers.sh makes .venv-peers with openpyxl (or --python PATH)")
        return
    }
    print(String(format: "xlsx: %@ (%.1f MB)", path, Double(size) / 1e6))
    _ = shellTime("cat '\(path)' > /dev/null")
    var first = Double.infinity, index = Double.infinity, peak = Double.infinity, rows = -1
    var openpyxl = Double.infinity
    let peerLoad = "import openpyxl,sys; ws=openpyxl.load_workbook(sys.argv[1], read_only=True).worksheets[0]; "
        + "rows=list(ws.iter_rows(max_row=60, values_only=True))"
    // The machine may be shared: the best of three, csvfreeze's and openpyxl's runs in turn.
    for _ in 0..<3 {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: me)
        process.arguments = ["--child-xlsx", path]
        process.standardOutput = pipe
        try? process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let figures = (output.split(separator: "\n").last ?? "").split(separator: " ").compactMap { Double($0) }
        guard figures.count == 4 else {
            print("the workbook child failed (status \(process.terminationStatus)): \(output)")
            return
        }
        first = min(first, figures[0])
        index = min(index, figures[1])
        peak = min(peak, figures[2])
        rows = Int(figures[3])
        if FileManager.default.isExecutableFile(atPath: python) {
            openpyxl = min(openpyxl, shellTime("'\(python)' -c '\(peerLoad)' '\(path)'"))
        }
    }
    report("xlsx 50 MB: first screen (200×60)", ms(first), target: "< 1 s", ok: first < 1)
    report("xlsx 50 MB: peak memory, sheet indexed", String(format: "%.1f MiB", peak), target: "< 128 MiB", ok: peak < 128)
    report("xlsx 50 MB: whole sheet indexed", s(index), target: "\(rows.grouped) rows", ok: rows > 0)
    if openpyxl.isFinite {
        report("  openpyxl read-only, first 60 rows", s(openpyxl), target: "(the peer, same file)")
    }
}
