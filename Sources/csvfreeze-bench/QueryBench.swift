// The filter and sort figures: csvfreeze's Query engine beside grep and libcsv's full
// parse on the same file, in the same run.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import CLibCSV
import Foundation
import Query
import Table

/// The child that sorts: opens `path` as the command line does (the index runs at the
/// same time), sorts by `column`, and prints the time to the first row, to the first
/// screen read through a table view, to the end, the peak memory, the runs spilled and
/// the rows.
@MainActor func sortChild(_ path: String, column: Int) -> Never {
    let start = now()
    guard let store = try? CellStore.open(InputSpec(path: path)) else { exit(1) }
    store.waitForIndex { store.rowCount >= 1001 }
    let sorted = SortedRecords.start(store: store, headerRows: 1, keys: [SortKey(column: column)])
    while true {
        let version = sorted.changes.version
        if sorted.count > 0 || sorted.isComplete { break }
        sorted.changes.wait(past: version)
    }
    let first = now() - start
    let view = TableView(source: store, headerRows: 1)
    view.show(rows: sorted)
    view.fetch(rows: [0..<60])
    _ = (0..<60).map { view.row($0) }
    let screen = now() - start
    sorted.wait()
    let total = now() - start
    print(String(format: "%.3f %.3f %.3f %.1f %d %d", first, screen, total, peakMemoryMiB(), sorted.spilledRuns, sorted.count))
    exit(0)
}

/// Runs the sort child on `path` and reads its figures.
func sortFigures(_ path: String, column: Int) -> [Double] {
    let me = CommandLine.arguments[0]
    let pipe = Pipe()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: me)
    process.arguments = ["--child-sort", path, String(column)]
    process.standardOutput = pipe
    try? process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (output.split(separator: "\n").last ?? "").split(separator: " ").compactMap { Double($0) }
}

/// Temporary files a sort left in the temporary directory (there should be none).
func leftoverSortFiles() -> Int {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix("csvfreeze-sort-") }.count
}

@MainActor func queryBenchmark(big: String, directory: String, tenGiB: Bool) throws {
    print("\n— filter and sort (Query) —")
    let libcsv = try libcsvParse(big).seconds
    report("libcsv full parse (reference)", s(libcsv))

    // A filter that matches nothing, index complete, beside grep -c in the same run.
    let store = try CellStore.open(InputSpec(path: big), startsLoader: false)
    store.indexNow()
    for pattern in ["zqxjv", "zz[q]+x{2}"] {
        let (grepSeconds, _) = grepTime(pattern.contains("[") ? ["-cE"] : ["-c"], pattern, big)
        let (filter, seconds) = try timed { () throws -> FilteredRecords in
            let filter = try FilteredRecords.start(store: store, headerRows: 1, filters: [RecordFilter(pattern: pattern)])
            filter.wait()
            return filter
        }
        report("filter matching nothing (\(pattern))", s(seconds),
               target: String(format: "grep -c%@ %.2f s (≤ 2×: %.2f×)", pattern.contains("[") ? "E" : "", grepSeconds, seconds / grepSeconds),
               ok: seconds <= 2 * grepSeconds && filter.count == 0)
    }
    let (broad, broadSeconds) = try timed { () throws -> FilteredRecords in
        let filter = try FilteredRecords.start(store: store, headerRows: 1, filters: [RecordFilter(pattern: "zürich", column: 1)])
        filter.wait()
        return filter
    }
    report("filter keeping many rows (zürich in col01)", s(broadSeconds), target: "\(broad.count) rows")

    // Sort by a number column, from opening the file (the index runs alongside).
    let figures = sortFigures(big, column: 5)
    if figures.count == 6 {
        report("sort by col05 (numbers): first row", s(figures[0]),
               target: String(format: "≤ libcsv %.2f s (%.2f×)", libcsv, figures[0] / libcsv), ok: figures[0] <= libcsv)
        report("  first screen (60 rows read)", s(figures[1]), target: String(format: "aim 0.5× = %.2f s", libcsv / 2))
        report("  whole order merged", s(figures[2]), target: "\(Int(figures[5])) rows, \(Int(figures[4])) runs spilled")
        report("  peak memory", String(format: "%.1f MiB", figures[3]), target: "≤ 128 MiB", ok: figures[3] <= 128)
    }
    report("sort temporary files left", "\(leftoverSortFiles())", target: "0", ok: leftoverSortFiles() == 0)

    guard tenGiB else { return }
    let huge = directory + "/bench-10g.csv"
    let hugeSize = (try? FileManager.default.attributesOfItem(atPath: huge)[.size] as? Int64) ?? 0
    let bigSize = (try? FileManager.default.attributesOfItem(atPath: big)[.size] as? Int64) ?? 0
    if hugeSize < bigSize * 10 {
        print("making \(huge) by concatenation …")
        _ = FileManager.default.createFile(atPath: huge, contents: nil)
        let status = system("for i in 1 2 3 4 5 6 7 8 9 10; do cat '\(big)'; done > '\(huge)'")
        guard status == 0 else { print("cannot make \(huge)"); return }
    }
    let hugeFigures = sortFigures(huge, column: 5)
    if hugeFigures.count == 6 {
        report("10 GiB sort: first row / whole order", "\(s(hugeFigures[0])) / \(s(hugeFigures[2]))",
               target: "\(Int(hugeFigures[5])) rows, \(Int(hugeFigures[4])) runs spilled")
        report("  peak memory", String(format: "%.1f MiB", hugeFigures[3]), target: "≤ 256 MiB", ok: hugeFigures[3] <= 256)
    }
    report("sort temporary files left", "\(leftoverSortFiles())", target: "0", ok: leftoverSortFiles() == 0)
}
