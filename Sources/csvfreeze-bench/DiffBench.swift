// The figures of --diff: the 1 GiB bench file against a copy with 0.1 % of its records
// changed, removed or added, compared by key and by position with the real binary, beside
// DuckDB computing the symmetric difference of the two files (`except all` both ways,
// SET threads=2) in the same run: wall time, CPU time, peak memory, and the counts compared.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation

/// The bench file's rows with about one record in a thousand edited: a third changed (its
/// last cell), a third removed, a third followed by a new record.
func changedRow(_ index: Int, _ generator: inout SeededGenerator) -> String {
    let row = wideRow(index, &generator)
    var mixed = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
    mixed ^= mixed >> 29
    mixed = mixed &* 0xBF58_476D_1CE4_E5B9
    mixed ^= mixed >> 32
    switch mixed % 3000 {
    case 0: return ""
    case 1: return String(row.dropLast()) + "9\n"
    case 2:
        // A generator of its own, so the rows after it stay the old file's.
        var extra = SeededGenerator(seed: UInt64(index))
        return row + wideRow(100_000_000 + index, &extra)
    default: return row
    }
}

@MainActor func diffBenchmark(big: String, directory: String) {
    print("")
    print("--diff, end to end in child processes beside DuckDB (SET threads=2, except all both ways); best of 2, taken in turn")
    guard let binary = builtCSVFreeze(for: "--diff figures") else { return }
    let changed = directory + "/bench-1g-changed.csv"
    generate(changed, size: targetSize, header: "id," + (1..<20).map { String(format: "col%02d", $0) }.joined(separator: ",") + "\n",
             row: changedRow)
    let (python, hasDuckDB) = duckDBPython()
    warmPageCache([big, changed])
    let duckScript = """
    import duckdb, sys
    \(duckConnection)
    a, b = sys.argv[1], sys.argv[2]
    q = f"select count(*) from ((select * from read_csv('{a}') except all select * from read_csv('{b}')) union all (select * from read_csv('{b}') except all select * from read_csv('{a}')))"
    print(con.execute(q).fetchone()[0])
    """
    let duck = [python, "-c", duckScript, big, changed]
    let keyed = [binary, "--diff", changed, "--key", "id", "--output", "csv", big]
    let positional = [binary, "--diff", changed, "--output", "csv", big]
    let runs = bestOf(2, hasDuckDB ? [keyed, positional, duck] : [keyed, positional])
    let duckRun = hasDuckDB ? runs[2] : nil
    // The counts, from --summary (not timed): changed count twice in a symmetric difference.
    func counts(_ extra: [String]) -> (changed: Int, added: Int, removed: Int)? {
        let line = measure(["/bin/sh", "-c", ([binary, "--diff", changed, "--summary"] + extra + [big]).map { "'\($0)'" }.joined(separator: " ")
                            + " 2>&1 >/dev/null"]).output
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count >= 3 ? (numbers[0], numbers[1], numbers[2]) : nil
    }
    let duckCount = Int(duckRun?.output.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
    for (label, run, extra) in [("--diff --key id (1 GiB vs 0.1 % edited)", runs[0], ["--key", "id"]),
                                ("--diff by position (same files)", runs[1], [])] {
        report(label, s(run.seconds), target: duckRun.map { String(format: "DuckDB %.2f s (%.2f×)", $0.seconds, run.seconds / $0.seconds) } ?? "",
               ok: duckRun.map { run.seconds <= $0.seconds && run.status == 1 })
        report("  CPU / peak memory", String(format: "%.2f s / %.1f MiB", run.cpu, run.mib),
               target: duckRun.map { String(format: "DuckDB %.2f s / %.0f MiB", $0.cpu, $0.mib) } ?? "≤ 128 MiB", ok: run.mib <= 128)
        if let found = counts(extra) {
            let symmetric = found.removed + found.added + 2 * found.changed
            report("  changed / added / removed", "\(found.changed) / \(found.added) / \(found.removed)",
                   target: duckCount.map { "DuckDB's symmetric difference \($0) (ours \(symmetric))" } ?? "",
                   ok: duckCount.map { $0 == symmetric })
        }
    }
    print("  load average after: \(loadAverage())")
}
