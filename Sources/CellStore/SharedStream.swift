#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A stream (standard input, a pipe, a process substitution, a FIFO, a device) opened once
/// for every store that reads it: its bytes are decoded (decompressed, converted to UTF-8)
/// into one spool as they arrive, and each store indexes that spool. A second store over a
/// pipe (a count, then the table) finds every byte the first saw, where opening the path
/// again would find the pipe drained, or a FIFO whose writer has gone.
///
/// It has no thread of its own: a store that wants bytes past the spool's end reads them
/// from the stream itself when no other store is doing so, and the others wait on
/// `signal`. So a stream no store reads is not read (its producer waits, as behind `less`),
/// and a store that stops hands the reading on to the next that wants more.
package final class SharedStream: Sendable {
    /// The path as given, or nil for standard input.
    let path: String?
    let file: FileSource
    /// The stream's text, decoded, as far as it has come.
    let spool: SpoolSource
    /// The encoding the user named for it, if any.
    let encoding: TextEncoding?
    /// Published when bytes come, the stream ends, the store reading stops, or what the
    /// wait is for changes; and by a store that stops, so that its wait ends.
    let signal = ChangeSignal()
    private let state = Mutex<State>(State())

    private struct State {
        /// The first bytes, read to tell compression and a byte-order mark; nil once told.
        var prefix: [UInt8]? = []
        /// The decoder of a compressed stream, or of one in another encoding, once told.
        var packed: PackedInput?
        /// True while a store reads from the stream.
        var isPulling = false
        /// True once a byte came: silence after that is the producer's, not a missing writer.
        var hasReceived = false
        /// How the stream ended, once it has.
        var outcome: Loader.Pulled?
        /// What the wait is for (`waiting for a writer to open g.csv`), while waiting.
        var notice: String?
    }

    /// How long one wait on the stream lasts before a stop and the spool's room are looked
    /// at again.
    static let step: Int32 = 200

    /// Opens `path` (nil or `-`: standard input), a FIFO without waiting for a writer (the
    /// screen says it waits); its text is spooled in a new spool bounded by `spoolLimit`.
    package convenience init(path: String?, spoolLimit: SpoolLimit, encoding: TextEncoding?) throws(CellStoreError) {
        guard let path, path != "-" else {
            let descriptor = dup(0)
            if descriptor < 0 { throw .closedInput }
            self.init(file: FileSource(descriptor: descriptor), path: nil, spoolLimit: spoolLimit, encoding: encoding)
            // What was read to tell its format comes first.
            if let peeked = StandardInput.takePeeked() { state.withLock { $0.prefix = peeked } }
            return
        }
        self.init(file: try FileSource(path: path, waitsForWriter: false), path: path, spoolLimit: spoolLimit, encoding: encoding)
    }

    /// The stream `file`, already open.
    init(file: FileSource, path: String?, spoolLimit: SpoolLimit, encoding: TextEncoding?) {
        self.file = file
        self.path = path
        self.encoding = encoding
        spool = SpoolSource(limit: spoolLimit)
    }

    deinit {
        // The decoder's thread reads the stream ahead of the stores: it stops with the stream.
        state.withLock { $0.packed }?.stop()
    }

    /// Ends the waits of the stores reading now (for another store's read, or for the
    /// decoder's next chunk), so that each looks at whether it is stopped: a store that
    /// stops calls it.
    func interrupt() {
        signal.notify()
        packed?.interrupt()
    }

    /// The decoder, once the stream is known to be compressed or in another encoding.
    var packed: PackedInput? { state.withLock { $0.packed } }

    /// What the stream is waiting for, said while nothing comes: a named FIFO may have
    /// no writer yet; a pipe (`/dev/stdin`, `<(…)`, links to one) has one that is silent.
    private var silence: String {
        guard let path else { return "waiting for input on stdin" }
        var info = stat()
        let isNamedFIFO = lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
        return isNamedFIFO ? "waiting for a writer to open \(path)" : "waiting for \(path)"
    }

    /// Waits until the spool holds more than `available` bytes and says how many more,
    /// reading them from the stream when no other store is; once the stream has ended and
    /// all of it is spooled, how it ended (`.end` or `.failed`). `.end` too once `isStopped`
    /// (a store that stops while reading leaves the rest to the next). `report` is told
    /// what the wait is for, whoever reads, and nil when it is over.
    func pull(beyond available: Int64, isStopped: () -> Bool, report: (String?) -> Void) -> Loader.Pulled {
        var said: String?
        defer { if said != nil { report(nil) } }
        /// Says `notice` unless it was said last.
        func mirror(_ notice: String?) {
            guard notice != said else { return }
            said = notice
            report(notice)
        }
        enum Next {
            case has(Int64)
            case ended(Loader.Pulled)
            case wait(String?)
            case read
        }
        while true {
            // The version first: a change published after the look below ends the wait.
            let version = signal.version
            if isStopped() { return .end }
            let next: Next = state.withLock { state in
                let length = spool.length
                if length > available { return .has(length - available) }
                if let outcome = state.outcome { return .ended(outcome) }
                if state.isPulling { return .wait(state.notice) }
                state.isPulling = true
                return .read
            }
            switch next {
            case .has(let count):
                return .bytes(Int(min(count, Int64(Int.max))))
            case .ended(let outcome):
                return outcome
            case .wait(let notice):
                mirror(notice)
                signal.wait(past: version)
            case .read:
                let outcome = readMore(isStopped: isStopped) { notice in
                    state.withLock { $0.notice = notice }
                    signal.notify()
                    mirror(notice)
                }
                state.withLock { state in
                    state.isPulling = false
                    if let outcome { state.outcome = outcome }
                }
                signal.notify()
            }
        }
    }

    /// Reads from the stream until some bytes are spooled, the stream ends (how it ended,
    /// returned) or `isStopped` (nil). `say` tells what it waits for.
    private func readMore(isStopped: () -> Bool, say: (String?) -> Void) -> Loader.Pulled? {
        let (prefix, packed) = state.withLock { ($0.prefix, $0.packed) }
        if var prefix {
            // The first bytes tell compression and a byte-order mark: kept when this store
            // stops before they do, for the next one to read on.
            let silence = silence
            let told = OpenedInput.readMagic(from: file, into: &prefix, isStopped: isStopped,
                                             waiting: { say($0 ? silence : nil) })
            guard told else {
                state.withLock { $0.prefix = prefix }
                return nil
            }
            let raw = Unpacker.RawInput(file: file, prefix: prefix, isStream: true)
            let decoder = PackedInput.recognized(prefix: prefix, raw: raw, spool: spool, encoding: encoding, name: path)
            state.withLock { state in
                state.prefix = nil
                state.packed = decoder
                state.hasReceived = !prefix.isEmpty
            }
            decoder?.start()
            return nil
        }
        if let packed { return readDecoded(packed, isStopped: isStopped, say: say) }
        return readPlain(isStopped: isStopped, say: say)
    }

    /// Spools the next bytes of a plain stream. It waits with `poll` in short steps, so a
    /// stop is seen, and pauses (the producer then waits on the pipe) while the spool has
    /// no room.
    private func readPlain(isStopped: () -> Bool, say: (String?) -> Void) -> Loader.Pulled? {
        var said = false
        defer { if said { say(nil) } }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while !isStopped() {
            let room = spool.room()
            guard room > 0 else {
                if !said { say(spool.pauseReason) }
                said = true
                usleep(UInt32(SharedStream.step) * 1000)
                continue
            }
            var descriptor = pollfd(fd: file.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, SharedStream.step)
            if ready < 0 && errno != EINTR { return .failed("read error: " + String(cString: strerror(errno))) }
            if ready <= 0 {
                if !said && !state.withLock({ $0.hasReceived }) {
                    say(silence)
                    said = true
                }
                continue
            }
            let wanted = Int(min(Int64(buffer.count), room))
            let count = file.readNext(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return .failed("read error: " + String(cString: strerror(errno)))
            }
            if count == 0 { return .end }
            state.withLock { $0.hasReceived = true }
            spool.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            return nil
        }
        return nil
    }

    /// Spools the next decoded chunk of a compressed (or converted) stream, pausing while
    /// the spool has no room.
    private func readDecoded(_ packed: PackedInput, isStopped: () -> Bool, say: (String?) -> Void) -> Loader.Pulled? {
        var paused = false
        defer { if paused { say(nil) } }
        while !isStopped() {
            if let pulled = packed.pull(isStopped: isStopped) {
                if case .bytes = pulled { return nil }
                return pulled
            }
            if isStopped() { break }
            // The spool is full (`--spool-limit`, or the free space kept): wait, as a pipe
            // does, until there is room or the store goes.
            if !paused, let spool = packed.spool { say(spool.pauseReason) }
            paused = true
            usleep(UInt32(SharedStream.step) * 1000)
        }
        return nil
    }

    /// Where an input that can be read only once keeps its one `SharedStream`: made by the
    /// first store opened on it, handed to every later one.
    package final class Slot: Sendable {
        private let stream = Mutex<SharedStream?>(nil)

        package init() {}

        /// The stream, made by `opening` the first time.
        func stream(opening: () throws(CellStoreError) -> SharedStream) throws(CellStoreError) -> SharedStream {
            try stream.withLock { (kept: inout SharedStream?) throws(CellStoreError) -> SharedStream in
                if let kept { return kept }
                let made = try opening()
                kept = made
                return made
            }
        }
    }
}
