#if canImport(Glibc)
import Glibc
#endif

/// Decompressed bytes of a compressed input, in order: output modes read through it, and
/// the background `Unpacker` feeds the viewer from it.
///
/// Memory is its input buffer and the decoder's state, whatever the input's size.
package final class PackedReader {
    /// Reads the next compressed bytes: a count, 0 at the end, or -1 with `errno` set.
    package typealias RawRead = (UnsafeMutableRawBufferPointer) -> Int

    let decoder: PackedDecoder
    private let readRaw: RawRead
    private let input: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var rawEnded = false
    /// Compressed bytes read from the input so far.
    package private(set) var compressedRead: Int64 = 0

    package init(decoder: PackedDecoder, readRaw: @escaping RawRead) {
        self.decoder = decoder
        self.readRaw = readRaw
        input = .allocate(byteCount: 1 << 18, alignment: 16)
    }

    deinit { input.deallocate() }

    /// Fills `output` with the next decompressed bytes: a count, or 0 at a clean end.
    /// Throws where the data is truncated, damaged or unreadable; what came before it was
    /// delivered.
    package func read(into output: UnsafeMutableRawBufferPointer) throws(PackedDamage) -> Int {
        guard output.count > 0 else { return 0 }
        var idle = 0
        while true {
            if start == end && !rawEnded {
                let count = readRaw(input)
                if count < 0 {
                    throw PackedDamage(.unreadable(String(cString: strerror(errno))), at: compressedRead)
                }
                if count == 0 {
                    rawEnded = true
                } else {
                    start = 0
                    end = count
                    compressedRead += Int64(count)
                }
            }
            let (consumed, produced) = try decoder.decode(UnsafeRawBufferPointer(rebasing: input[start..<end]), into: output,
                                                          isLastInput: rawEnded)
            start += consumed
            if produced > 0 { return produced }
            if consumed > 0 {
                idle = 0
                continue
            }
            idle += 1
            // A decoder that takes nothing and gives nothing twice is stuck: at the end of
            // the input that is a clean end or a cut-off stream, elsewhere damage.
            if idle >= 2 {
                if rawEnded && start == end {
                    if decoder.isAtBoundary { return 0 }
                    throw PackedDamage(.truncated, at: decoder.consumedBytes)
                }
                throw PackedDamage(.corrupt("the decoder makes no progress"), at: decoder.consumedBytes)
            }
        }
    }
}
