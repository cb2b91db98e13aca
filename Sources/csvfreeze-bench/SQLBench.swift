// The figures of --sql, measured end to end with the csvfreeze binary beside DuckDB (a
// Python venv made by scripts/setup-peers.sh, `SET threads=2`) and grep, in the same run:
// wall time, CPU time and peak memory of each child process, and their answers compared.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation

/// A child's wall seconds, CPU seconds (user and system), peak resident MiB and output.
struct Measured {
    var seconds: Double
    var cpu: Double
    var mib: Double
    var output: String
    var status: Int32
}

/// Runs `arguments` with stdout into a temporary file; waits with `wait4` for its usage.
func measure(_ arguments: [String]) -> Measured {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("csvfreeze-bench-\(UUID().uuidString)").path
    defer { unlink(out) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let start = now()
    var pid: pid_t = 0
    guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return Measured(seconds: -1, cpu: -1, mib: -1, output: "", status: -1) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let seconds = now() - start
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    return Measured(seconds: seconds, cpu: cpu, mib: Double(usage.ru_maxrss) / 1024, output: output, status: (status >> 8) & 0xFF)
}

/// The best (shortest) of `rounds` runs of each command, taken in turn.
func bestOf(_ rounds: Int, _ commands: [[String]]) -> [Measured] {
    var best: [Measured?] = Array(repeating: nil, count: commands.count)
    for _ in 0..<rounds {
        for (index, command) in commands.enumerated() {
            let run = measure(command)
            if best[index] == nil || run.seconds < best[index]!.seconds { best[index] = run }
        }
    }
    return best.map { $0! }
}

/// A sales-like file: id, date, country, city, product, price (2 % empty), quantity,
/// customer (quoted, with a comma), note (often empty; quoted with commas, doubled quotes
/// or a line break). Kenya's cities include Nairobi.
func salesRow(_ index: Int, _ generator: inout SeededGenerator) -> String {
    let places = [("Kenya", ["Nairobi", "Mombasa", "Kisumu"]), ("France", ["Paris", "Lyon", "Lille"]), ("Japan", ["Tokyo", "Osaka"]),
                  ("Brazil", ["São Paulo", "Rio de Janeiro"]), ("Germany", ["Berlin", "Hamburg", "München"]),
                  ("India", ["Mumbai", "Delhi", "Bengaluru"]), ("Peru", ["Lima", "Cusco"]), ("Norway", ["Oslo", "Bergen"]),
                  ("China", ["北京", "上海"]), ("Canada", ["Toronto", "Montréal"]), ("Egypt", ["Cairo"]), ("Chile", ["Santiago"])]
    let products = ["tea", "coffee", "rice", "bread", "milk", "cheese", "apples", "\"paper, A4\"", "pens", "\"ink \"\"blue\"\"\""]
    let notes = ["", "", "ok", "\"late, again\"", "\"said \"\"fine\"\"\"", "\"line one\nline two\""]
    let (country, cities) = places[Int(generator.next() % UInt64(places.count))]
    let city = cities[Int(generator.next() % UInt64(cities.count))]
    let product = products[Int(generator.next() % UInt64(products.count))]
    let price = generator.next() % 50 == 0 ? "" : String(format: "%.2f", Double(generator.next() % 50_000) / 100)
    let month = 1 + generator.next() % 12, day = 1 + generator.next() % 28
    let date = "2024-" + (month < 10 ? "0" : "") + "\(month)-" + (day < 10 ? "0" : "") + "\(day)"
    let note = notes[Int(generator.next() % UInt64(notes.count))]
    return "\(index),\(date),\(country),\(city),\(product),\(price),\(1 + generator.next() % 20),\"Doe, J\(index % 97)\",\(note)\n"
}

/// Rows of a CSV answer after its header, sorted by their first cell.
func answerRows(_ text: String) -> [[String]] {
    let rows = (try? RecordParser.records(in: Array(text.utf8), dialect: Dialect())) ?? []
    return rows.dropFirst().map(\.strings).sorted { ($0.first ?? "") < ($1.first ?? "") }
}

/// True when two answers have the same rows: equal text, or numbers within 1e-9.
func sameAnswers(_ a: [[String]], _ b: [[String]]) -> Bool {
    guard a.count == b.count, !a.isEmpty else { return false }
    for (x, y) in zip(a, b) {
        guard x.count == y.count else { return false }
        for (p, q) in zip(x, y) where p != q {
            guard let u = Double(p), let v = Double(q), abs(u - v) <= 1e-9 * max(1, abs(u)) else { return false }
        }
    }
    return true
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}

/// The csvfreeze built beside the benchmark, or nil after reporting `figures` as skipped.
@MainActor func builtCSVFreeze(for figures: String) -> String? {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("csvfreeze").path
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        report(figures, "skipped", target: "build csvfreeze first: swift build -c release")
        return nil
    }
    return binary
}

/// The peers' Python, and whether it can import DuckDB (its version printed, or why not).
func duckDBPython() -> (python: String, hasDuckDB: Bool) {
    let python = FileManager.default.currentDirectoryPath + "/.venv-peers/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python), measure([python, "-c", "import duckdb"]).status == 0 else {
        print("  DuckDB: skipped (run scripts/setup-peers.sh to make .venv-peers with it)")
        return (python, false)
    }
    print("  DuckDB " + measure([python, "-c", "import duckdb; print(duckdb.__version__)"]).output.trimmingCharacters(in: .whitespacesAndNewlines))
    return (python, true)
}

/// Reads `paths` once, so every program measured reads them from memory alike, and
/// prints the load average the figures are taken under.
func warmPageCache(_ paths: [String]) {
    _ = measure(["/bin/sh", "-c", "cat " + paths.map { "'\($0)'" }.joined(separator: " ") + " > /dev/null"])
    print("  load average before: \(loadAverage())")
}

/// The start of each DuckDB script: a connection on two threads, as the figures compare.
let duckConnection = """
con = duckdb.connect()
con.execute("SET threads=2")
con.execute("SET enable_progress_bar=false")
"""

@MainActor func sqlBenchmark(big: String, directory: String) {
    print("")
    print("--sql, end to end in child processes beside DuckDB (SET threads=2) and grep; best of 2, taken in turn")
    guard let binary = builtCSVFreeze(for: "--sql figures") else { return }
    let (python, hasDuckDB) = duckDBPython()
    let sales = directory + "/bench-1g-sales.csv"
    generate(sales, size: targetSize, header: "id,date,country,city,product,price,quantity,customer,note\n", row: salesRow)
    warmPageCache([big, sales])
    let duckScript = """
    import csv, duckdb, sys
    \(duckConnection)
    out = csv.writer(sys.stdout, lineterminator="\\n")
    out.writerow(["header"])
    for row in con.execute(sys.argv[1]).fetchall(): out.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in row])
    """
    func duck(_ query: String, _ path: String) -> [String] {
        [python, "-c", duckScript, query.replacingOccurrences(of: " from t", with: " from read_csv('\(path)')")]
    }
    func mine(_ query: String, _ path: String) -> [String] { [binary, "--sql", query, "--output", "csv", path] }

    // The group-by, on the bench's own 1 GiB file (col02: 20 values, a column like a
    // country's; col05: decimals, like a price) and on the sales file.
    let groupQueries = [("group by col02, avg(col05) (bench file)", big,
                         "select col02, count(*), avg(col05) from t group by col02"),
                        ("group by country, avg(price) (sales file)", sales,
                         "select country, count(*), avg(price) from t group by country")]
    for (label, path, query) in groupQueries {
        let runs = bestOf(2, hasDuckDB ? [mine(query, path), duck(query, path)] : [mine(query, path)])
        let ours = runs[0]
        let agree = hasDuckDB ? sameAnswers(answerRows(ours.output), answerRows(runs[1].output)) : nil
        report(label, s(ours.seconds), target: hasDuckDB ? String(format: "DuckDB %.2f s (%.2f×)", runs[1].seconds, ours.seconds / runs[1].seconds) : "",
               ok: hasDuckDB ? ours.seconds <= runs[1].seconds && agree == true : nil)
        report("  CPU / peak memory", String(format: "%.2f s / %.1f MiB", ours.cpu, ours.mib),
               target: hasDuckDB ? String(format: "DuckDB %.2f s / %.0f MiB", runs[1].cpu, runs[1].mib) : "≤ 64 MiB",
               ok: ours.mib <= 64)
        if let agree { report("  same answer as DuckDB", agree ? "yes" : "NO", ok: agree) }
    }

    // An equality the raw-byte scan can answer, beside grep counting the lines.
    let count = "select count(*) from t where city = 'Nairobi'"
    let runs = bestOf(2, [mine(count, sales), ["/bin/grep", "-c", "Nairobi", sales]] + (hasDuckDB ? [duck(count, sales)] : []))
    report("count(*) where city = 'Nairobi' (sales)", s(runs[0].seconds),
           target: String(format: "grep -c %.2f s (%.2f×)", runs[1].seconds, runs[0].seconds / runs[1].seconds),
           ok: runs[0].seconds <= 2 * runs[1].seconds)
    report("  CPU / peak memory", String(format: "%.2f s / %.1f MiB", runs[0].cpu, runs[0].mib),
           target: hasDuckDB ? String(format: "DuckDB %.2f s, %.2f s CPU, %.0f MiB", runs[2].seconds, runs[2].cpu, runs[2].mib) : "")
    let counted = answerRows(runs[0].output).first?.first ?? "?"
    report("  rows counted", counted, target: hasDuckDB ? "DuckDB " + (answerRows(runs[2].output).first?.first ?? "?") : "",
           ok: hasDuckDB ? counted == answerRows(runs[2].output).first?.first : nil)
    print("  load average after: \(loadAverage())")
}
