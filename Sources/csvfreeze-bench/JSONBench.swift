// The figures of JSON lines (issue 35, item 7), in one run: a JSON lines file of about the
// big file's size made from it (20 keys, numbers bare), its first screen, its full index
// beside `wc -l` of the same file, the viewer's peak memory, and `--frequency` of one key
// beside DuckDB's read_json count (a Python venv made by scripts/setup-peers.sh).
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Foundation
import FreezeLayout
import Viewer

/// Writes `target` from the CSV `source`: one JSON object a record, keyed by the header,
/// the id bare (the other columns mix kinds from record to record), until `size` bytes.
@MainActor func makeJSONLines(from source: String, to target: String, size: Int64) {
    if FileManager.default.fileExists(atPath: target) { return }
    print("making \(target) …")
    let part = target + ".part"
    let descriptor = open(part, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { return }
    var written: Int64 = 0
    var writer: OutputWriter?
    var records = 0
    _ = try? RecordStream.forEach(InputSpec(path: source), started: { _ in
        writer = OutputWriter(format: .jsonl, sink: { bytes in
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            written += Int64(max(0, count))
            return count == bytes.count && written < size
        })
    }) { row in
        records += 1
        if records == 2 { writer?.cellTypes = [.number] + Array(repeating: .text, count: max(0, row.count - 1)) }
        return writer?.write(row) ?? false
    }
    if written < size { writer?.finish() }
    close(descriptor)
    rename(part, target)
}

@MainActor func jsonBenchmark(big: String, directory: String, binary: String, me: String) throws {
    let path = directory + "/bench-1g.jsonl"
    makeJSONLines(from: big, to: path, size: targetSize)
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
    print(String(format: "\nJSON lines: %@ (%.0f MiB)", path, Double(size) / Double(1 << 20)))
    _ = shellTime("cat '\(path)' > /dev/null")

    // The first screen: the store opened and a frame with a screenful of rows drawn.
    var firstScreen = Double.infinity
    for _ in 0..<5 {
        let (_, time) = try timed {
            let store = try CellStore.open(InputSpec(path: path))
            store.waitForIndex { store.readRowCount > 60 || store.isComplete }
            let viewer = Viewer(store: store, screenSize: Size(width: 200, height: 60))
            _ = viewer.frame()
        }
        firstScreen = min(firstScreen, time)
    }
    report("JSON lines: first screen", ms(firstScreen), target: "< 50 ms", ok: firstScreen < 0.05)

    // The whole index, beside wc -l reading the same file.
    let wc = (0..<3).map { _ in shellTime("wc -l '\(path)'") }.min() ?? 0
    var rows = 0
    let (_, index) = try timed {
        let store = try CellStore.open(InputSpec(path: path))
        store.waitForIndex { store.isComplete }
        rows = store.rowCount
    }
    report("JSON lines: full index (\(rows) rows)", s(index), target: String(format: "<= 1.5 x wc -l (%.2f s)", wc),
           ok: index <= wc * 1.5)
    report("JSON lines: index speed", String(format: "%.0f MB/s", Double(size) / index / 1e6))

    let (mib, childRows) = child("'\(me)' --child '\(path)'")
    report("JSON lines: peak memory (index, G, PgUp)", String(format: "%.1f MiB", mib), target: "< 64 MiB", ok: mib < 64 && childRows == rows)

    // --frequency of one key beside DuckDB's read_json.
    let ours = bestOf(1, [[binary, "--frequency", "col07", "--output", "csv", path]])[0]
    report("JSON lines: --frequency col07", s(ours.seconds), target: String(format: "(%.0f MiB peak)", ours.mib))
    let python = FileManager.default.currentDirectoryPath + "/.venv-peers/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python), measure([python, "-c", "import duckdb"]).status == 0 else {
        print("  DuckDB: skipped (run scripts/setup-peers.sh to make .venv-peers with it)")
        return
    }
    let query = "select count(distinct col07), count(*) from read_json('\(path)', format='newline_delimited')"
    let duck = measure([python, "-c", "import duckdb; c = duckdb.connect(); c.execute('set threads=2'); "
                        + "print(*c.execute(\"\(query)\").fetchone())"])
    report("  DuckDB read_json count of col07", s(duck.seconds), target: String(format: "<= 2x: %@", ours.seconds <= duck.seconds * 2 ? "ok" : "over"),
           ok: ours.seconds <= duck.seconds * 2)
    let values = ours.output.split(separator: "\n").count - 1
    print("  answers: csvfreeze \(values) values; DuckDB (distinct, rows): \(duck.output.trimmingCharacters(in: .whitespacesAndNewlines))")
}
