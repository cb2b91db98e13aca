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
