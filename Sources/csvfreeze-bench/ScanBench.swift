import CellStore
import Foundation

/// The record-boundary scan alone over `path`, read in 1 MiB blocks as the loader reads
/// it, with a boundary callback as the loader's: wall and CPU seconds, and the records.
func boundaryScan(_ path: String, bulk: FieldKernel.Bulk) throws -> (wall: Double, cpu: Double, records: Int) {
    let source = try FileSource(path: path)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
    defer { buffer.deallocate() }
    let cpuStart = threadCPUSeconds()
    let (records, wall) = timed {
        var scanner = RecordScanner(dialect: Dialect(), bulk: bulk)
        var offset: Int64 = 0
        var lastEnd = 0
        while true {
            let count = source.read(at: offset, into: buffer)
            if count <= 0 { break }
            scanner.scan(UnsafeRawBufferPointer(rebasing: buffer[..<count]), at: offset) { end, _, _, _ in lastEnd = end }
            offset += Int64(count)
        }
        scanner.finish()
        return scanner.recordCount + (lastEnd < 0 ? 1 : 0)
    }
    return (wall, threadCPUSeconds() - cpuStart, records)
}

/// The scan figures: `wc -l` and a raw read beside the record-boundary scan, with each
/// bulk implementation the CPU runs and with the rules byte by byte (the scanner as it was
/// before the bulk scan). Every way must count the same records.
@MainActor func scanFigures(big: String, bytes: Int64, rawReadSeconds: Double) throws {
    func rate(_ seconds: Double) -> String { String(format: "%.2f GB/s", Double(bytes) / seconds / 1e9) }
    let wc = shellTime("wc -l < '\(big)'")
    report("wc -l (same file)", rate(wc), target: s(wc))
    report("raw read, counting LFs (pread + memchr)", rate(rawReadSeconds), target: s(rawReadSeconds))
    let levels = FieldKernel.Bulk.available.reversed() + [FieldKernel.Bulk.off]
    var counted: Int?
    for bulk in levels {
        let scan = try boundaryScan(big, bulk: bulk)
        let agrees = counted.map { $0 == scan.records } ?? true
        counted = counted ?? scan.records
        let perCore = Double(bytes) / scan.cpu / 1e9
        if bulk == levels.first {
            report("record-boundary scan, GB/s (\(bulk))", rate(scan.wall),
                   target: String(format: "%.2f per CPU second, ≥ 2", perCore), ok: perCore >= 2)
        } else {
            let name = bulk == .off ? "  old scanner (the rules byte by byte)" : "  record-boundary scan (\(bulk))"
            report(name, rate(scan.wall), target: String(format: "%.2f per CPU second", perCore), ok: agrees)
        }
    }
    report("  scan alone, in memory (\(levels[0]))", String(format: "%.2f GB/s", try inMemoryScan(big, bulk: levels[0])),
           target: String(format: "old scanner %.2f GB/s", try inMemoryScan(big, bulk: .off)))
    var load = [0.0, 0.0, 0.0]
    getloadavg(&load, 3)
    report("  load average during the scan figures", String(format: "%.1f %.1f %.1f", load[0], load[1], load[2]),
           target: "\(ProcessInfo.processInfo.activeProcessorCount) cores")
}

/// The scan alone on bytes already in memory (the first 256 MiB of `path`), CPU seconds
/// per GB: what the kernel costs without the read.
func inMemoryScan(_ path: String, bulk: FieldKernel.Bulk) throws -> Double {
    let source = try FileSource(path: path)
    let size = 256 << 20
    let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
    defer { memory.deallocate() }
    var filled = 0
    while filled < size {
        let count = source.read(at: Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: memory[filled...]))
        if count <= 0 { break }
        filled += count
    }
    let start = threadCPUSeconds()
    var scanner = RecordScanner(dialect: Dialect(), bulk: bulk)
    var offset = 0
    var boundaries = 0
    while offset < filled {
        let end = min(filled, offset + (1 << 20))
        scanner.scan(UnsafeRawBufferPointer(rebasing: memory[offset..<end]), at: Int64(offset)) { _, _, _, _ in boundaries += 1 }
        offset = end
    }
    return Double(filled) / (threadCPUSeconds() - start) / 1e9
}
