import CBzip2
import CLzma
import CZlib
import CZstd

/// Compresses a stream of bytes in one of the formats csvfreeze reads, handing the
/// compressed bytes to `output` as they come: a compressed input is saved compressed in
/// its own format. One member or frame, at each tool's default level.
package final class Compressor {
    private enum State {
        case gzip(CStream<z_stream>)
        case zstd(OpaquePointer)
        case xz(CStream<lzma_stream>)
        case bzip2(CStream<bz_stream>)
    }

    private let state: State
    private let output: (UnsafeRawBufferPointer) -> Bool
    private var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
    /// Why compressing stopped, if it did.
    package private(set) var failure: String?

    /// A compressor for `compression` writing to `output` (false from it stops the writing).
    package init(_ compression: Compression, output: @escaping (UnsafeRawBufferPointer) -> Bool) throws(PackedDamage) {
        self.output = output
        switch compression {
        case .gzip:
            let stream = CStream(z_stream())
            guard csvfreeze_deflate_init2(stream.pointer, 6, 31) == Z_OK else { throw PackedDamage(.setup("zlib"), at: 0) }
            stream.end = { deflateEnd($0) }
            state = .gzip(stream)
        case .zstd:
            guard let context = ZSTD_createCCtx() else { throw PackedDamage(.setup("out of memory"), at: 0) }
            state = .zstd(context)
        case .xz:
            let stream = CStream(lzma_stream())
            guard lzma_easy_encoder(stream.pointer, 6, LZMA_CHECK_CRC64) == LZMA_OK else { throw PackedDamage(.setup("liblzma"), at: 0) }
            stream.end = { lzma_end($0) }
            state = .xz(stream)
        case .bzip2:
            let stream = CStream(bz_stream())
            guard BZ2_bzCompressInit(stream.pointer, 9, 0, 0) == BZ_OK else { throw PackedDamage(.setup("libbz2"), at: 0) }
            stream.end = { BZ2_bzCompressEnd($0) }
            state = .bzip2(stream)
        }
    }

    deinit {
        if case .zstd(let context) = state { ZSTD_freeCCtx(context) }
        buffer.deallocate()
    }

    /// Compresses `bytes`; false once writing stopped.
    @discardableResult
    package func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        run(bytes, finishing: false)
    }

    /// Ends the compressed stream; false when it could not be written.
    package func finish() -> Bool {
        run(UnsafeRawBufferPointer(start: nil, count: 0), finishing: true)
    }

    private func run(_ bytes: UnsafeRawBufferPointer, finishing: Bool) -> Bool {
        guard failure == nil else { return false }
        var input = bytes
        while true {
            let used: Int, made: Int, done: Bool
            switch state {
            case .gzip(let stream):
                let step = stream.step(input, buffer) { deflate($0, finishing ? Z_FINISH : Z_NO_FLUSH) }
                guard step.status == Z_OK || step.status == Z_STREAM_END || step.status == Z_BUF_ERROR else { return fail("zlib") }
                (used, made, done) = (step.usedIn, step.madeOut, step.status == Z_STREAM_END)
            case .bzip2(let stream):
                let step = stream.step(input, buffer) { BZ2_bzCompress($0, finishing ? BZ_FINISH : BZ_RUN) }
                guard step.status >= 0 else { return fail("libbz2") }
                (used, made, done) = (step.usedIn, step.madeOut, step.status == BZ_STREAM_END)
            case .xz(let stream):
                let pointer = stream.pointer
                pointer.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
                pointer.pointee.avail_in = input.count
                pointer.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
                pointer.pointee.avail_out = buffer.count
                let status = lzma_code(pointer, finishing ? LZMA_FINISH : LZMA_RUN)
                guard status == LZMA_OK || status == LZMA_STREAM_END || status == LZMA_BUF_ERROR else { return fail("liblzma") }
                (used, made, done) = (input.count - pointer.pointee.avail_in, buffer.count - pointer.pointee.avail_out,
                                      status == LZMA_STREAM_END)
            case .zstd(let context):
                var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
                var outBuffer = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
                let left = ZSTD_compressStream2(context, &outBuffer, &inBuffer, finishing ? ZSTD_e_end : ZSTD_e_continue)
                guard ZSTD_isError(left) == 0 else { return fail("zstd") }
                (used, made, done) = (inBuffer.pos, outBuffer.pos, finishing && left == 0)
            }
            if made > 0 && !output(UnsafeRawBufferPointer(rebasing: buffer[..<made])) {
                failure = "the output could not be written"
                return false
            }
            input = UnsafeRawBufferPointer(rebasing: input[used...])
            if finishing ? done : (input.isEmpty && made < buffer.count) { return true }
        }
    }

    private func fail(_ library: String) -> Bool {
        failure = "\(library) could not compress"
        return false
    }
}
