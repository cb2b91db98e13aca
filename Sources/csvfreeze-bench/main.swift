// csvfreeze-bench: the figures csvfreeze promises, measured on this machine in one run.
//
//   swift run -c release csvfreeze-bench [--dir DIR] [--size BYTES] [--fuzz SECONDS]
//                                        [--packed-only | --no-packed] [--formats gzip,zstd,xz,bzip2]
//                                        [--query-only] [--query-10g] [--views-only] [--insight-only] [--sql-only]
//                                        [--scan-only] [--diff-only] [--export-only] [--filter-only] [--picture-only]
//                                        [--start-only [--binary PATH]] [--database-only [--binary PATH]] [--json-only]
//                                        [--xlsx-only [--python PATH]] [--session-only [--session-10g] [--binary PATH]]
//
// It generates its inputs under DIR (default bench-data/) when they are missing: a file of
// about 1 GiB with 20 columns of quoted text with commas, doubled quotes, line breaks and
// UTF-8, and a narrow file of 12 million rows; compressed copies (gzip and zstd of the big
// file, xz and bzip2 of a 200 MB one) for the figures of compressed input, beside each
// format's own decompressor; for --sql, a 1 GiB sales-like file (15 million short rows); for
// --diff, a copy of the big file with 0.1 % of its records changed, removed or added.
// Memory is measured in child processes. The start (first screen of a file and of a pipe,
// --version) is measured beside less on a pseudo-terminal, with the csvfreeze built beside
// this program (or --binary PATH); --database-only makes a 10-million-row SQLite table and
// measures its first screen and G the same way, beside sqlite3's count. A 50 MB Excel
// workbook (made with openpyxl from .venv-peers, or --python PATH) is measured with
// --xlsx-only, beside openpyxl. --session-only measures a file reopened with its kept session
// (sorted, filtered, 10 marks; --session-10g the 10 GiB file too, made from the 1 GiB one).
#if canImport(Glibc)
import Glibc
#endif
import CellStore
import CLibCSV
import Foundation
import FreezeLayout
import Viewer

setlocale(LC_ALL, "C.UTF-8")

// MARK: Arguments

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let directory = option("--dir") ?? "bench-data"
let targetSize = Int64(option("--size") ?? "") ?? (1 << 30)
let fuzzSeconds = Double(option("--fuzz") ?? "") ?? 20

// MARK: Child processes (peak memory)

if arguments.first == "--child" {
    // Open the input as the viewer does, index it, look at the top and the bottom, and
    // report the peak memory.
    let path = arguments.count > 1 ? arguments[1] : nil
    let store = try CellStore.open(InputSpec(path: path == "-" ? nil : path))
    let viewer = Viewer(store: store, screenSize: Size(width: 200, height: 60))
    _ = viewer.frame()
    store.waitForIndex { false }
    viewer.handle(.refresh)
    viewer.handle(.lastRow)
    _ = viewer.frame()
    for _ in 0..<200 { viewer.handle(.pageUp); _ = viewer.frame() }
    print(String(format: "%.1f %d", peakMemoryMiB(), store.rowCount))
    exit(0)
}

if arguments.first == "--child-search", arguments.count > 1 { searchMemoryChild(arguments[1]) }
if arguments.first == "--child-insight" { insightChild(Array(arguments.dropFirst())) }
if arguments.first == "--child-edit", arguments.count > 1 { editChild(arguments[1]) }
if arguments.first == "--child-undo", arguments.count > 1 { undoChild(arguments[1]) }
if arguments.first == "--edit-journal" {
    editJournalBenchmark(reports: false)
    exit(0)
}
if arguments.first == "--child-band", arguments.count > 1 { bandChild(arguments[1]) }
if arguments.first == "--child-picture" { pictureChild(Array(arguments.dropFirst())) }
if arguments.first == "--child-sort", arguments.count > 2 { sortChild(arguments[1], column: Int(arguments[2]) ?? 5) }
if arguments.first == "--child-xlsx", arguments.count > 1 { xlsxChild(arguments[1]) }

if arguments.first == "--child-database", arguments.count > 1 { databaseChild(arguments[1]) }

func child(_ shellCommand: String) -> (mib: Double, rows: Int) {
    let pipe = Pipe()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", shellCommand]
    process.standardOutput = pipe
    try? process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let parts = output.split(separator: "\n").last?.split(separator: " ") ?? []
    return (Double(parts.first ?? "") ?? -1, Int(parts.last ?? "") ?? -1)
}

if arguments.contains("--database-only") {
    // Its own input: the big CSV files are not needed.
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let ok = databaseBenchmark(directory: directory, binary: option("--binary")
        ?? (CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/csvfreeze"))
    exit(ok ? 0 : 1)
}

var results: [(String, String, String, Bool?)] = []
@MainActor func report(_ figure: String, _ value: String, target: String = "", ok: Bool? = nil) {
    results.append((figure, value, target, ok))
    func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
    print(padded(figure, 46) + padded(value, 16) + padded(target, 28) + (ok.map { $0 ? "ok" : "OVER" } ?? ""))
}
func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
func s(_ seconds: Double) -> String { String(format: "%.2f s", seconds) }

// MARK: Inputs

try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
if arguments.contains("--xlsx-only") {
    xlsxSection(directory: directory, me: CommandLine.arguments[0])
    exit(results.contains { $0.3 == false } ? 1 : 0)
}
let big = directory + "/bench-1g.csv"
let narrow = directory + "/bench-12m-rows.csv"
generate(big, size: targetSize, header: "id," + (1..<20).map { String(format: "col%02d", $0) }.joined(separator: ",") + "\n", row: wideRow)
generate(narrow, size: 12_000_000 * 17, header: "id,a,b\n") { index, generator in "\(index),\(generator.next() % 1000),x\n" }
let bigSize = (try? FileManager.default.attributesOfItem(atPath: big)[.size] as? Int64) ?? 0
let mib = Double(bigSize) / Double(1 << 20)


print(String(format: "input: %@ (%.0f MiB)", big, mib))

// Warm the page cache once, so every figure below reads from memory alike.
let source = try FileSource(path: big)
let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)

let otherOnly = ["--scan-only", "--index-only", "--search-only", "--query-only", "--views-only", "--no-packed", "--insight-only",
                 "--sql-only", "--diff-only", "--export-only", "--filter-only", "--start-only", "--edit-only", "--picture-only",
                 "--json-only", "--xlsx-only", "--session-only"]
    .contains(where: arguments.contains)
if arguments.contains("--packed-only") || !otherOnly {
    try packedSection(big: big, directory: directory, exitsAfter: arguments.contains("--packed-only"))
}
if !otherOnly && !arguments.contains("--packed-only") { xlsxSection(directory: directory, me: CommandLine.arguments[0]) }

/// The csvfreeze whose start is measured: --binary, else the one built beside this program.
let startBinary = option("--binary")
    ?? (CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/csvfreeze")

if arguments.contains("--session-only") {
    sessionBenchmark(big: big, directory: directory, binary: startBinary, tenGiB: arguments.contains("--session-10g"))
    exit(results.contains { $0.3 == false } ? 1 : 0)
}

if arguments.contains("--start-only") {
    startBenchmark(big: big, binary: startBinary)
    exit(results.contains { $0.3 == false } ? 1 : 0)
}

if arguments.contains("--index-only") {
    for _ in 0..<3 {
        let store = try CellStore.open(InputSpec(path: big), startsLoader: false)
        let (_, time) = timed { store.indexNow() }
        print(String(format: "index: %.3f s, %d rows", time, store.rowCount))
    }
    exit(0)
}

if arguments.contains("--search-only") {
    try searchBenchmark(big: big, fuzzSeconds: fuzzSeconds)
    exit(0)
}

if arguments.contains("--query-only") {
    try queryBenchmark(big: big, directory: directory, tenGiB: arguments.contains("--query-10g"))
    try viewFrameBenchmark(big: big)
    exit(0)
}

if arguments.contains("--filter-only") {
    filterBenchmark(big: big, directory: directory)
    let over = results.filter { $0.3 == false }
    print(over.isEmpty ? "\nall figures at or under target" : "\n\(over.count) figure(s) over target: " + over.map(\.0).joined(separator: "; "))
    exit(over.isEmpty ? 0 : 1)
}

if arguments.contains("--export-only") {
    try exportBenchmark(big: big, directory: directory)
    let over = results.filter { $0.3 == false }
    print(over.isEmpty ? "\nall figures at or under target" : "\n\(over.count) figure(s) over target: " + over.map(\.0).joined(separator: "; "))
    exit(over.isEmpty ? 0 : 1)
}

if arguments.contains("--views-only") {
    try viewFrameBenchmark(big: big)
    exit(0)
}

if arguments.contains("--json-only") {
    try jsonBenchmark(big: big, directory: directory, binary: startBinary, me: CommandLine.arguments[0])
    exit(results.contains { $0.3 == false } ? 1 : 0)
}

if arguments.contains("--sql-only") {
    sqlBenchmark(big: big, directory: directory)
    exit(results.contains { $0.3 == false } ? 1 : 0)
}

if arguments.contains("--edit-only") {
    editBenchmark(big: big, directory: directory)
    exit(results.contains { $0.3 == false } ? 1 : 0)
}

if arguments.contains("--diff-only") {
    diffBenchmark(big: big, directory: directory)
    exit(results.contains { $0.3 == false } ? 1 : 0)
}

// MARK: Raw read (wc -l)

let (lines, rawTime): (Int, Double) = timed {
    var offset: Int64 = 0, lines = 0
    while true {
        let count = source.read(at: offset, into: readBuffer)
        if count <= 0 { break }
        var pointer = readBuffer.baseAddress!
        var left = count
        while left > 0, let found = memchr(pointer, 0x0A, left) {
            lines += 1
            let step = pointer.distance(to: found) + 1
            pointer = found + 1
            left -= step
        }
        offset += Int64(count)
    }
    return lines
}
report("raw read, counting line feeds", s(rawTime), target: "\(lines) lines")
try scanFigures(big: big, bytes: bigSize, rawReadSeconds: rawTime)
if arguments.contains("--scan-only") { exit(0) }

// MARK: libcsv full parse

let (libcsvRows, libcsvTime) = try libcsvParse(big)
let dialect = Dialect()
report("libcsv full parse (reference)", s(libcsvTime), target: "\(libcsvRows) row callbacks")
if arguments.contains("--insight-only") {
    insightBenchmark(big: big, libcsvTime: libcsvTime)
    exit(0)
}
if arguments.contains("--picture-only") {
    try pictureBenchmark(big: big, libcsvTime: libcsvTime)
    let over = results.filter { $0.3 == false }
    print(over.isEmpty ? "\nall figures at or under target" : "\n\(over.count) figure(s) over target: " + over.map(\.0).joined(separator: "; "))
    exit(over.isEmpty ? 0 : 1)
}

// csvfreeze's own full parse: libcsv with the project's rules, cells collected and bounded.
let (parsedRows, parseTime): (Int, Double) = timed {
    let parser = try! RecordParser(dialect: dialect)
    var offset: Int64 = 0
    var rows = 0
    while true {
        let count = source.read(at: offset, into: readBuffer)
        if count <= 0 { break }
        parser.parse(UnsafeRawBufferPointer(rebasing: readBuffer[..<count]))
        rows += parser.takeRecords().count
        offset += Int64(count)
    }
    parser.finish()
    return rows + parser.takeRecords().count
}
report("csvfreeze parse, cells kept", s(parseTime), target: String(format: "%.2f× libcsv, %d records", parseTime / libcsvTime, parsedRows))

// MARK: Index

let indexStore = try CellStore.open(InputSpec(path: big), startsLoader: false)
let (_, indexTime) = timed { indexStore.indexNow() }
let checkpoints = indexStore.statistics.checkpoints
report("full index (scanner), exact row count", s(indexTime),
       target: String(format: "≤ %.2f s (0.2 × libcsv)", libcsvTime * 0.2), ok: indexTime <= libcsvTime * 0.2)
report("  rows (scanner = parser?)", "\(indexStore.rowCount)", target: "\(parsedRows)", ok: indexStore.rowCount == parsedRows)
report("  checkpoints", "\(checkpoints)")
report("  speed-up over libcsv", String(format: "%.1f×", libcsvTime / indexTime), target: "≥ 5×", ok: libcsvTime / indexTime >= 5)

// MARK: First screen, file

let (_, firstFile): (Frame, Double) = try timed {
    let store = try CellStore.open(InputSpec(path: big))
    return Viewer(store: store, screenSize: Size(width: 200, height: 60)).frame()
}
report("first screen, file (200×60)", ms(firstFile), target: "≤ 50 ms", ok: firstFile <= 0.05)

// MARK: First screen, stdin

var fds: [Int32] = [0, 0]
pipe(&fds)
let writer = fds[1]
let feeder = Thread {
    let input = try! FileSource(path: big)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    var offset: Int64 = 0
    while true {
        let count = input.read(at: offset, into: buffer)
        if count <= 0 { break }
        var done = 0
        while done < count {
            let written = write(writer, buffer.baseAddress! + done, count - done)
            if written <= 0 { close(writer); return }
            done += written
        }
        offset += Int64(count)
    }
    close(writer)
}
let stdinStart = now()
feeder.start()
let stdinStore = try CellStore.open(InputSpec(path: "/dev/fd/\(fds[0])"))
let stdinViewer = Viewer(store: stdinStore, screenSize: Size(width: 200, height: 60))
stdinStore.waitForIndex {
    stdinViewer.handle(.refresh)
    return stdinViewer.dataRowCount >= 58
}
_ = stdinViewer.frame()
let firstStdin = now() - stdinStart
report("first screen, stdin (200×60)", ms(firstStdin), target: "≤ 50 ms", ok: firstStdin <= 0.05)

// MARK: G before the index is complete

let gStore = try CellStore.open(InputSpec(path: big))
let gViewer = Viewer(store: gStore, screenSize: Size(width: 200, height: 60))
_ = gViewer.frame()
let (gFrame, gTime): (Frame, Double) = timed {
    gViewer.handle(.lastRow)
    return gViewer.frame()
}
let approximate = gFrame.lines[59].contains("≈")
report("G shows the last rows (index not complete)", ms(gTime), target: "at once, marked ≈", ok: approximate && gTime < 0.1)
gStore.waitForIndex { false }
gViewer.handle(.refresh)
let exactLast = gViewer.frame().lines[58].contains("│\(gStore.rowCount - 1) ") || gViewer.cursorRow == gStore.rowCount - 2
report("  then exact, same rows", gViewer.frame().lines[59].contains("≈") ? "still ≈" : "exact", ok: exactLast)

// MARK: Frame cost

let narrowStore = try CellStore.open(InputSpec(path: narrow), startsLoader: false)
narrowStore.indexNow()
let frameViewer = Viewer(store: narrowStore, screenSize: Size(width: 200, height: 60))
let costTop = frameCost(of: frameViewer, at: 0, steps: 2000)
let costDeep = frameCost(of: frameViewer, at: 10_000_000, steps: 2000)
report("frame (scroll step) at row 0, 200×60", ms(costTop), target: "≤ 0.5 ms", ok: costTop <= 0.0005)
report("frame (scroll step) at row 10,000,000", ms(costDeep), target: "≤ 0.5 ms", ok: costDeep <= 0.0005)

// MARK: Peak memory

let me = CommandLine.arguments[0]
let fileMemory = child("'\(me)' --child '\(big)'")
report("peak memory, file (index, G, 200 pages up)", String(format: "%.1f MiB", fileMemory.mib), target: "≤ 32 MiB",
       ok: fileMemory.mib > 0 && fileMemory.mib <= 32)
let stdinMemory = child("cat '\(big)' | '\(me)' --child -")
report("peak memory, stdin (same, spooled)", String(format: "%.1f MiB", stdinMemory.mib), target: "≤ 64 MiB",
       ok: stdinMemory.mib > 0 && stdinMemory.mib <= 64)
report("  rows seen through stdin", "\(stdinMemory.rows)", target: "\(parsedRows)", ok: stdinMemory.rows == parsedRows)
let ratio = mib / max(1, fileMemory.mib)
report("  file size / peak memory", String(format: "%.0f×", ratio))

// MARK: Randomized differential run: scanner against libcsv

let pieces: [[UInt8]] = ["a", "bc", ",", ";", "\"", "\"\"", "\n", "\r\n", "\r", " ", "é", "中", "\"x,\ny\"", "\n\n", "\t", "|"].map { Array($0.utf8) } + [[0xFF]]
var fuzz = SeededGenerator(seed: 7)
var executions = 0, failures = 0
let fuzzEnd = now() + fuzzSeconds
while now() < fuzzEnd {
    var bytes: [UInt8] = []
    let length = Int(fuzz.next() % 400)
    while bytes.count < length { bytes += pieces[Int(fuzz.next() % UInt64(pieces.count))] }
    let delimiter: UInt8 = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")][Int(fuzz.next() % 4)]
    let dialect = Dialect(delimiter: delimiter)
    let expected = try RecordParser.records(in: bytes, dialect: dialect)
    // Chunks past 64 bytes let the bulk boundary scan take its turns.
    let chunk = 1 + Int(fuzz.next() % 300)
    let bulk = FieldKernel.Bulk.available[Int(fuzz.next() % UInt64(FieldKernel.Bulk.available.count))]
    let scanner = RecordScanner.scanning(bytes, dialect: dialect, chunk: chunk, bulk: bulk)
    executions += 1
    if scanner.recordCount != expected.count || scanner.widestRecord != (expected.map(\.count).max() ?? 0) {
        failures += 1
        if failures <= 3 { print("MISMATCH on \(bytes)") }
    }
}
report("scanner vs libcsv, random inputs", "\(executions) runs", target: "\(failures) failures", ok: failures == 0)

// MARK: Randomized run: the cell renderer

let glyphs: [[UInt8]] = [[0x1B], [0x07], [0x00], [0x7F], [0x0A], [0x0D], [0x09], [0xC2, 0x85], [0xE2, 0x80, 0xAE], [0xFF], [0xC3],
                         Array("中".utf8), Array("e\u{301}".utf8), Array("👩‍👩‍👧".utf8), Array("🇫🇷".utf8), Array("a".utf8), Array("7".utf8)]
var renders = 0, renderFailures = 0
let renderEnd = now() + fuzzSeconds / 2
while now() < renderEnd {
    var bytes: [UInt8] = []
    for _ in 0..<Int(fuzz.next() % 24) { bytes += glyphs[Int(fuzz.next() % UInt64(glyphs.count))] }
    let width = 1 + Int(fuzz.next() % 30)
    let cells = CellText.layout(bytes[...], width: width, alignRight: fuzz.next() % 2 == 0, style: .plain)
    renders += 1
    var good = cells.count == width
    var index = 0
    while good && index < cells.count {
        let cell = cells[index]
        if cell.text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) { good = false }
        if cell.isContinuation { good = false }
        if let character = cell.text.first, DisplayWidth.of(character) >= 2 {
            let width = DisplayWidth.of(character)
            good = good && index + width <= cells.count && cells[(index + 1)..<(index + width)].allSatisfy(\.isContinuation)
            index += width
        } else {
            index += 1
        }
    }
    if !good {
        renderFailures += 1
        if renderFailures <= 3 { print("RENDER FAILURE on \(bytes) at width \(width)") }
    }
}
report("cell renderer, random bytes", "\(renders) runs", target: "\(renderFailures) failures", ok: renderFailures == 0)

try searchBenchmark(big: big, fuzzSeconds: fuzzSeconds)
try queryBenchmark(big: big, directory: directory, tenGiB: arguments.contains("--query-10g"))
try viewFrameBenchmark(big: big)
insightBenchmark(big: big, libcsvTime: libcsvTime)
try pictureBenchmark(big: big, libcsvTime: libcsvTime)
sqlBenchmark(big: big, directory: directory)
diffBenchmark(big: big, directory: directory)
try exportBenchmark(big: big, directory: directory)
startBenchmark(big: big, binary: startBinary)

print("")
let over = results.filter { $0.3 == false }
print(over.isEmpty ? "all figures at or under target" : "\(over.count) figure(s) over target: " + over.map(\.0).joined(separator: "; "))
exit(over.isEmpty ? 0 : 1)
