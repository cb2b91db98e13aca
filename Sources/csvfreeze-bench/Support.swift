#if canImport(Glibc)
import Glibc
#endif
import CellStore
import CLibCSV
import Foundation
import Viewer

// MARK: Helpers

/// Seconds on `clock`, from its own origin.
func seconds(on clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Wall seconds, from an arbitrary origin.
func now() -> Double { seconds(on: CLOCK_MONOTONIC) }

/// CPU seconds this thread has used (a figure per core, whatever else the machine runs).
func threadCPUSeconds() -> Double { seconds(on: CLOCK_THREAD_CPUTIME_ID) }

func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = now()
    let result = try body()
    return (result, now() - start)
}

/// Published by the stores of the viewers the benchmark turns (their `onChange`, which
/// their passes' wakes reach too): what the event loop's wake pipe is to the screen.
let viewerNews = ChangeSignal()

/// Marks news for `turnViewer`: the `onChange` of a store a viewer is made over.
let markViewerNews: @Sendable () -> Void = { viewerNews.notify() }

/// Turns `viewer` as the event loop does, on each news of its store and passes, until
/// `busy` is false (a search, a sort, a filter done): waits on a signal, never a clock.
@MainActor func turnViewer(_ viewer: Viewer, while busy: () -> Bool) {
    while true {
        let version = viewerNews.version
        viewer.handle(.refresh)
        if !busy() { return }
        viewerNews.wait(past: version)
    }
}

/// This process's peak resident memory in MiB.
func peakMemoryMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
    return kilobytes / 1024
}


/// Writes a file of about `size` bytes, streaming, with `row` making each line.
func generate(_ path: String, size: Int64, header: String, row: (Int, inout SeededGenerator) -> String) {
    if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
       let existing = attributes[.size] as? Int64, existing >= size { return }
    print("generating \(path) …")
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    guard let handle = FileHandle(forWritingAtPath: path) else { fatalError("cannot write \(path)") }
    var generator = SeededGenerator(seed: 42)
    var written: Int64 = 0
    var batch = header
    var index = 0
    while written < size {
        index += 1
        batch += row(index, &generator)
        if batch.utf8.count > 1 << 20 {
            handle.write(Data(batch.utf8))
            written += Int64(batch.utf8.count)
            batch = ""
        }
    }
    handle.write(Data(batch.utf8))
    try? handle.close()
}

let words = ["alpha", "beta", "gamma", "delta", "Zürich", "北京", "naïve", "œuvre", "data", "point"]
func wideRow(_ index: Int, _ generator: inout SeededGenerator) -> String {
    var cells = [String(index)]
    for column in 1..<20 {
        switch column % 5 {
        case 0: cells.append(String(format: "%.3f", Double(generator.next() % 2_000_000_000) / 1000 - 1e6))
        case 1:
            let count = 1 + Int(generator.next() % 6)
            cells.append("\"" + (0..<count).map { _ in words[Int(generator.next() % 10)] }.joined(separator: " ") + ", etc.\"")
        case 2:
            let word = words[Int(generator.next() % 10)]
            cells.append(generator.next() % 10 < 3 ? "\"she said \"\"\(word)\"\"\"" : word)
        case 3: cells.append(generator.next() % 20 == 0 ? "\"line one\nline two \(index)\"" : String(generator.next() % 1_000_000_000))
        default: cells.append("2024-\(1 + generator.next() % 12)-\(1 + generator.next() % 28)")
        }
    }
    return cells.joined(separator: ",") + "\n"
}

/// libcsv alone parsing `path`, set up as csvfreeze sets it up, with callbacks that only
/// count: the reference the other figures are compared with. Returns the records and seconds.
func libcsvParse(_ path: String) throws -> (records: Int, seconds: Double) {
    let source = try FileSource(path: path)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    return timed {
        var parser = csv_parser()
        _ = csv_init(&parser, UInt8(CSV_REPALL_NL))
        csv_set_space_func(&parser, cf_csv_never_space)
        csv_set_blk_size(&parser, 64 << 10)
        var records = 0
        var offset: Int64 = 0
        while true {
            let count = source.read(at: offset, into: buffer)
            if count <= 0 { break }
            _ = csv_parse(&parser, buffer.baseAddress, count, { _, _, _ in }, { _, data in
                data!.assumingMemoryBound(to: Int.self).pointee += 1
            }, &records)
            offset += Int64(count)
        }
        _ = csv_fini(&parser, { _, _, _ in }, { _, data in data!.assumingMemoryBound(to: Int.self).pointee += 1 }, &records)
        csv_free(&parser)
        return records
    }
}
