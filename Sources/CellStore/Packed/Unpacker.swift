#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Decompresses an input on a thread of its own and hands the loader chunks of output, so
/// that decompression (one core) and the record scanner (the other) run side by side. It
/// also converts text in another encoding to UTF-8 (`Transcoder`), after decompressing,
/// or alone for a plain file or stream.
///
/// At most `depth` chunks wait, so a fast decoder (or a bomb) cannot run ahead into
/// memory. The owner stops it with `stop()`, which cancels and waits for the thread.
package final class Unpacker: Sendable {
    /// What the loader takes next.
    enum Item: Sendable {
        case bytes([UInt8])
        /// A followed file has nothing more for now (the bytes before are all of it).
        case caughtUp
        case end
        case damage(PackedDamage)
    }

    /// Chunks grow from `firstChunkSize` to `chunkSize`: the first screen needs only the
    /// first few kilobytes, and later chunks cost fewer hand-overs.
    static let chunkSize = 1 << 20
    static let firstChunkSize = 1 << 16
    static let depth = 4

    /// Chunks made and not taken yet; `stop()` closes it, so a wait for room ends.
    private let items = BoundedQueue<Item>(limit: Unpacker.depth)
    private let finished = DispatchSemaphore(value: 0)
    private let isCancelled = Atomic<Bool>(false)
    private let isRunning = Atomic<Bool>(false)
    private let compressedRead = Atomic<Int64>(0)
    private let compression: Compression?
    private let transcoding: Transcoding
    /// The encoding converted from once known, and where the text was not valid in it.
    private let encodingState = Mutex<(name: String?, problem: String?, overruled: String?)>((nil, nil, nil))
    private let raw: RawInput
    /// The gzip index the unpacking thread fills as it inflates; its builder is made on
    /// that thread (`run`), the only one that touches it.
    private let index: GzipIndex?
    /// JSON made into CSV records after decoding, and where what it found is published.
    private let json: (mode: JSONMode, report: JSONReport)?
    /// A workbook's sheet to turn into CSV, instead of bytes to decompress.
    private let sheet: SheetRequest?
    /// A plain file (JSON lines) whose end is waited past, as `--follow` does: what is
    /// appended is converted as it comes.
    let follows: Bool

    /// Compressed input: a file read from its start, or a stream after the bytes that were
    /// read to recognize it.
    package struct RawInput: Sendable {
        let file: FileSource
        let prefix: [UInt8]
        let isStream: Bool

        package init(file: FileSource, prefix: [UInt8], isStream: Bool) {
            self.file = file
            self.prefix = prefix
            self.isStream = isStream
        }

        /// A reader of the compressed bytes in order. A stream is polled, so that a
        /// cancelled reader does not stay blocked on a silent pipe.
        func makeReader(isCancelled: @escaping @Sendable () -> Bool = { false }) -> PackedReader.RawRead {
            var prefixLeft = prefix[...]
            var offset: Int64 = 0
            return { buffer in
                if !prefixLeft.isEmpty {
                    let count = min(buffer.count, prefixLeft.count)
                    prefixLeft.prefix(count).withUnsafeBytes { buffer.copyMemory(from: $0) }
                    prefixLeft = prefixLeft.dropFirst(count)
                    offset += Int64(count)
                    return count
                }
                guard isStream else {
                    let count = file.read(at: offset, into: buffer)
                    offset += Int64(max(0, count))
                    return count
                }
                while true {
                    if isCancelled() { return 0 }
                    var descriptor = pollfd(fd: file.descriptor, events: Int16(POLLIN), revents: 0)
                    let ready = poll(&descriptor, 1, 100)
                    if ready < 0 && errno != EINTR { return -1 }
                    if ready > 0 { return file.readNext(into: buffer) }
                }
            }
        }
    }

    package init(compression: Compression?, transcoding: Transcoding = .none, raw: RawInput, index: GzipIndex? = nil,
                 json: (mode: JSONMode, report: JSONReport)? = nil, follows: Bool = false) {
        self.json = json
        self.follows = follows && compression == nil && transcoding == .none && !raw.isStream
        self.compression = compression
        self.transcoding = transcoding
        self.raw = raw
        self.index = index
        sheet = nil
    }

    /// Turns a workbook's sheet into CSV (see `SheetReader`).
    init(sheet: SheetRequest) {
        compression = nil
        transcoding = .none
        raw = RawInput(file: sheet.file, prefix: [], isStream: false)
        index = nil
        json = nil
        self.sheet = sheet
        follows = false
    }

    /// Compressed bytes read so far (raw bytes, for a plain input being converted).
    package var compressedBytesRead: Int64 { compressedRead.load(ordering: .relaxed) }

    /// The encoding the text is converted from, once known.
    package var encodingName: String? { encodingState.withLock { $0.name } }

    /// Where the text was not valid in its encoding, once the output has reached there.
    package var encodingProblem: String? { encodingState.withLock { $0.problem } }

    /// The encoding named that a byte-order mark overruled, once known.
    package var overruledEncoding: String? { encodingState.withLock { $0.overruled } }

    /// Starts the thread (once).
    package func start() {
        guard !isRunning.exchange(true, ordering: .acquiringAndReleasing) else { return }
        BackgroundThread.start(name: "csvfreeze unpacker") { [self] in
            run()
            finished.signal()
        }
    }

    /// Cancels the thread and waits for it to end.
    package func stop() {
        isCancelled.store(true, ordering: .releasing)
        // A wait for room ends (nobody may take again), and a taker still waiting (the
        // loader) learns that nothing more comes.
        items.close()
        if isRunning.load(ordering: .acquiring) {
            finished.wait()
            finished.signal()
        }
    }

    /// The next chunk, the end, or the damage; waits for the thread. Nil once `isStopped`
    /// holds: whoever makes it hold calls `interrupt()`, which ends the wait (a store
    /// reading a shared stream that stops leaves the next chunk to the next store).
    func take(isStopped: () -> Bool = { false }) -> Item? {
        guard let taken = items.take(1, isStopped: isStopped) else { return .end }
        return taken.first
    }

    /// Ends a `take` waiting now, so that it looks at its `isStopped` again.
    func interrupt() { items.interrupt() }

    /// Queues `item`, waiting for room; false once stopped.
    private func put(_ item: Item) -> Bool { items.push(item) }

    private func run() {
        if let sheet {
            var reader: SheetReader?
            return pass { [self] buffer throws(PackedDamage) in
                do throws(ZipEntryError) {
                    if reader == nil { reader = try sheet.makeReader() }
                    guard let reader else { return 0 }
                    defer { compressedRead.store(reader.compressedBytesRead, ordering: .relaxed) }
                    return try reader.read(into: buffer)
                } catch {
                    throw PackedDamage(.workbook(error.message), at: compressedRead.load(ordering: .relaxed))
                }
            }
        }
        let read: (UnsafeMutableRawBufferPointer) throws(PackedDamage) -> Int
        let rawRead = raw.makeReader(isCancelled: { [self] in isCancelled.load(ordering: .relaxed) })
        if let compression {
            let decoder: PackedDecoder
            do {
                if compression == .gzip, let index {
                    decoder = try GzipDecoder(indexBuilder: GzipIndexBuilder(index: index))
                } else {
                    decoder = try compression.makeDecoder()
                }
            } catch {
                _ = put(.damage(error))
                return
            }
            let reader = PackedReader(decoder: decoder, readRaw: rawRead)
            read = { [self] buffer throws(PackedDamage) in
                defer { compressedRead.store(reader.compressedRead, ordering: .relaxed) }
                return try reader.read(into: buffer)
            }
        } else {
            read = { [self] buffer throws(PackedDamage) in
                let count = rawRead(buffer)
                let before = compressedRead.load(ordering: .relaxed)
                if count < 0 { throw PackedDamage(.unreadable(String(cString: strerror(errno))), at: before) }
                compressedRead.store(before + Int64(count), ordering: .relaxed)
                return count
            }
        }
        pass(read)
    }

    /// Waits until the followed file is longer than what was read: nil then (and when
    /// stopped: the read then ends); why it is not followed further when it became shorter
    /// (rotated by truncation: the JSON made so far cannot be taken back) or is gone.
    private func waitForGrowth() -> String? {
        let read = compressedRead.load(ordering: .relaxed)
        while !isCancelled.load(ordering: .acquiring) {
            guard let size = raw.file.regularFileSize else { return "the file is gone: not followed further" }
            if size > read { return nil }
            if size < read { return "the file became shorter: not followed further (R reads it again)" }
            usleep(200_000)
        }
        return nil
    }

    /// Hands over what `read` gives, converted when it must be, until the end, damage or `stop()`.
    private func pass(_ read: (UnsafeMutableRawBufferPointer) throws(PackedDamage) -> Int) {
        var transcoder: Transcoder?
        if transcoding != .none {
            do {
                transcoder = try Transcoder(transcoding)
            } catch {
                _ = put(.damage(PackedDamage(.setup(error.description), at: 0)))
                return
            }
        }
        var stage = json.map { JSONStage($0.mode, report: $0.report) }
        /// Hands over converted text (JSON made into CSV first); false when nobody takes it
        /// any more.
        func deliver(_ text: [UInt8], isLast: Bool = false) -> Bool {
            if let transcoder {
                encodingState.withLock { $0 = (transcoder.encoding?.name, transcoder.problem, transcoder.overruled?.name) }
            }
            guard let converter = stage else { return text.isEmpty || put(.bytes(text)) }
            let bytes = converter.pass(text, isLast: isLast)
            // Not JSON after all: the rest passes as it is.
            if converter.passesThrough { stage = nil }
            return bytes.isEmpty || put(.bytes(bytes))
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Unpacker.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var size = Unpacker.firstChunkSize
        while !isCancelled.load(ordering: .acquiring) {
            do {
                let count = try read(UnsafeMutableRawBufferPointer(rebasing: buffer[..<size]))
                size = min(Unpacker.chunkSize, size * 2)
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
                if count == 0 && follows {
                    // At the end for now: what is held back for the header is shown, and
                    // the file is waited on until it grows.
                    if let flushed = stage?.flush(), !flushed.isEmpty, !put(.bytes(flushed)) { return }
                    if !put(.caughtUp) { return }
                    if let ended = waitForGrowth() {
                        _ = put(.damage(PackedDamage(.notFollowed(ended), at: compressedRead.load(ordering: .relaxed))))
                        return
                    }
                    continue
                }
                guard count > 0 else {
                    if !deliver(transcoder?.pass(chunk, isLast: true) ?? [], isLast: true) { return }
                    _ = put(.end)
                    return
                }
                if !deliver(transcoder?.pass(chunk, isLast: false) ?? Array(chunk)) { return }
                // No byte-order mark after all: the rest passes as it is, as it did before.
                if transcoder?.passesThrough == true { transcoder = nil }
            } catch {
                // The records held back before the damage are delivered first.
                if stage != nil, !deliver([], isLast: true) { return }
                _ = put(.damage(error))
                return
            }
        }
    }
}
