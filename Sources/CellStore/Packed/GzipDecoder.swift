import CZlib

/// gzip through zlib, member after member (multi-member files and BGZF read as one).
///
/// With an `indexBuilder`, it stops at every deflate block boundary (`Z_BLOCK`) so the
/// builder can record access points for random access later (see `GzipIndex`).
package final class GzipDecoder: PackedDecoder {
    private let state = CStream(z_stream())
    private var stream: UnsafeMutablePointer<z_stream> { state.pointer }
    private var isBetweenMembers = false
    private var consumedTotal: Int64 = 0
    /// Damage met after some output: that output is delivered first, the damage next call.
    private var damage = DamageLatch()
    private var producedTotal: Int64 = 0
    let indexBuilder: GzipIndexBuilder?

    package init(indexBuilder: GzipIndexBuilder? = nil) throws(PackedDamage) {
        self.indexBuilder = indexBuilder
        let status = csvfreeze_inflate_init2(state.pointer, 31)
        guard status == Z_OK else { throw PackedDamage(.setup("zlib could not start: \(status)"), at: 0) }
        state.end = { _ = inflateEnd($0) }
    }

    package var isAtBoundary: Bool { isBetweenMembers }
    package var consumedBytes: Int64 { consumedTotal }

    package func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                        isLastInput: Bool) throws(PackedDamage) -> (consumed: Int, produced: Int) {
        try damage.throwIfLatched()
        guard input.baseAddress != nil, output.baseAddress != nil else { return (0, 0) }
        var consumed = 0, produced = 0
        defer { indexBuilder?.keep(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
        while consumed < input.count && produced < output.count {
            if isBetweenMembers {
                // Zero padding after the last member is common (tape blocks): skip it.
                if input[consumed] == 0 {
                    while consumed < input.count && input[consumed] == 0 { consumed += 1; consumedTotal += 1 }
                    continue
                }
                guard input[consumed] == 0x1F else {
                    return try damage.deliver(at: consumedTotal, .corrupt("data after the end of the gzip stream"), consumed, produced)
                }
                inflateReset(stream)
                isBetweenMembers = false
                indexBuilder?.memberStarts(atOutput: producedTotal)
            }
            let flush = indexBuilder == nil ? Z_NO_FLUSH : Z_BLOCK
            let (status, usedIn, madeOut) = state.step(UnsafeRawBufferPointer(rebasing: input[consumed...]),
                                                       UnsafeMutableRawBufferPointer(rebasing: output[produced...])) { inflate($0, flush) }
            consumed += usedIn
            produced += madeOut
            consumedTotal += Int64(usedIn)
            producedTotal += Int64(madeOut)
            switch status {
            case Z_STREAM_END:
                isBetweenMembers = true
            case Z_OK, Z_BUF_ERROR:
                break
            case Z_MEM_ERROR:
                return try damage.deliver(at: consumedTotal, .setup("out of memory"), consumed, produced)
            default:
                let why = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                // Damaged deflate data may inflate to wrong bytes for a while before zlib
                // notices, and the checksum comes only at the member's end.
                return try damage.deliver(at: consumedTotal, .lateCheck(why), consumed, produced)
            }
            if let indexBuilder, status != Z_STREAM_END, stream.pointee.data_type & 0xC0 == 0x80 {
                // After a block's end (or the header), not in the last block: inflating can
                // start here from the bit position and the 32 KiB before it.
                indexBuilder.boundary(input: consumedTotal, bits: Int(stream.pointee.data_type & 7), output: producedTotal,
                                      recent: UnsafeRawBufferPointer(rebasing: output[..<produced]))
            }
            if usedIn == 0 && madeOut == 0 && status != Z_STREAM_END { break }
        }
        return (consumed, produced)
    }
}
