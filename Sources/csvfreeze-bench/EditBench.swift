// The save of edits: ten cells edited through a 1 GiB file, saved over a copy of it,
// beside `cp` of the same file in the same run (and `cp` then `sync` of the copy, as the
// save flushes its file to disk before the rename).
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Export
import Foundation
import Scan
import FreezeLayout
import Table
import Viewer

/// The child that saves: opens `path` (a copy of the bench file), waits for the index,
/// edits ten cells spread through it, saves over it as Ctrl-S does, and prints the save's
/// seconds, the peak memory of the whole process and the edits saved.
@MainActor func editChild(_ path: String) -> Never {
    guard let store = try? CellStore.open(InputSpec(path: path)) else { exit(1) }
    while !store.isComplete { usleep(2000) }
    let edits = EditedRows(store: store)
    let count = store.rowCount
    for index in 0..<10 {
        let record = 1 + (count - 2) * index / 9
        guard let step = try? edits.settingCell(record: record, column: 1, to: Array("edited \(index), \"quoted\"".utf8))
        else { exit(2) }
        edits.apply(step)
    }
    let start = now()
    guard let patch = try? edits.makePatch(keepingDeleted: false), let sink = try? ExportSink(replacing: path) else { exit(3) }
    let (source, end, file) = store.inputHandle.bytes
    if EditedCopy.write(patch, source: source, end: end, file: file, to: sink, compression: nil, control: ScanControl()) != nil {
        exit(4)
    }
    guard sink.commit(durably: true) else { exit(5) }
    print(String(format: "%.3f %.1f %d", now() - start, peakMemoryMiB(), edits.journal.count))
    exit(0)
}

@MainActor func editBenchmark(big: String, directory: String) {
    print("\n— save of edits (ten cells through the file) —")
    let copy = FileManager.default.temporaryDirectory.path + "/edit-bench-copy-\(getpid()).csv"
    let me = CommandLine.arguments[0]
    defer { unlink(copy) }
    let cp = best(2, "cp \(shellQuoted(big)) \(shellQuoted(copy))")
    report("cp of the file", s(cp.seconds))
    let synced = best(2, "cp \(shellQuoted(big)) \(shellQuoted(copy)) && sync \(shellQuoted(copy))")
    report("cp, then sync of the copy", s(synced.seconds))
    var saves: [Double] = [], memory = 0.0
    for _ in 0..<2 {
        _ = shell("cp \(shellQuoted(big)) \(shellQuoted(copy))")
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: me)
        process.arguments = ["--child-edit", copy]
        process.standardOutput = pipe
        try? process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let figures = (output.split(separator: "\n").last ?? "").split(separator: " ").compactMap { Double($0) }
        guard figures.count == 3, figures[2] == 10 else {
            print("the save child failed (status \(process.terminationStatus))")
            return
        }
        saves.append(figures[0])
        memory = max(memory, figures[1])
    }
    let save = saves.min() ?? .infinity
    report("save of 10 edits (fsync, rename)", s(save), target: "≤ 2× cp then sync", ok: save <= 2 * synced.seconds)
    report("  peak memory of that process", String(format: "%.0f MiB", memory), target: "< 64 MiB", ok: memory < 64)
    editJournalBenchmark()
    undoBenchmark(big: big)
}

/// One edit more on a table with 100,000 edits (a cell changed, a record added, the cell
/// of an added record, an undo): the journal and the bytes every pass reads are brought up
/// to date by what changed, not made again. `--edit-journal` alone runs it.
@MainActor func editJournalBenchmark(reports: Bool = true) {
    print("\n— one edit more on 100,000 edits —")
    let path = FileManager.default.temporaryDirectory.path + "/edit-journal-bench-\(getpid()).csv"
    defer { unlink(path) }
    var text = "id,v\n"
    let records = 200_000
    for index in 0..<records { text += "\(index),\"v\(index)\"\n" }
    FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    guard let store = try? CellStore.open(InputSpec(path: path)) else { return }
    while !store.isComplete { usleep(1000) }
    let edits = EditedRows(store: store)
    var steps: [EditStep] = []
    for index in stride(from: 1, through: records, by: 2) {
        if let step = try? edits.settingCell(record: index, column: 1, to: Array("e,\(index)".utf8)) { steps.append(step) }
    }
    edits.apply(steps)
    var times: [Double] = [], applying: [Double] = []
    for round in 0..<20 {
        let record = 2 + round * 9_998
        let start = now()
        var spent = 0.0
        func timed(_ step: EditStep, backwards: Bool = false) {
            let begun = now()
            edits.apply(step, backwards: backwards)
            spent += now() - begun
        }
        guard let step = try? edits.settingCell(record: record, column: 1, to: Array("x\(round)".utf8)) else { return }
        timed(step)
        let added = try? edits.addingRecord(near: record, after: true, columns: 2, headerRows: 1)
        if let added { timed(added) }
        if let cell = try? edits.settingCell(record: record + 1, column: 0, to: Array("new".utf8)) { timed(cell) }
        if let added { timed(added, backwards: true) }
        times.append((now() - start) / 4)
        applying.append(spent / 4)
    }
    print(String(format: "  of which applying to the journal and the patch: %.3f ms", applying.sorted()[applying.count / 2] * 1000))
    // What each edit cost before: the patch made whole from the journal.
    var wholes: [Double] = []
    for _ in 0..<5 {
        let start = now()
        _ = edits.patch(keepingDeleted: true)
        wholes.append(now() - start)
    }
    let median = times.sorted()[times.count / 2], whole = wholes.sorted()[wholes.count / 2]
    let figure = String(format: "%.3f ms", median * 1000), wholeFigure = String(format: "%.1f ms", whole * 1000)
    if reports {
        report("one edit more (median of 80)", figure, target: "< 1 ms", ok: median < 0.001)
        report("  the patch made whole (as before)", wholeFigure)
    } else {
        print("one edit more (median of 80): \(figure); the patch made whole (as every edit did before): \(wholeFigure)")
    }
    print("  patch splices: \(store.patch.splices.count), edits: \(edits.journal.count)")
}

/// The child that undoes: opens `path` (the bench file), sorts it by a column and then
/// filters it, each made whole, and undoes each with `U`; prints the milliseconds of the
/// slower undo (the key and the frame after it) and 1 when the file's rows are shown again,
/// all of them, with nothing being made.
@MainActor func undoChild(_ path: String) -> Never {
    guard let store = try? CellStore.open(InputSpec(path: path)) else { exit(1) }
    while !store.isComplete { usleep(2000) }
    let viewer = Viewer(store: store, screenSize: Size(width: 200, height: 60))
    _ = viewer.frame()
    func made() {
        repeat {
            usleep(2000)
            viewer.handle(.refresh)
            _ = viewer.frame()
        } while viewer.isViewBeingMade
    }
    for _ in 0..<5 { viewer.handle(.moveRight) }
    viewer.handle(.sort(descending: false, adding: false))
    made()
    viewer.handle(.filter("7", columnOnly: true))
    made()
    var slowest = 0.0
    for _ in 0..<2 {
        let start = now()
        viewer.handle(.undo)
        _ = viewer.frame()
        slowest = max(slowest, now() - start)
    }
    // Both undone: the file's own rows, all of them, and nothing being made again.
    let whole = viewer.dataRowCount == store.rowCount - 1 && !viewer.isViewBeingMade
    print(String(format: "%.3f %d", slowest * 1000, whole ? 1 : 0))
    exit(whole ? 0 : 2)
}

/// Undo of a sort and of a filter of the whole 1 GiB file: the view before each is kept,
/// so `U` shows it at once, not made again.
@MainActor func undoBenchmark(big: String) {
    let pipe = Pipe()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--child-undo", big]
    process.standardOutput = pipe
    try? process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let figures = (output.split(separator: "\n").last ?? "").split(separator: " ")
    guard figures.count == 2, let milliseconds = Double(figures[0]), figures[1] == "1" else {
        print("the undo child failed (status \(process.terminationStatus))")
        return
    }
    report("undo of a filter, then of a sort, of the file", String(format: "%.2f ms", milliseconds), target: "< 20 ms",
           ok: milliseconds < 20)
}
