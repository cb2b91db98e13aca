import CBzip2
import CLzma
import CZstd

/// Zstandard: frames follow one another; the library reads skippable ones itself.
///
/// The library is given no more input than it asks for (its hint: the rest of a block and
/// the next block's header), and a full output is drained before more input comes, so a
/// call decodes at most one block. When a block is damaged the library returns the error
/// without saying how much of the output it had already written in that call; with one
/// block a call, it had written none, so every block before the damaged one is delivered.
package final class ZstdDecoder: PackedDecoder {
    private let context: OpaquePointer
    private var frameDone = false
    private var consumedTotal: Int64 = 0
    /// Input the library asks for next; the start of a frame header at first.
    private var wanted = ZstdDecoder.frameStart
    /// True when the last call filled the output: the library may hold more to give.
    private var mayHoldOutput = false
    /// Where the input the library asked for last starts: damage is reported there, the
    /// same however the input arrives (a file, or a pipe in pieces).
    private var unitStart: Int64 = 0
    /// Damage met after some output: that output is delivered first, the damage next call.
    private var damage = DamageLatch()
    static let frameStart = 5

    package init() throws(PackedDamage) {
        guard let context = ZSTD_createDStream() else { throw PackedDamage(.setup("out of memory"), at: 0) }
        self.context = context
        ZSTD_initDStream(context)
    }

    deinit { ZSTD_freeDStream(context) }

    package var isAtBoundary: Bool { frameDone }
    package var consumedBytes: Int64 { consumedTotal }

    package func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                        isLastInput: Bool) throws(PackedDamage) -> (consumed: Int, produced: Int) {
        try damage.throwIfLatched()
        var consumed = 0, produced = 0
        while produced < output.count {
            // Drain what the library holds before giving it more.
            let given = mayHoldOutput ? 0 : min(input.count - consumed, max(1, wanted))
            if given == 0 && !mayHoldOutput { break }
            var source = ZSTD_inBuffer(src: input.baseAddress.map { $0 + consumed }, size: given, pos: 0)
            var target = ZSTD_outBuffer(dst: output.baseAddress.map { $0 + produced }, size: output.count - produced, pos: 0)
            let hint = ZSTD_decompressStream(context, &target, &source)
            if ZSTD_isError(hint) != 0 {
                let why = String(cString: ZSTD_getErrorName(hint))
                // The frame's checksum comes after its data, which was delivered.
                let kind: PackedDamage.Kind = ZSTD_getErrorCode(hint) == ZSTD_error_checksum_wrong ? .lateCheck(why) : .corrupt(why)
                return try damage.deliver(at: unitStart, kind, consumed, produced)
            }
            consumed += source.pos
            produced += target.pos
            consumedTotal += Int64(source.pos)
            mayHoldOutput = target.pos == target.size
            // 0: a frame is complete and flushed; the next starts with a header.
            frameDone = hint == 0
            // All that was asked for went in: the next unit starts here.
            if given > 0 && source.pos == given && given == wanted { unitStart = consumedTotal }
            wanted = hint == 0 ? ZstdDecoder.frameStart : hint
            if source.pos == 0 && target.pos == 0 { break }
        }
        return (consumed, produced)
    }
}

/// xz through liblzma, concatenated streams and stream padding included.
package final class XzDecoder: PackedDecoder {
    private let state = CStream(lzma_stream())
    private var stream: UnsafeMutablePointer<lzma_stream> { state.pointer }
    private var ended = false
    private var consumedTotal: Int64 = 0
    /// Damage met after some output: that output is delivered first, the damage next call.
    private var damage = DamageLatch()

    package init() throws(PackedDamage) {
        // Files written in several blocks (xz -T) decode on two threads, as `xz -d` does;
        // past 64 MiB of buffers it falls back to one, so memory stays bounded.
        var options = lzma_mt()
        options.flags = csvfreeze_lzma_concatenated
        options.threads = 2
        options.memlimit_threading = 64 << 20
        options.memlimit_stop = UInt64.max
        let status = lzma_stream_decoder_mt(state.pointer, &options)
        guard status == LZMA_OK else { throw PackedDamage(.setup("liblzma could not start: \(status.rawValue)"), at: 0) }
        state.end = { lzma_end($0) }
    }

    package var isAtBoundary: Bool { ended }
    package var consumedBytes: Int64 { consumedTotal }

    /// With concatenated streams, liblzma knows the input is whole only when told it ended.
    package func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                        isLastInput: Bool) throws(PackedDamage) -> (consumed: Int, produced: Int) {
        try damage.throwIfLatched()
        guard !ended, let outBase = output.baseAddress else { return (0, 0) }
        stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_in = input.count
        stream.pointee.next_out = outBase.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = output.count
        let status = lzma_code(stream, isLastInput ? LZMA_FINISH : LZMA_RUN)
        let consumed = input.count - stream.pointee.avail_in
        let produced = output.count - stream.pointee.avail_out
        consumedTotal += Int64(consumed)
        switch status {
        case LZMA_OK, LZMA_BUF_ERROR: break
        case LZMA_STREAM_END: ended = true
        case LZMA_MEM_ERROR, LZMA_MEMLIMIT_ERROR: return try damage.deliver(at: consumedTotal, .setup("out of memory"), consumed, produced)
        case LZMA_DATA_ERROR:
            // Corrupt data, or a block's check (after the block's data) that does not match.
            return try damage.deliver(at: consumedTotal, .lateCheck("corrupt data or a wrong check"), consumed, produced)
        case LZMA_FORMAT_ERROR: return try damage.deliver(at: consumedTotal, .corrupt("not xz data"), consumed, produced)
        default: return try damage.deliver(at: consumedTotal, .corrupt("liblzma error \(status.rawValue)"), consumed, produced)
        }
        if status == LZMA_BUF_ERROR && isLastInput && consumed == 0 && produced == 0 {
            throw PackedDamage(.truncated, at: consumedTotal)
        }
        return (consumed, produced)
    }
}

/// bzip2 through libbz2; a stream that ends is followed by the next, as `bzip2 -d` reads them.
package final class Bzip2Decoder: MemberDecoder {
    let state = CStream(bz_stream())
    var progress = MemberProgress()

    package init() throws(PackedDamage) {
        try open()
    }

    private func open() throws(PackedDamage) {
        let status = BZ2_bzDecompressInit(state.pointer, 0, 0)
        guard status == BZ_OK else { throw PackedDamage(.setup("libbz2 could not start: \(status)"), at: progress.consumedTotal) }
        state.end = { _ = BZ2_bzDecompressEnd($0) }
    }

    /// libbz2 has no reset: the finished stream is ended and a new one set up.
    func startMember(_ input: UnsafeRawBufferPointer) throws(PackedDamage) -> MemberStart {
        BZ2_bzDecompressEnd(state.pointer)
        state.end = nil
        state.pointer.pointee = bz_stream()
        try open()
        return .started
    }

    func call(_ stream: UnsafeMutablePointer<bz_stream>) -> Int32 { BZ2_bzDecompress(stream) }

    func outcome(of status: Int32) -> MemberStep {
        switch status {
        case BZ_OK: .going
        case BZ_STREAM_END: .ended
        case BZ_MEM_ERROR: .damaged(.setup("out of memory"))
        case BZ_DATA_ERROR: .damaged(.lateCheck("bad block checksum or corrupt data"))
        case BZ_DATA_ERROR_MAGIC: .damaged(.corrupt("data after the end of the bzip2 stream"))
        default: .damaged(.corrupt("libbz2 error \(status)"))
        }
    }
}
