import CZlib
import Synchronization

/// Access points into a gzip file: places where inflating can start without what came
/// before (a bit position and the 32 KiB of output before it, as zlib's `zran.c` does).
///
/// The windows are kept deflated in an unlinked temporary file (or memory, where none can
/// be made); only the points' offsets stay in memory, 40 bytes each.
package final class GzipIndex: Sendable {
    /// Where inflating can start.
    struct Point: Sendable {
        /// Offset in the decompressed data.
        var output: Int64
        /// Offset of the first whole compressed byte; with `bits`, the byte before it
        /// holds that many bits of the stream.
        var input: Int64
        var bits: Int
        /// The window: the output before `output` in this member.
        var window: StoredWindow
    }

    /// A window as `windows` keeps it, deflated.
    struct StoredWindow: Sendable {
        /// Where its deflated bytes start in `windows`.
        var offset: Int64
        /// How many deflated bytes it takes there.
        var storedLength: Int
        /// How many bytes it inflates to (0 at a member's start, where none is needed).
        var length: Int
    }

    /// Output between two access points: a far row costs inflating at most this much.
    package let spacing: Int64
    private let points = Mutex<[Point]>([])
    private let windows = SpoolSource()

    package init(spacing: Int64) { self.spacing = spacing }

    /// Access points recorded so far.
    package var count: Int { points.withLock { $0.count } }

    /// Bytes the index keeps on disk (or in memory): the deflated windows.
    package var storedBytes: Int64 { windows.length }

    /// Records a point; called by the one thread that builds the index, in output order.
    func add(output: Int64, input: Int64, bits: Int, window: [UInt8]) {
        var stored = [UInt8](repeating: 0, count: Int(compressBound(uLong(window.count))))
        var storedLength = uLongf(stored.count)
        let status = window.withUnsafeBufferPointer { source in
            stored.withUnsafeMutableBufferPointer { target in
                compress2(target.baseAddress, &storedLength, source.baseAddress, uLong(window.count), 1)
            }
        }
        guard status == Z_OK else { return }   // no point here; the previous one still serves
        let at = windows.length
        stored.withUnsafeBytes { windows.append(UnsafeRawBufferPointer(rebasing: $0[..<Int(storedLength)])) }
        let point = Point(output: output, input: input, bits: bits,
                          window: StoredWindow(offset: at, storedLength: Int(storedLength), length: window.count))
        points.withLock { $0.append(point) }
    }

    /// The last point at or before `offset`.
    /// - Complexity: O(log n) in the number of points.
    func point(atOrBefore offset: Int64) -> Point? {
        points.withLock { list in
            var low = 0, high = list.count - 1
            guard high >= 0, list[0].output <= offset else { return nil }
            while low < high {
                let middle = (low + high + 1) / 2
                if list[middle].output <= offset { low = middle } else { high = middle - 1 }
            }
            return list[low]
        }
    }

    /// The window a point needs, inflated again.
    func window(for point: Point) -> [UInt8]? {
        let stored = point.window
        guard stored.length > 0 else { return [] }
        var deflated = [UInt8](repeating: 0, count: stored.storedLength)
        let got = deflated.withUnsafeMutableBytes { windows.read(at: stored.offset, into: $0) }
        guard got == stored.storedLength else { return nil }
        var window = [UInt8](repeating: 0, count: stored.length)
        var length = uLongf(window.count)
        let status = deflated.withUnsafeBufferPointer { source in
            window.withUnsafeMutableBufferPointer { target in
                uncompress(target.baseAddress, &length, source.baseAddress, uLong(source.count))
            }
        }
        return status == Z_OK && Int(length) == stored.length ? window : nil
    }
}

/// Records access points while a `GzipDecoder` inflates the whole file once.
package final class GzipIndexBuilder {
    static let windowSize = 32 << 10
    let index: GzipIndex
    /// The last output bytes before the current decode call (at most a window's worth).
    private var history: [UInt8] = []
    private var memberStart: Int64 = 0
    private var lastPoint: Int64?

    package init(index: GzipIndex) { self.index = index }

    func memberStarts(atOutput offset: Int64) { memberStart = offset }

    /// At a block boundary: records a point when the last one is `spacing` behind (a
    /// quarter of that at a member's start, where no window is needed: BGZF's blocks).
    func boundary(input: Int64, bits: Int, output: Int64, recent: UnsafeRawBufferPointer) {
        let windowLength = Int(min(Int64(GzipIndexBuilder.windowSize), output - memberStart))
        if let lastPoint {
            let gap = output - lastPoint
            guard gap >= index.spacing || (windowLength == 0 && gap >= index.spacing / 4) else { return }
        }
        let fromRecent = min(windowLength, recent.count)
        let fromHistory = min(windowLength - fromRecent, history.count)
        var window = Array(history.suffix(fromHistory))
        window.append(contentsOf: UnsafeRawBufferPointer(rebasing: recent[(recent.count - fromRecent)...]))
        index.add(output: output, input: input, bits: bits, window: window)
        lastPoint = output
    }

    /// Keeps the end of what one decode call produced, for the windows of the next.
    func keep(_ produced: UnsafeRawBufferPointer) {
        let size = GzipIndexBuilder.windowSize
        if produced.count >= size {
            history = Array(UnsafeRawBufferPointer(rebasing: produced[(produced.count - size)...]))
        } else {
            history.append(contentsOf: produced)
            if history.count > size { history.removeFirst(history.count - size) }
        }
    }
}
