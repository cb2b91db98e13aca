// The figures of the distribution band, histograms and quantiles: the band's pass beside
// the index in one run, its memory per column, the viewer's peak with the band on, the cost
// of drawing it, --histogram beside --frequency, the summary beside libcsv.
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Foundation
import FreezeLayout
import Insight
import Scan
import Viewer

/// The child that views with the band on: `--child-band PATH` opens the file as the viewer
/// does, with the band from the start, waits for every picture, goes to the end and pages
/// back, and prints its peak MiB and the rows.
@MainActor func bandChild(_ path: String) -> Never {
    guard let store = try? CellStore.open(InputSpec(path: path)) else { exit(1) }
    var options = ViewerOptions()
    options.showsBand = true
    let viewer = Viewer(store: store, options: options, screenSize: Size(width: 200, height: 60))
    // Until every picture is exact: the corner says `shape`, not `≈shape` (text columns'
    // estimated distinct counts keep their `≈` after it).
    while true {
        viewer.handle(.refresh)
        let band = viewer.frame().lines[1]
        if store.isComplete && bandIsExact(band) { break }
        usleep(2000)
    }
    viewer.handle(.lastRow)
    _ = viewer.frame()
    for _ in 0..<200 { viewer.handle(.pageUp); _ = viewer.frame() }
    print(String(format: "%.1f %d", peakMemoryMiB(), store.rowCount))
    exit(0)
}

/// True when a frame's band line says every picture is exact: its corner reads `shape`.
func bandIsExact(_ line: String) -> Bool {
    line.split(separator: "│", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } == "shape"
}

/// For profiling: `--child-picture PATH [draw]` indexes the file, then times the band's
/// pass alone (or, with `draw`, 20,000 frames of the band) and prints the seconds.
@MainActor func pictureChild(_ words: [String]) -> Never {
    if words.count > 1 && words[1] == "rounds" {
        // The band from the start, as the viewer runs it: when each round's pictures come.
        guard let path = words.first, let store = try? CellStore.open(InputSpec(path: path)) else { exit(1) }
        let start = now()
        let scan = PictureScan(readers: store.recordReaders, headerRows: 1)
        var last = -1
        while !scan.hasEnded {
            if let snapshot = scan.snapshot, snapshot.records != last {
                last = snapshot.records
                print(String(format: "%.2f s: %d records pictured, index %@", now() - start, last, store.isComplete ? "complete" : "loading"))
            }
            usleep(5000)
        }
        print(String(format: "%.2f s: all %d pictured", now() - start, scan.snapshot?.records ?? 0))
        exit(0)
    }
    guard let path = words.first, let store = try? CellStore.open(InputSpec(path: path), startsLoader: false) else { exit(1) }
    store.indexNow()
    if words.count > 1 && words[1] == "floor" {
        // What the pass cannot go below: every cell read and handed on, nothing counted.
        for workers in [1, 2] {
            for byColumn in [false, true] {
                let (bytes, time) = timed {
                    PictureFloor.visitEveryCell(readers: store.recordReaders, headerRows: 1, columns: store.columnCount,
                                                workers: workers, byColumn: byColumn)
                }
                print(String(format: "floor, %d thread(s)%@: %.3f s (%d bytes of cells)", workers, byColumn ? ", by column" : "",
                             time, bytes ?? -1))
            }
        }
        exit(0)
    }
    if words.count > 1 {
        var options = ViewerOptions()
        options.showsBand = true
        let viewer = Viewer(store: store, options: options, screenSize: Size(width: 200, height: 60))
        while viewer.needsRefresh || !bandIsExact(viewer.frame().lines[1]) { viewer.handle(.refresh); usleep(1000) }
        let (_, time) = timed { for _ in 0..<20_000 { viewer.handle(.moveRight); viewer.handle(.moveLeft); _ = viewer.frame() } }
        print(String(format: "%.3f ms a frame", time / 20_000 * 1000))
        exit(0)
    }
    let (_, time) = timed { PictureScan(readers: store.recordReaders, headerRows: 1).wait() }
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    print(String(format: "%.3f s, CPU %.2f s", time, cpu))
    exit(0)
}

@MainActor func pictureBenchmark(big: String, libcsvTime: Double) throws {
    print("")
    print("pictures (band, histograms, quantiles)")
    // The index alone, then the index with the band's pass from the start, in one run.
    let alone = try CellStore.open(InputSpec(path: big))
    let (_, indexAlone) = timed { while !alone.isComplete { usleep(500) } }
    let store = try CellStore.open(InputSpec(path: big))
    let start = now()
    let scan = PictureScan(readers: store.recordReaders, headerRows: 1)
    while !store.isComplete { usleep(500) }
    let indexTime = now() - start
    scan.wait()
    let bandTime = now() - start
    let pictures = scan.snapshot?.pictures ?? []
    report("index alone (loader, as the viewer runs it)", s(indexAlone))
    report("  with the band's pass beside it", s(indexTime))
    report("every column pictured (band on from the start)", s(bandTime),
           target: String(format: "%.2f× the index (≤ 1.3)", bandTime / max(indexTime, 1e-9)),
           ok: bandTime <= indexTime * 1.3)
    let most = pictures.map(\.memoryCost).max() ?? 0
    report("  memory per column, at most", String(format: "%.1f KiB", Double(most) / 1024), target: "≤ 64 KiB",
           ok: most > 0 && most <= 64 << 10)
    report("  columns, records pictured", "\(pictures.count), \(scan.snapshot?.records ?? 0)",
           target: "exact: \(scan.snapshot?.isComplete == true)")

    // Drawing the band: frames of scroll steps with and without it, the same rows.
    var options = ViewerOptions()
    options.showsBand = true
    let banded = Viewer(store: store, options: options, screenSize: Size(width: 200, height: 60))
    while banded.needsRefresh { banded.handle(.refresh) }
    let plain = Viewer(store: store, screenSize: Size(width: 200, height: 60))
    // The frames' own CPU time (this thread's), rounds taken in turn, the median of their
    // differences: on cores shared with others, wall time measures the neighbours.
    var withBand: [Double] = [], without: [Double] = []
    for _ in 0..<11 {
        withBand.append(frameCPUCost(of: banded, at: 1000, steps: 600))
        without.append(frameCPUCost(of: plain, at: 1000, steps: 600))
    }
    let differences = zip(withBand, without).map { max(0, $0 - $1) }.sorted()
    let drawing = differences[differences.count / 2]
    report("drawing the band, per frame (200×60)", String(format: "%.3f ms", drawing * 1000),
           target: "≤ 0.1 ms (frame \(ms(withBand.sorted()[withBand.count / 2])) with it)", ok: drawing <= 0.0001)

    let me = CommandLine.arguments[0]
    let memory = child("'\(me)' --child-band '\(big)'")
    report("peak memory, viewer with the band (index, all pictures, G, 200 pages up)", String(format: "%.1f MiB", memory.mib),
           target: "≤ 96 MiB", ok: memory.mib > 0 && memory.mib <= 96)

    // --histogram beside --frequency on the same column (col05: decimals, ~5 million distinct).
    let frequency = insightRun("frequency", column: 5, big: big)
    let histogram = insightRun("histogram", column: 5, big: big)
    report("--frequency col05 (decimals)", s(frequency.seconds), target: String(format: "CPU %.2f s, %.1f MiB", frequency.cpu, frequency.mib))
    report("--histogram col05", s(histogram.seconds),
           target: String(format: "%.2f× --frequency (≤ 1.0); %.1f MiB", histogram.seconds / max(frequency.seconds, 1e-9), histogram.mib),
           ok: histogram.seconds > 0 && histogram.seconds <= frequency.seconds)
    let summary = insightRun("summary", column: 0, big: big)
    report("--summary with quantiles (20 columns)", s(summary.seconds),
           target: String(format: "%.2f× libcsv %@ (≤ 1.5)", summary.seconds / libcsvTime, s(libcsvTime)),
           ok: summary.seconds > 0 && summary.seconds <= libcsvTime * 1.5)
    report("  peak memory", String(format: "%.1f MiB", summary.mib), target: String(format: "≤ 96 MiB; CPU %.2f s", summary.cpu),
           ok: summary.mib > 0 && summary.mib <= 96)
}

/// As `frameCost`, in the CPU time of the thread that composes the frames.
@MainActor func frameCPUCost(of viewer: Viewer, at row: Int, steps: Int) -> Double {
    func threadTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    viewer.moveCursor(toRow: row, column: 0)
    for _ in 0..<60 { viewer.handle(.moveDown); _ = viewer.frame() }   // warm
    let start = threadTime()
    for _ in 0..<steps {
        viewer.handle(.moveDown)
        _ = viewer.frame()
    }
    return (threadTime() - start) / Double(steps)
}
