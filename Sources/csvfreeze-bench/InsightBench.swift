// The figures of --frequency and --summary: measured end to end (open, index, count) in
// child processes, beside libcsv's full parse of the same file in the same run.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import Insight
import Scan

/// The child that counts: `--child-insight frequency|summary COLUMN PATH` opens the file,
/// indexes it, counts as the command line does, and prints seconds, peak MiB and a check.
func insightChild(_ words: [String]) -> Never {
    guard words.count == 3 else { exit(64) }
    let (mode, column, path) = (words[0], Int(words[1]) ?? 0, words[2])
    let start = now()
    guard let store = try? CellStore.open(path: path) else { exit(1) }
    store.waitForIndex { false }
    guard let input = ScanInput(store: store) else { exit(1) }
    var check = ""
    if mode == "frequency" {
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
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    print(String(format: "%.3f %.1f %.2f ", now() - start, peakMemoryMiB(), cpu) + check)
    exit(0)
}

/// Runs a child and reads its seconds, peak MiB and check.
func insightRun(_ mode: String, column: Int, big: String) -> (seconds: Double, mib: Double, cpu: Double, check: String) {
    let me = CommandLine.arguments[0]
    let pipe = Pipe()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: me)
    process.arguments = ["--child-insight", mode, String(column), big]
    process.standardOutput = pipe
    try? process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let parts = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ", maxSplits: 3)
    guard parts.count == 4 else { return (-1, -1, -1, output) }
    return (Double(parts[0]) ?? -1, Double(parts[1]) ?? -1, Double(parts[2]) ?? -1, String(parts[3]))
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
    let summary = insightRun("summary", column: 0, big: big)
    report("--summary (20 columns)", s(summary.seconds),
           target: String(format: "%.2f× libcsv (≤ 1.5, aim 1.0)", summary.seconds / libcsvTime),
           ok: summary.seconds > 0 && summary.seconds <= libcsvTime * 1.5)
    report("  peak memory", String(format: "%.1f MiB", summary.mib),
           target: String(format: "≤ 96 MiB; CPU %.2f s; columns cells estimated: ", summary.cpu) + summary.check,
           ok: summary.mib > 0 && summary.mib <= 96)
}
