// The search figures: csvfreeze's search beside grep on the same file, in the same run.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import Scan
import TestSupport
import Viewer

/// Seconds `grep` takes over `path` (its output, the count, is returned too).
func grepTime(_ options: [String], _ pattern: String, _ path: String) -> (Double, String) {
    let pipe = Pipe()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["grep"] + options + [pattern, path]
    process.environment = ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]
    process.standardOutput = pipe
    let start = now()
    try? process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (now() - start, output.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// Types `/pattern` Enter (or presses `key`) and waits for the search's outcome.
@MainActor func searchThroughViewer(_ viewer: Viewer, _ pattern: String?, key: Key = .character("/")) -> (Double, String) {
    let start = now()
    viewer.handle(key: key)
    if let pattern {
        for character in pattern { viewer.handle(key: .character(character)) }
        viewer.handle(key: .enter)
    }
    turnViewer(viewer) { viewer.isSearching }
    return (now() - start, viewer.message ?? "row \(viewer.cursorRow + 1)")
}

/// The child process that measures memory: index, then search, and print the peak
/// resident memory during the search less the resident memory before it.
@MainActor func searchMemoryChild(_ path: String) -> Never {
    func kilobytes(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return -1 }
        return Double(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    guard let store = try? CellStore.open(InputSpec(path: path), onChange: markViewerNews) else { exit(1) }
    let viewer = Viewer(store: store, screenSize: Size(width: 200, height: 60))
    _ = viewer.frame()
    store.waitForIndex { false }
    viewer.handle(.refresh)
    _ = viewer.frame()
    let before = kilobytes("VmRSS:")
    // Reset the peak so that it measures the search only.
    if let reset = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
        reset.write(Data("5".utf8))
        try? reset.close()
    }
    _ = searchThroughViewer(viewer, "zqxjv")
    _ = searchThroughViewer(viewer, "zz[q]+x{2}")
    let peak = kilobytes("VmHWM:")
    print(String(format: "%.1f", (peak - before) / 1024))
    exit(0)
}

@MainActor func searchBenchmark(big: String, fuzzSeconds: Double) throws {
    let store = try CellStore.open(InputSpec(path: big), onChange: markViewerNews)
    let viewer = Viewer(store: store, screenSize: Size(width: 200, height: 60))
    _ = viewer.frame()
    store.waitForIndex { false }
    viewer.handle(.refresh)
    let lastRecord = store.rowCount - 1   // the generator numbers data rows from 1: id = record

    print("")
    _ = grepTime(["-c"], "zqxjv", big)   // the page cache warm for every figure alike
    let (grepLiteral, _) = grepTime(["-c"], "zqxjv", big)
    let (grepCaseless, _) = grepTime(["-ci"], "zqxjv", big)
    let (ours, literalMessage) = searchThroughViewer(viewer, "zqxjv")
    report("search, literal found nowhere (zqxjv)", s(ours), target: String(format: "≤ %.2f s (2 × grep -c %.2f s)", 2 * grepLiteral, grepLiteral),
           ok: ours <= 2 * grepLiteral && literalMessage.hasPrefix("not found"))
    report("  grep -ci (caseless, as smart case here)", s(grepCaseless), target: String(format: "ratio %.1f×", ours / grepCaseless))

    let (grepClass, _) = grepTime(["-cE"], "zz[q]+x{2}", big)
    let (oursClass, classMessage) = searchThroughViewer(viewer, "zz[q]+x{2}")
    report("search, class regex found nowhere (zz[q]+x{2})", s(oursClass),
           target: String(format: "≤ %.2f s (2 × grep -cE %.2f s)", 2 * grepClass, grepClass),
           ok: oursClass <= 2 * grepClass && classMessage.hasPrefix("not found"))

    // A hit in the last row against a pattern of the same shape found nowhere: how fast
    // PCRE2 skips depends on the pattern's first byte, not on where the hit is.
    viewer.handle(.firstRow)
    let (oursNone, noneMessage) = searchThroughViewer(viewer, "^9999999999$")
    let (grepNumber, _) = grepTime(["-c"], "9999999999", big)
    report("search, number found nowhere (^9999999999$)", s(oursNone),
           target: String(format: "grep -c 9999999999: %.2f s", grepNumber), ok: noneMessage.hasPrefix("not found"))
    viewer.handle(.firstRow)
    let lastPattern = "^\(lastRecord)$"
    let (oursLast, _) = searchThroughViewer(viewer, lastPattern)
    report("search, hit in the last row (\(lastPattern))", s(oursLast), target: String(format: "≤ %.2f s (as not found)", oursNone * 1.25 + 0.02),
           ok: oursLast <= oursNone * 1.25 + 0.02 && viewer.cursorRow == lastRecord - 1)
    // N from the last row to a hit in the first: backward, as fast as forward. The first
    // row's random number (column 3) is found nowhere else.
    let firstValue = store.row(1)?.string(3) ?? ""
    viewer.handle(.firstRow)
    viewer.handle(.firstColumn)
    _ = searchThroughViewer(viewer, "^\(firstValue)$")   // in the first row: at once
    viewer.handle(.lastRow)
    let (oursN, _) = searchThroughViewer(viewer, nil, key: .character("N"))
    report("N from the last row to a hit in the first", s(oursN), target: String(format: "≤ %.2f s (as not found)", oursNone * 1.25 + 0.02),
           ok: oursN <= oursNone * 1.25 + 0.02 && viewer.cursorRow == 0)

    // The engine on one core and on two, for the gain from the second (CPU time too: on a
    // busy machine the wall clock says little).
    if let input = ScanInput(store: store) {
        func cpu() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        var times: [(Double, Double)] = []
        for workers in [1, 2] {
            var search = CellSearch(input: input, pattern: try SearchPattern(text: "zqxjv").compile(), column: nil)
            search.workers = workers
            let before = cpu()
            let (_, wall) = timed { search.find(in: 0..<store.rowCount, forward: true, control: ScanControl()) { _, c in c.first } }
            times.append((wall, cpu() - before))
        }
        report("  the literal on one core / two (wall)", String(format: "%.2f / %.2f s", times[0].0, times[1].0),
               target: String(format: "two cores: %.1f× faster", times[0].0 / times[1].0))
        report("  the literal on one core / two (CPU)", String(format: "%.2f / %.2f s", times[0].1, times[1].1))
    }

    // A key while a search runs: the search is on its own thread.
    viewer.handle(.firstRow)
    viewer.handle(key: .character("/"))
    for character in "zz[q]+x{2}|qqqj" { viewer.handle(key: .character(character)) }
    viewer.handle(key: .enter)
    var keyTime = 0.0, keys = 0
    while viewer.isSearching && keys < 20 {
        let (_, time) = timed {
            viewer.handle(.moveDown)
            _ = viewer.frame()
        }
        keyTime = max(keyTime, time)
        keys += 1
        usleep(20_000)
        viewer.handle(.refresh)
    }
    report("a key during a search (worst of \(keys))", ms(keyTime), target: "≤ one frame (30 ms)", ok: keyTime <= 0.03 && keys > 0)
    viewer.handle(key: .escape)

    let memory = child("'\(CommandLine.arguments[0])' --child-search '\(big)'")
    report("memory during a search, above before it", String(format: "%.1f MiB", memory.mib), target: "≤ 8 MiB",
           ok: memory.mib >= 0 && memory.mib <= 8)

    // Randomized differential run: the raw-byte search against every cell parsed.
    var runs = 0, failures = 0
    var seed: UInt64 = 1_000_000
    let end = now() + fuzzSeconds / 2
    while now() < end {
        seed += 1
        runs += 1
        if let failure = SearchFuzz.check(seed: seed) {
            failures += 1
            if failures <= 3 { print("SEARCH MISMATCH, seed \(seed): \(failure)") }
        }
    }
    report("search vs per-cell matching, random inputs", "\(runs) runs", target: "\(failures) failures", ok: failures == 0)
}
