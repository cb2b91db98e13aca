#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import SQL
import TestSupport
import Viewer

// A SQLite table of 10 million rows (id, name, amount, city, n), made once under DIR:
// the first screen and `G` through the real binary on a pseudo-terminal (the status line's
// `row 1/`, then `row 10,000,000/`), beside `sqlite3 … "select count(*)"` (or Python's
// sqlite3 module when the command is missing), and the peak memory of a child that opens
// the table, counts it, goes to its end and pages up.

/// The table's rows.
let databaseRows = 10_000_000

/// Makes `path` (10 million rows) unless it is there.
func makeBenchDatabase(_ path: String) {
    if FileManager.default.fileExists(atPath: path) { return }
    print("generating \(path) …")
    let building = path + ".building"
    do {
        try DatabaseFixture.make(at: building, """
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, amount REAL, city TEXT, n INTEGER);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(databaseRows))
            INSERT INTO t SELECT x, 'name' || x, x * 0.25,
                CASE x % 4 WHEN 0 THEN 'Lyon' WHEN 1 THEN 'Oslo' WHEN 2 THEN 'Rome' ELSE 'Kyiv' END, x % 1000 FROM c
            """)
        rename(building, path)
    } catch {
        print("cannot make \(path): \(error)")
        exit(1)
    }
}

/// The child: opens the table as the viewer does, draws, waits for the count, goes to the
/// end, pages up 200 times; prints its peak memory and row count.
func databaseChild(_ path: String) -> Never {
    do {
        let rows = try DatabaseRows(path: path, table: "t")
        let viewer = Viewer(source: rows, screenSize: Size(width: 200, height: 60))
        _ = viewer.frame()
        rows.waitUntilCounted()
        viewer.handle(.refresh)
        viewer.handle(.lastRow)
        _ = viewer.frame()
        for _ in 0..<200 { viewer.handle(.pageUp); _ = viewer.frame() }
        print(String(format: "%.1f %d", peakMemoryMiB(), rows.rowCount - 1))
        exit(0)
    } catch {
        print("-1 -1")
        exit(1)
    }
}

/// One figure, as `report` prints it (this section runs before the others' inputs exist);
/// false when over its target.
@discardableResult
func line(_ figure: String, _ value: String, target: String = "", ok: Bool? = nil) -> Bool {
    func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
    print(padded(figure, 46) + padded(value, 16) + padded(target, 28) + (ok.map { $0 ? "ok" : "OVER" } ?? ""))
    return ok ?? true
}

/// The figures: first screen and `G` (median of `runs`), the count beside sqlite3's, memory;
/// true when every one is within its target.
func databaseBenchmark(directory: String, binary: String, runs: Int = 9) -> Bool {
    var allOK = true
    let path = directory + "/bench-10m.db"
    makeBenchDatabase(path)
    let size = ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0) ?? 0
    print(String(format: "database: %@ (%.0f MiB, %d rows)", path, Double(size) / Double(1 << 20), databaseRows))
    let environment = startEnvironment()
    // The same first screen of a small CSV file, in the same run: what the start costs
    // whatever the input (the machine's load shows in both alike).
    let small = directory + "/bench-small.csv"
    try? Data("id,name,amount,city,n\n1,name1,0.25,Oslo,1\n2,name2,0.5,Rome,2\n".utf8).write(to: URL(fileURLWithPath: small))
    var firsts: [Double] = [], ends: [Double] = [], smalls: [Double] = [], cpus: [Double] = [], smallCPUs: [Double] = []
    // The last row's number in the row header: drawn whole when G shows it (the status
    // line is redrawn in part, a long name is cut to its column).
    let last = Array("\(databaseRows)".utf8)
    for _ in 0..<runs {
        let outcome = startOnTerminal([binary, path], environment: environment,
                                      isFirstScreen: { $0.contains(subsequence: Array("row 1/".utf8)) },
                                      then: (Array("G".utf8), { $0.contains(subsequence: last) }))
        if let first = outcome.firstScreen { firsts.append(first) }
        if let cpu = outcome.mainThreadCPU { cpus.append(cpu) }
        if let end = outcome.afterKeys { ends.append(end) }
        let plain = startOnTerminal([binary, small], environment: environment,
                                    isFirstScreen: { $0.contains(subsequence: Array("row 1/".utf8)) })
        if let first = plain.firstScreen { smalls.append(first) }
        if let cpu = plain.mainThreadCPU { smallCPUs.append(cpu) }
    }
    if let small = median(smalls), let cpu = median(smallCPUs) {
        line("  first screen of a 2-row CSV, same run", ms(small) + " (main thread CPU " + ms(cpu) + ")")
    }
    if let cpu = median(cpus) { line("  main thread CPU to the database's first screen", ms(cpu)) }
    if let first = median(firsts) { allOK = line("database: first screen (10M rows)", ms(first), target: "< 50 ms", ok: first < 0.05) && allOK }
    if let end = median(ends) { allOK = line("database: G to the last row", ms(end), target: "< 50 ms", ok: end < 0.05) && allOK }
    if firsts.count < runs || ends.count < runs {
        allOK = line("database: runs without a screen", "\(runs - min(firsts.count, ends.count)) of \(runs)", ok: false) && allOK
    }
    // The exact count, as the background walk does it, beside SQLite's own command.
    let (counted, countTime) = timed { () -> Int in
        guard let rows = try? DatabaseRows(path: path, table: "t") else { return -1 }
        rows.waitUntilCounted()
        return rows.rowCount - 1
    }
    line("database: exact count in the background", s(countTime) + " (\(counted))")
    let peer: [String] = access("/usr/bin/sqlite3", X_OK) == 0
        ? ["sqlite3", "file:\(path)?mode=ro&immutable=1", "select count(*) from t"]
        : ["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from t').fetchone()[0])", path]
    if let run = runToEnd(peer, environment: environment) {
        line("  \(peer[0]): select count(*)", s(run.wall))
    }
    let memory = child("\(CommandLine.arguments[0]) --child-database \(path)")
    allOK = line("database: peak memory (count, G, 200 pages)", String(format: "%.1f MiB", memory.mib), target: "< 64 MiB",
                 ok: memory.mib < 64) && allOK
    return allOK
}
