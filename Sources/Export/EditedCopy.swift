import CellStore
import Scan

/// Writes an input with a table's edits spliced in (`RecordPatch`): what a save of edits
/// writes. Every byte outside the splices is the input's own, copied as it is: the byte-
/// order mark, the preamble, each record's quoting and line end, a missing last line end.
/// A plain file's stretches are copied in the kernel (`copy_file_range`), at the speed
/// of `cp`; other inputs are read as they were read (decompressed), and a compressed one
/// is compressed again in its own format.
package enum EditedCopy {
    /// Writes input bytes `0..<end` of `source` (the file open as `file`, when they are its
    /// own) with `patch` in place to `sink`, through a `compression` compressor when given.
    /// Returns why it stopped, or nil when all was written; `control` counts input bytes
    /// and cancels.
    package static func write(_ patch: RecordPatch, source: ByteSource, end: Int64, file: Int32?, to sink: ExportSink,
                              compression: Compression?, control: ScanControl) -> String? {
        let compressor: Compressor?
        if let compression {
            do {
                compressor = try Compressor(compression) { sink.write($0) }
            } catch {
                return "cannot compress: \(error)"
            }
        } else {
            compressor = nil
        }
        func put(_ bytes: UnsafeRawBufferPointer) -> Bool {
            compressor.map { $0.write(bytes) } ?? sink.write(bytes)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        for piece in patch.pieces(upTo: end) {
            if control.isCancelled { return nil }
            switch piece {
            case .spliced(let bytes):
                guard bytes.withUnsafeBytes(put) else { return failure(sink, compressor) }
            case .original(let range):
                var position = range.lowerBound
                if let file, compressor == nil, range.count >= 1 << 16 {
                    position += sink.copy(from: file, offset: position, length: Int64(range.count))
                    if sink.failure != nil { return failure(sink, compressor) }
                    control.advance(by: position - range.lowerBound)
                }
                while position < range.upperBound {
                    if control.isCancelled { return nil }
                    let wanted = Int(min(Int64(buffer.count), range.upperBound - position))
                    let count = source.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
                    guard count > 0 else { return "the input ended before its end was read: it changed meanwhile" }
                    guard put(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else { return failure(sink, compressor) }
                    position += Int64(count)
                    control.advance(by: Int64(count))
                }
            }
        }
        if let compressor, !compressor.finish() { return failure(sink, compressor) }
        return sink.failure
    }

    private static func failure(_ sink: ExportSink, _ compressor: Compressor?) -> String {
        sink.failure ?? compressor?.failure ?? "cannot write the output"
    }
}
