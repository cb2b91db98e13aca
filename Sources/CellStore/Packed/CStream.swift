import CBzip2
import CZlib

/// A C library's stream state on the heap, where it stays put (zlib checks that the stream
/// it was set up with has not moved), ended once and freed with its decoder.
final class CStream<State> {
    let pointer: UnsafeMutablePointer<State>
    /// What releases the library's own memory: set once the library has set the stream
    /// up, so a stream that failed to start is freed but not ended.
    var end: ((UnsafeMutablePointer<State>) -> Void)?

    init(_ state: State) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: state)
    }

    deinit {
        end?(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// The buffer fields of zlib's and libbz2's streams, which both count in 32 bits.
protocol BoundedStream {
    associatedtype Byte
    var next_in: UnsafeMutablePointer<Byte>! { get set }
    var avail_in: UInt32 { get set }
    var next_out: UnsafeMutablePointer<Byte>! { get set }
    var avail_out: UInt32 { get set }
}

extension CStream where State: BoundedStream {
    /// Points the stream at `input` and `output` (4 GiB of each at most), calls the library
    /// through `body`, and says how many bytes it took and gave.
    @inline(__always)
    func step<Status>(_ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer,
                      _ body: (UnsafeMutablePointer<State>) -> Status) -> (status: Status, usedIn: Int, madeOut: Int) {
        pointer.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: State.Byte.self)) }
        pointer.pointee.avail_in = UInt32(min(input.count, Int(UInt32.max)))
        pointer.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: State.Byte.self)
        pointer.pointee.avail_out = UInt32(min(output.count, Int(UInt32.max)))
        let inBefore = pointer.pointee.avail_in, outBefore = pointer.pointee.avail_out
        let status = body(pointer)
        return (status, Int(inBefore - pointer.pointee.avail_in), Int(outBefore - pointer.pointee.avail_out))
    }
}

extension z_stream: BoundedStream {}
extension bz_stream: BoundedStream {}
