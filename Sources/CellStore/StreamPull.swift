#if canImport(Glibc)
import Glibc
#endif

/// Reads a stream into its spool for the loader, one pull at a time, without ever
/// blocking for long: it waits with `poll` in short steps, so the loader can be stopped,
/// and it pauses (the producer then waits on the pipe) while the spool has no room.
///
/// What it waits for is told through `report`: that a FIFO has no writer yet or a pipe is
/// silent, or that reading paused at the spool limit (nil once that is over).
struct StreamPull {
    let stream: FileSource
    let spool: SpoolSource
    /// The FIFO's path, or nil for standard input.
    let name: String?
    let isStopped: () -> Bool
    let report: (String?) -> Void
    /// How long one wait lasts before the stop flag and the room are looked at again.
    static let step: Int32 = 200

    /// True once a byte came: a silence after that is the producer's, not a missing writer.
    private var hasReceived = false

    init(stream: FileSource, spool: SpoolSource, name: String?, isStopped: @escaping () -> Bool,
         report: @escaping (String?) -> Void) {
        self.stream = stream
        self.spool = spool
        self.name = name
        self.isStopped = isStopped
        self.report = report
    }

    /// Waits for more input, spools it, and says how much came.
    mutating func pull(into buffer: UnsafeMutableRawBufferPointer) -> Loader.Pulled {
        var reported = false
        defer { if reported { report(nil) } }
        while !isStopped() {
            let room = spool.room()
            guard room > 0 else {
                if !reported { report(spool.pauseReason) }
                reported = true
                usleep(UInt32(StreamPull.step) * 1000)
                continue
            }
            var descriptor = pollfd(fd: stream.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, StreamPull.step)
            if ready < 0 && errno != EINTR { return .failed("read error: " + String(cString: strerror(errno))) }
            if ready <= 0 {
                if !hasReceived && !reported {
                    report(name.map { stream.isFIFO ? "waiting for a writer to open \($0)" : "waiting for \($0)" }
                           ?? "waiting for input on stdin")
                    reported = true
                }
                continue
            }
            let wanted = Int(min(Int64(buffer.count), room))
            let count = stream.readNext(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return .failed("read error: " + String(cString: strerror(errno)))
            }
            if count == 0 { return .end }
            hasReceived = true
            spool.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            return .bytes(count)
        }
        return .end
    }
}
