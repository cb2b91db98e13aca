// The export figures: `csvfreeze --output …` end to end, each beside the tool a user
// would pick instead (cat, grep, DuckDB when .venv-peers holds it), in the same run.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Foundation
import Query
import Table
import Viewer

/// Runs `command` with `sh -c`, its output thrown away unless it is redirected in the
/// command itself; returns the wall time and the peak memory of the slowest process
/// (GNU time's maximum resident set size), in MiB.
func shell(_ command: String) -> (seconds: Double, mib: Double, status: Int32) {
    let report = FileManager.default.temporaryDirectory.appendingPathComponent("bench-time-\(getpid())").path
    defer { unlink(report) }
    let start = now()
    let status = system("/usr/bin/time -f %M -o '\(report)' sh -c \(shellQuoted(command)) > /dev/null")
    let seconds = now() - start
    let kilobytes = (try? String(contentsOfFile: report, encoding: .utf8))?
        .split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.last ?? -1
    return (seconds, kilobytes / 1024, status)
}

func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

/// The best of `runs` timings of `command` (the page cache warm, other builders busy).
func best(_ runs: Int = 2, _ command: String) -> (seconds: Double, mib: Double) {
    var result = (seconds: Double.infinity, mib: 0.0)
    for _ in 0..<runs {
        let run = shell(command)
        if run.seconds < result.seconds { result = (run.seconds, run.mib) }
    }
    return result
}


/// The filter rows alone (`--filter-only`): many matches and none, each beside grep.
@MainActor func filterBenchmark(big: String, directory: String) {
    print("\n— --filter --output csv beside grep, in the same run; load average \(loadAverage()) —")
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("csvfreeze").path
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        print("no csvfreeze beside the benchmark: swift build -c release first")
        return
    }
    _ = shell("cat \(shellQuoted(big)) > /dev/null")
    filterRows(file: shellQuoted(big), me: shellQuoted(binary), directory: directory)
}

/// A filter with many matches (3 % of the records) and one with none, beside grep; with
/// the filter's peak memory, which must not grow with the file.
@MainActor func filterRows(file: String, me: String, directory: String) {
    for (pattern, label) in [("line two 3", "many matches"), ("zzqqxx", "no match")] {
        let grep = best(3, "grep \(shellQuoted(pattern)) \(file) | cat > /dev/null")
        let filter = best(3, "\(me) --filter \(shellQuoted(pattern)) --output csv \(file) | cat > /dev/null")
        _ = shell("\(me) --filter \(shellQuoted(pattern)) --output csv \(file) | wc -l > '\(directory)/export-count'")
        let count = (try? String(contentsOfFile: "\(directory)/export-count", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        unlink("\(directory)/export-count")
        report("--filter '\(pattern)' --output csv (\(label))", s(filter.seconds),
               target: String(format: "grep %.2f s (≤ 1.5×: %.2f×); %@ lines; peak %.0f MiB", grep.seconds, filter.seconds / grep.seconds,
                              count, filter.mib),
               ok: filter.seconds <= 1.5 * grep.seconds)
    }
}

@MainActor func exportBenchmark(big: String, directory: String) throws {
    print("\n— export (--output, Ctrl-S), beside cat, grep and DuckDB in the same run; load average \(loadAverage()) —")
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("csvfreeze").path
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        print("no csvfreeze beside the benchmark: swift build -c release first")
        return
    }
    let peers = FileManager.default.currentDirectoryPath + "/.venv-peers/bin/python"
    let hasDuckDB = FileManager.default.isExecutableFile(atPath: peers)
        && shell("'\(peers)' -c 'import duckdb'").status == 0
    if !hasDuckDB { print("(no DuckDB: sh scripts/setup-peers.sh installs it in .venv-peers)") }
    let file = shellQuoted(big)
    let me = shellQuoted(binary)

    // 1. Nothing changed: the file's own bytes, beside cat.
    _ = shell("cat \(file) > /dev/null")
    let identical = shell("\(me) --output csv \(file) | cmp -s - \(file)").status == 0
    let cat = best(3, "cat \(file) | cat > /dev/null")
    let plain = best(3, "\(me) --output csv \(file) | cat > /dev/null")
    report("--output csv, nothing changed", s(plain.seconds),
           target: String(format: "cat|cat %.2f s (≤ 3×: %.2f×)", cat.seconds, plain.seconds / cat.seconds),
           ok: plain.seconds <= 3 * cat.seconds)
    report("  byte for byte the input", identical ? "yes" : "NO", ok: identical)
    let toFile = best(2, "\(me) --output csv \(file) > '\(directory)/export-copy.csv'")
    unlink("\(directory)/export-copy.csv")
    report("  into a file (copy_file_range)", s(toFile.seconds), target: String(format: "peak %.1f MiB", toFile.mib))

    // 2. A filter: many matches and none, beside grep.
    filterRows(file: file, me: me, directory: directory)

    // 3. A sort, beside DuckDB's order by on two threads.
    let sorted = best(1, "\(me) --sort col05 --output csv \(file) | cat > /dev/null")
    var sortTarget = String(format: "peak %.1f MiB (≤ 160)", sorted.mib)
    var sortOK = sorted.mib > 0 && sorted.mib <= 160
    if hasDuckDB {
        let duck = best(1, "'\(peers)' -c \"import duckdb; c = duckdb.connect(); c.execute('set threads=2'); "
                        + "c.execute(\\\"copy (select * from read_csv('\(big)') order by col05) to '/dev/null' (format csv)\\\")\"")
        sortTarget = String(format: "DuckDB %.2f s, %.0f MiB (≤ 1×: %.2f×); ", duck.seconds, duck.mib, sorted.seconds / duck.seconds) + sortTarget
        sortOK = sortOK && sorted.seconds <= duck.seconds
    }
    report("--sort col05 --output csv", s(sorted.seconds), target: sortTarget, ok: sortOK)

    // 4. JSON lines, beside DuckDB's JSON copy.
    let jsonl = best(1, "\(me) --output jsonl \(file) | cat > /dev/null")
    if hasDuckDB {
        let duck = best(1, "'\(peers)' -c \"import duckdb; c = duckdb.connect(); c.execute('set threads=2'); "
                        + "c.execute(\\\"copy (select * from read_csv('\(big)')) to '/dev/null' (format json)\\\")\"")
        report("--output jsonl", s(jsonl.seconds),
               target: String(format: "DuckDB json %.2f s (≤ 1×: %.2f×)", duck.seconds, jsonl.seconds / duck.seconds),
               ok: jsonl.seconds <= duck.seconds)
    } else {
        report("--output jsonl", s(jsonl.seconds))
    }

    // 5. Table output, the default off a terminal (`csvfreeze big.csv > out.txt`), beside
    // --output csv into a file, in turn, in the same run; then every format's peak memory,
    // of the big file and of one holding a cell of 100 MB.
    tableOutput(file: file, me: me, directory: directory)

    // 6. Ctrl-S of a filtered view of a 20 MB file: the pipeline as the viewer runs it,
    // beside --output of the same view.
    let small = directory + "/bench-20m.csv"
    if !FileManager.default.fileExists(atPath: small) {
        _ = system("head -c 20000000 \(file) | head -n -1 > '\(small)'")
    }
    let store = try CellStore.open(InputSpec(path: small))
    store.waitForIndex { false }
    let filter = try FilteredRecords.start(store: store, headerRows: 1, filters: [RecordFilter(pattern: "Zürich")])
    filter.wait()
    let view = TableView(source: store, headerRows: 1)
    view.show(rows: filter)
    let target = directory + "/bench-saved.csv"
    let (outcome, saveSeconds): (Exporter.Outcome, Double) = timed {
        let sink = try! ExportSink(replacing: target)
        var plan = ExportPlan(view: view)!
        plan.rowLimit = view.dataRowCount
        let outcome = Exporter.run(plan, to: sink) { start, hand in
            OutputWriter(format: .csv, lineEnding: start.dialect.lineEnding, headerRows: 1, byteOrderMark: start.hasByteOrderMark,
                         preamble: start.preamble, sink: hand)
        }
        _ = sink.commit()
        return outcome
    }
    let output = best(2, "\(me) --filter Zürich --output csv '\(small)' > '\(directory)/bench-output.csv'")
    let same = shell("cmp -s '\(target)' '\(directory)/bench-output.csv'").status == 0
    unlink(target)
    unlink("\(directory)/bench-output.csv")
    report("Ctrl-S of a filtered view (20 MB, \(outcome.rows) rows)", s(saveSeconds),
           target: String(format: "--output %.2f s (with opening); same bytes: %@", output.seconds, same ? "yes" : "NO"),
           ok: saveSeconds < 0.5 && same)
}

/// Table output beside `--output csv`, each into a file, best of two taken in turn; then
/// the peak memory of each format, of `file` and of a file holding one cell of 100 MB
/// (made under `directory` when missing).
@MainActor func tableOutput(file: String, me: String, directory: String) {
    let out = shellQuoted(directory + "/export-out")
    defer { unlink(directory + "/export-out") }
    var csv = (seconds: Double.infinity, mib: 0.0), table = (seconds: Double.infinity, mib: 0.0)
    for _ in 0..<2 {
        let a = shell("\(me) --output csv \(file) > \(out)"), b = shell("\(me) \(file) > \(out)")
        if a.seconds < csv.seconds { csv = (a.seconds, a.mib) }
        if b.seconds < table.seconds { table = (b.seconds, b.mib) }
    }
    report("table output (the default off a terminal), into a file", s(table.seconds),
           target: String(format: "--output csv %.2f s (≤ 3×: %.2f×); peak %.1f MiB", csv.seconds, table.seconds / csv.seconds, table.mib),
           ok: table.seconds <= 3 * csv.seconds && table.mib <= 64)
    let long = directory + "/bench-long-cell.csv"
    if !FileManager.default.fileExists(atPath: long) {
        // 2,000 short rows, one whose cell is 100 MB of text with commas, quotes and line
        // breaks, 2,000 more.
        _ = FileManager.default.createFile(atPath: long, contents: nil)
        if let handle = FileHandle(forWritingAtPath: long) {
            handle.write(Data("id,text,n\n".utf8))
            for index in 0..<2000 { handle.write(Data("\(index),short \(index),\(index)\n".utf8)) }
            handle.write(Data("2000,\"".utf8))
            let piece = Data(String(repeating: "abc, \"\"d\"\" é\n", count: 1 << 16).utf8)
            for _ in 0..<(100_000_000 / piece.count) { handle.write(piece) }
            handle.write(Data("\",7\n".utf8))
            for index in 2001..<4000 { handle.write(Data("\(index),short \(index),\(index)\n".utf8)) }
            try? handle.close()
        }
    }
    for format in ["table", "csv", "tsv", "json", "jsonl"] {
        let whole = best(1, "\(me) --output \(format) \(file) | cat > /dev/null")
        let cell = best(1, "\(me) --output \(format) \(shellQuoted(long)) | cat > /dev/null")
        report("--output \(format): peak memory", String(format: "%.1f MiB", whole.mib),
               target: String(format: "≤ 64 MiB; a 100 MB cell: %.1f MiB, %.2f s", cell.mib, cell.seconds),
               ok: whole.mib > 0 && whole.mib <= 64 && cell.mib > 0 && cell.mib <= 64)
    }
}
