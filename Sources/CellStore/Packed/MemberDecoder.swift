/// A decoder over a library that decodes one member at a time (zlib for gzip, libbz2 for
/// bzip2) when the input holds members one after another: each is decoded to its end, then
/// the library starts afresh on the next, as `gzip -d` and `bzip2 -d` read them.
///
/// The loop, the counts and the damage held back are here once; a format says how a member
/// starts, how the library is called and what its statuses mean.
protocol MemberDecoder: PackedDecoder {
    associatedtype Stream: BoundedStream
    associatedtype Status
    /// The library's stream.
    var state: CStream<Stream> { get }
    /// Where decoding stands between calls.
    var progress: MemberProgress { get set }
    /// Between members: starts the library afresh on the member `input` starts with, or
    /// says what comes before it.
    func startMember(_ input: UnsafeRawBufferPointer) throws(PackedDamage) -> MemberStart
    /// Calls the library once on `stream`, which `CStream.step` has pointed at the buffers.
    func call(_ stream: UnsafeMutablePointer<Stream>) -> Status
    /// What a status the library returned means.
    func outcome(of status: Status) -> MemberStep
    /// After a call that met no damage; `output` is all this decode call has produced so far.
    func didStep(memberEnded: Bool, output: UnsafeRawBufferPointer)
    /// At the end of a decode call, with all it produced.
    func didDecode(_ output: UnsafeRawBufferPointer)
}

/// What a `MemberDecoder` keeps between calls.
struct MemberProgress {
    /// True after a member's end, until the next one starts.
    var isBetweenMembers = false
    /// Compressed bytes consumed so far.
    var consumedTotal: Int64 = 0
    /// Bytes produced so far.
    var producedTotal: Int64 = 0
    /// Damage met after some output: that output is delivered first, the damage next call.
    var damage = DamageLatch()
}

/// How the input goes on after a member's end.
enum MemberStart {
    /// A member starts here, and the library is ready for it.
    case started
    /// This many bytes of padding come first (at least one): they are consumed.
    case skipped(Int)
    /// Something that is not a member comes next.
    case damaged(PackedDamage.Kind)
}

/// What one call of the library came to.
enum MemberStep {
    /// Decoding goes on: the library wants more input or more room.
    case going
    /// The member ended (checksum checked); another may follow.
    case ended
    /// The data is damaged, or the library failed.
    case damaged(PackedDamage.Kind)
}

extension MemberDecoder {
    func didStep(memberEnded: Bool, output: UnsafeRawBufferPointer) {}
    func didDecode(_ output: UnsafeRawBufferPointer) {}

    package var isAtBoundary: Bool { progress.isBetweenMembers }
    package var consumedBytes: Int64 { progress.consumedTotal }

    package func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                        isLastInput: Bool) throws(PackedDamage) -> (consumed: Int, produced: Int) {
        try progress.damage.throwIfLatched()
        guard input.baseAddress != nil, output.baseAddress != nil else { return (0, 0) }
        var consumed = 0, produced = 0
        defer { didDecode(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
        while consumed < input.count && produced < output.count {
            if progress.isBetweenMembers {
                switch try startMember(UnsafeRawBufferPointer(rebasing: input[consumed...])) {
                case .started:
                    progress.isBetweenMembers = false
                case .skipped(let count):
                    consumed += count
                    progress.consumedTotal += Int64(count)
                    continue
                case .damaged(let kind):
                    return try progress.damage.deliver(at: progress.consumedTotal, kind, consumed, produced)
                }
            }
            let (status, usedIn, madeOut) = state.step(UnsafeRawBufferPointer(rebasing: input[consumed...]),
                                                       UnsafeMutableRawBufferPointer(rebasing: output[produced...])) { call($0) }
            consumed += usedIn
            produced += madeOut
            progress.consumedTotal += Int64(usedIn)
            progress.producedTotal += Int64(madeOut)
            switch outcome(of: status) {
            case .going: break
            case .ended: progress.isBetweenMembers = true
            case .damaged(let kind): return try progress.damage.deliver(at: progress.consumedTotal, kind, consumed, produced)
            }
            didStep(memberEnded: progress.isBetweenMembers, output: UnsafeRawBufferPointer(rebasing: output[..<produced]))
            if usedIn == 0 && madeOut == 0 && !progress.isBetweenMembers { break }
        }
        return (consumed, produced)
    }
}
