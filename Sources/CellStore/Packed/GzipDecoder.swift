import CZlib

/// gzip through zlib, member after member (multi-member files and BGZF read as one).
///
/// With an `indexBuilder`, it stops at every deflate block boundary (`Z_BLOCK`) so the
/// builder can record access points for random access later (see `GzipIndex`).
package final class GzipDecoder: MemberDecoder {
    let state = CStream(z_stream())
    var progress = MemberProgress()
    let indexBuilder: GzipIndexBuilder?

    package init(indexBuilder: GzipIndexBuilder? = nil) throws(PackedDamage) {
        self.indexBuilder = indexBuilder
        let status = csvfreeze_inflate_init2(state.pointer, 31)
        guard status == Z_OK else { throw PackedDamage(.setup("zlib could not start: \(status)"), at: 0) }
        state.end = { _ = inflateEnd($0) }
    }

    func startMember(_ input: UnsafeRawBufferPointer) -> MemberStart {
        // Zero padding after the last member is common (tape blocks): skip it.
        if input[0] == 0 { return .skipped(input.firstIndex { $0 != 0 } ?? input.count) }
        guard input[0] == 0x1F else { return .damaged(.corrupt("data after the end of the gzip stream")) }
        inflateReset(state.pointer)
        indexBuilder?.memberStarts(atOutput: progress.producedTotal)
        return .started
    }

    func call(_ stream: UnsafeMutablePointer<z_stream>) -> Int32 {
        inflate(stream, indexBuilder == nil ? Z_NO_FLUSH : Z_BLOCK)
    }

    func outcome(of status: Int32) -> MemberStep {
        switch status {
        case Z_STREAM_END: return .ended
        case Z_OK, Z_BUF_ERROR: return .going
        case Z_MEM_ERROR: return .damaged(.setup("out of memory"))
        default:
            let why = state.pointer.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            // Damaged deflate data may inflate to wrong bytes for a while before zlib
            // notices, and the checksum comes only at the member's end.
            return .damaged(.lateCheck(why))
        }
    }

    func didStep(memberEnded: Bool, output: UnsafeRawBufferPointer) {
        guard let indexBuilder, !memberEnded else { return }
        let dataType = state.pointer.pointee.data_type
        if dataType & 0xC0 == 0x80 {
            // After a block's end (or the header), not in the last block: inflating can
            // start here from the bit position and the 32 KiB before it.
            indexBuilder.boundary(input: progress.consumedTotal, bits: Int(dataType & 7), output: progress.producedTotal,
                                  recent: output)
        }
    }

    func didDecode(_ output: UnsafeRawBufferPointer) { indexBuilder?.keep(output) }
}
