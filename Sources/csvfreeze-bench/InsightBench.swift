// The figures of --frequency and --summary: measured end to end (open, index, count) in
// child processes, beside libcsv's full parse of the same file in the same run.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import Insight
import Scan
import Viewer

/// The child that counts: `--child-insight frequency|summary|sheet|sheet-early COLUMN PATH`
/// opens the file, indexes it, counts as the command line does (`sheet`: presses `#` on the
/// column in a viewer, as a user would once the file is read, and waits until the sheet
/// shows the whole count, publishing and drawing as the event loop does; `sheet-early`:
/// presses it as soon as the first screen is up, while the file is still being read), and
/// prints seconds, peak MiB and a check.
func insightChild(_ words: [String]) -> Never {
    guard words.count == 3 else { exit(64) }
    let (mode, column, path) = (words[0], Int(words[1]) ?? 0, words[2])
    let start = now()
    // News wakes the loop, as the event loop's pipe does.
    let news = DispatchSemaphore(value: 0)
    guard let store = try? CellStore.open(InputSpec(path: path), onChange: { news.signal() }) else { exit(1) }
    let viewer = Viewer(store: store, screenSize: Size(width: 200, height: 60))
    _ = viewer.frame()
    if mode != "sheet-early" { store.waitForIndex { false } }
    guard let input = ScanInput(store: store) else { exit(1) }
    // The count's own part, from the moment the file is read (when a user presses `#`).
    let counting = now(), cpuBefore = processCPUSeconds()
    var check = ""
    if mode == "histogram" {
        let count = HistogramCount(input: input, column: column, isTime: false, headerRows: 1)
        count.wait()
        guard case .finished(let counts) = count.status else { exit(1) }
        let table = counts.table(bins: 20)
        check = "\(counts.total) \(table.rows.count) \(counts.others)"
    } else if mode == "sheet" || mode == "sheet-early" {
        viewer.moveCursor(toRow: 0, column: column)
        _ = viewer.frame()
        viewer.handle(.frequency)
        guard let sheet = viewer.takeSheet() else { exit(1) }
        // The event loop's turn on news: published into the sheet's rows, then a frame;
        // the status line says when the count is whole.
        while true {
            sheet.update()
            sheet.viewer.handle(.refresh)
            let note = sheet.viewer.frame().lines.last ?? ""
            // A number or date column with more values than a screen shows its bins.
            if !note.contains("counting") && (note.contains("distinct") || note.contains("unique") || note.contains(" bins of ")) {
                check = "\(sheet.viewer.dataRowCount) rows listed"
                break
            }
            // A filling sheet takes its news at most every 250 ms (`AppLoop.sheetInterval`).
            _ = news.wait(timeout: .now() + .milliseconds(250))
            while news.wait(timeout: .now()) == .success {}
        }
    } else if mode == "frequency" {
        let count = FrequencyCount(input: input, column: column, headerRows: 1)
        count.wait()
        guard case .finished(let table) = count.status else { exit(1) }
        check = "\(table.total) \(table.rows.count) \(table.distinctIsEstimate ? "≈" : "")\(table.distinct)"
    } else {
        let names = store.row(0)?.strings ?? []
        let scan = SummaryScan(input: input, names: names, headerRows: 1)
        scan.wait()
        guard case .finished(let rows) = scan.status else { exit(1) }
        check = "\(rows.count) \(rows.map(\.filled).reduce(0, +)) \(rows.filter(\.distinctIsEstimate).count)"
    }
    let cpu = processCPUSeconds()
    print(String(format: "%.3f %.1f %.2f %.3f %.2f ", now() - start, peakMemoryMiB(), cpu, now() - counting, cpu - cpuBefore) + check)
    exit(0)
}

/// CPU seconds the process has used, all its threads.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// What a child measured: from opening the file, and from the moment it was read.
struct InsightRun {
    var seconds = -1.0, mib = -1.0, cpu = -1.0
    /// The count alone (after the index): wall and CPU seconds.
    var countSeconds = -1.0, countCPU = -1.0
    var check = ""
}

/// Runs a child and reads its seconds, peak MiB and check.
func insightRun(_ mode: String, column: Int, big: String) -> InsightRun {
    let me = CommandLine.arguments[0]
    let pipe = Pipe()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: me)
    process.arguments = ["--child-insight", mode, String(column), big]
    process.standardOutput = pipe
    try? process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let parts = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ", maxSplits: 5)
    guard parts.count == 6 else { return InsightRun(check: output) }
    let numbers = parts.prefix(5).map { Double($0) ?? -1 }
    return InsightRun(seconds: numbers[0], mib: numbers[1], cpu: numbers[2], countSeconds: numbers[3], countCPU: numbers[4],
                      check: String(parts[5]))
}

@MainActor func insightBenchmark(big: String, libcsvTime: Double) {
    print("")
    print("frequency and summary (open, index and count, in a child process; libcsv full parse \(s(libcsvTime)))")
    // col02: 10 words, 30 % of them quoted with doubled quotes: 20 distinct values, a
    // column like a country's. id: every value unique, past the budget (two passes).
    let low = insightRun("frequency", column: 2, big: big)
    report("--frequency col02 (20 distinct)", s(low.seconds),
           target: String(format: "%.2f× libcsv (≤ 1.0, aim 0.3)", low.seconds / libcsvTime),
           ok: low.seconds > 0 && low.seconds <= libcsvTime)
    report("  peak memory", String(format: "%.1f MiB", low.mib), target: String(format: "CPU %.2f s; records rows distinct: ", low.cpu) + low.check)
    let unique = insightRun("frequency", column: 0, big: big)
    report("--frequency id (all unique, past the budget)", s(unique.seconds),
           target: String(format: "%.2f× libcsv", unique.seconds / libcsvTime))
    report("  peak memory", String(format: "%.1f MiB", unique.mib), target: String(format: "CPU %.2f s; records rows distinct: ", unique.cpu) + unique.check,
           ok: unique.mib > 0 && unique.mib <= 128)
    // The sheet costs what the count costs: `#` on the same column, once the file is read,
    // until the sheet shows the whole count, beside --frequency's count of it from the
    // same moment; col03 is practically unique (random 9-digit numbers).
    for (column, name) in [(0, "id"), (3, "col03")] {
        let count = column == 0 ? unique : insightRun("frequency", column: column, big: big)
        let sheet = insightRun("sheet", column: column, big: big)
        report("# on \(name), whole on screen", s(sheet.countSeconds),
               target: String(format: "--frequency %.2f s (≤ 1.3×: %.2f×); CPU %.2f / %.2f s; %@", count.countSeconds,
                              sheet.countSeconds / count.countSeconds, sheet.countCPU, count.countCPU, sheet.check),
               ok: sheet.countSeconds > 0 && sheet.countSeconds <= 1.3 * count.countSeconds)
        // Pressed while the file is read: from opening, beside --frequency from opening.
        let early = insightRun("sheet-early", column: column, big: big)
        report("  # while the file is read, from opening", s(early.seconds),
               target: String(format: "--frequency %.2f s (≤ 1.3×: %.2f×); CPU %.2f / %.2f s", count.seconds,
                              early.seconds / count.seconds, early.cpu, count.cpu),
               ok: early.seconds > 0 && early.seconds <= 1.3 * count.seconds)
    }
    let summary = insightRun("summary", column: 0, big: big)
    report("--summary (20 columns)", s(summary.seconds),
           target: String(format: "%.2f× libcsv (≤ 1.5, aim 1.0)", summary.seconds / libcsvTime),
           ok: summary.seconds > 0 && summary.seconds <= libcsvTime * 1.5)
    report("  peak memory", String(format: "%.1f MiB", summary.mib),
           target: String(format: "≤ 96 MiB; CPU %.2f s; columns cells estimated: ", summary.cpu) + summary.check,
           ok: summary.mib > 0 && summary.mib <= 96)
}
