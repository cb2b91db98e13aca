#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// The one background pass over the input: it reads every byte once, keeps no cells, and
/// records a checkpoint (a record's start offset and number) about every `spacing` bytes.
///
/// A stream's bytes are spooled as they arrive (`SharedStream`), so that rows can be re-read.
package final class Loader: Sendable {
    /// Where the bytes come from.
    package enum Input: Sendable {
        /// A file of known size, read with `pread`.
        case file(FileSource, size: Int64)
        /// A pipe or other stream, spooled as it is read (by this store or another over it).
        case stream(SharedStream)
        /// Bytes in memory.
        case memory(MemorySource)
        /// Compressed data, decompressed in the background (see `PackedInput`).
        case packed(PackedInput)
    }

    let input: Input
    let shared: Mutex<IndexState>
    let spacing: Int64
    let fileName: String?
    let forcedDelimiter: UInt8?
    let forcedQuote: UInt8?
    let preambleRule: PreambleRule
    /// Keep reading a regular file as it grows, like `tail -F`.
    let follows: Bool
    /// The name a followed file was opened by, watched for a new file (log rotation).
    let followedPath: String?
    let onChange: @Sendable () -> Void
    /// Bumped whenever the index grows or the pass ends: background passes that follow the
    /// input wait on it (`onChange` is for the event loop: it marks news at each chunk,
    /// and the loop decides when to look).
    let progressSignal = ChangeSignal()
    /// Set by `stop()`: every wait for input looks at it, so the thread ends soon after.
    let stopped = Atomic<Bool>(false)
    /// While above 0 the pass waits before its next chunk (see `RecordReaders.holdingLoader`),
    /// on `released`, which the last hold's end and `stop()` publish.
    let holds = Atomic<Int>(0)
    let released = ChangeSignal()
    /// Whether `start()` made a thread, and a signal the thread gives as it ends.
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// What a file was when it was opened, to tell later that it changed on disk.
    let openedAs: FileIdentity?

    package init(input: Input, spacing: Int64, fileName: String?, forcedDelimiter: UInt8?, forcedQuote: UInt8? = nil,
                 preambleRule: PreambleRule = .none, follows: Bool = false, followedPath: String? = nil,
                 onChange: @escaping @Sendable () -> Void) {
        self.preambleRule = preambleRule
        self.follows = follows
        self.followedPath = follows ? followedPath : nil
        self.input = input
        self.shared = Mutex(IndexState())
        self.spacing = spacing
        self.fileName = fileName
        self.forcedDelimiter = forcedDelimiter
        self.forcedQuote = forcedQuote
        self.onChange = onChange
        openedAs = Loader.regularFile(of: input).flatMap(FileIdentity.init)
    }

    /// Ends the pass at its next wait for input (a stream, a followed file, a pause).
    package func stop() {
        stopped.store(true, ordering: .relaxed)
        released.notify()
        // A wait for a stream another store reads, or for its decoder, ends too.
        if case .stream(let stream) = input { stream.interrupt() }
    }

    var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// Returns once no pass holds the loader (or it is stopped).
    private func waitWhileHeld() {
        while !isStopped {
            let version = released.version
            guard holds.load(ordering: .acquiring) > 0 && !isStopped else { return }
            released.wait(past: version)
        }
    }

    /// Puts a note about the input on the status line (nil clears it).
    func report(_ notice: String?) {
        shared.withLock { $0.progress.notice = notice }
        onChange()
    }

    /// The byte source readers use.
    package var source: ByteSource {
        switch input {
        case .file(let file, _): return file
        case .stream(let stream): return stream.spool
        case .memory(let memory): return memory
        case .packed(let packed): return packed.source
        }
    }

    /// Stops the pass and waits for its thread to end (at most one wait step, 200 ms), so a
    /// store that goes leaves no thread behind. Safe to call more than once.
    package func stopAndJoin() {
        stop()
        if started.exchange(false, ordering: .acquiringAndReleasing) { finished.wait() }
    }

    /// Runs the pass on a new thread; `stopAndJoin()` ends it.
    package func start() {
        started.store(true, ordering: .releasing)
        // Below the interactive thread: the first screen is drawn while the index runs.
        BackgroundThread.start(name: "csvfreeze loader", stackSize: 1 << 20, yieldsToInteractiveThreads: true) { [self] in
            run()
            finished.signal()
        }
    }

    /// What one pull of more input brought.
    enum Pulled {
        /// This many more bytes can be read.
        case bytes(Int)
        /// The input ended.
        case end
        /// A followed file became shorter (rotated by truncation): it is read again from
        /// its start by a new store.
        case truncated
        /// A followed file's name now holds another file (rotated by renaming): the new one
        /// is read by a new store.
        case replaced
        /// Reading failed, or the file changed under us; the message says how.
        case failed(String)
    }

    /// Waits until a followed file is longer than `available` bytes and says by how much.
    /// A file that became shorter was truncated (copytruncate rotation): its indexed rows
    /// are no longer what is on disk. Like `tail -F`, it follows the name: once the file
    /// has nothing new and `path` holds another file (renamed away, a new one made), that
    /// one is to be read; while `path` holds nothing, the old file is still followed.
    static func waitForGrowth(of file: FileSource, path: String? = nil, beyond available: Int64,
                              isStopped: () -> Bool, caughtUp: () -> Void) -> Pulled {
        var announced = false
        let opened = path == nil ? nil : FileIdentity(file)
        while !isStopped() {
            guard let size = file.regularFileSize else { return .failed("the file is gone") }
            if size > available { return .bytes(Int(min(size - available, Int64(Int.max)))) }
            if size < available { return .truncated }
            if let path, let opened, let now = FileIdentity(path: path),
               now.device != opened.device || now.inode != opened.inode {
                return .replaced
            }
            if !announced {
                caughtUp()
                announced = true
            }
            usleep(200_000)
        }
        return .end
    }

    /// Runs the whole pass on the calling thread (tests, and `start`).
    package func run() {
        switch input {
        case .file(let file, let size):
            shared.withLock {
                $0.available = size
                $0.progress.totalBytes = size
            }
            if follows {
                index(source: file, isGrowing: true, pull: { [self, file] _, available in
                    Loader.waitForGrowth(of: file, path: followedPath, beyond: available, isStopped: { isStopped }) {
                        shared.withLock { $0.progress.isCaughtUp = true }
                        onChange()
                    }
                })
            } else {
                index(source: file, isGrowing: false)
            }
        case .memory(let memory):
            let size = Int64(memory.bytes.count)
            shared.withLock {
                $0.available = size
                $0.progress.totalBytes = size
            }
            index(source: memory, isGrowing: false)
        case .packed(let packed):
            index(packed)
        case .stream(let stream):
            index(source: stream.spool, isGrowing: true, encoding: { (stream.packed?.encodingName, stream.packed?.overruledEncoding) },
                  endNote: { stream.packed?.encodingProblem ?? stream.packed?.json?.breakNote }, pull: { [self] _, available in
                let pulled = stream.pull(beyond: available, isStopped: { isStopped }, report: { report($0) })
                if let packed = stream.packed {
                    let name = packed.compression?.name, read = packed.compressedBytesRead
                    shared.withLock {
                        $0.progress.compression = name
                        $0.progress.packedBytesRead = read
                    }
                }
                return pulled
            })
        }
    }

    /// The indexing loop. `pull`, for a stream or a followed file, waits for more input
    /// (given how much is available now) and says how much came. `encoding` names what the
    /// text was converted from once its start is read (and the encoding named that its
    /// byte-order mark overruled, if any); `endNote`, asked at the end,
    /// says what was wrong with it (shown as the failure when nothing else failed).
    func index(source: ByteSource, isGrowing: Bool, encoding: (() -> (name: String?, overruled: String?))? = nil,
               endNote: (() -> String?)? = nil,
               pull: ((UnsafeMutableRawBufferPointer, Int64) -> Pulled)? = nil) {
        let chunkSize = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        let pullBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer {
            buffer.deallocate()
            pullBuffer.deallocate()
        }
        var available: Int64 = shared.withLock { $0.available }
        let started = Loader.now()
        var inputEnded = !isGrowing
        var failure: String?
        var wasTruncated = false
        var wasReplaced = false

        func pullMore() {
            guard let pull, !inputEnded else { return }
            switch pull(pullBuffer, available) {
            case .bytes(let count):
                available += Int64(count)
                let known = available
                shared.withLock {
                    $0.available = known
                    $0.progress.isCaughtUp = false
                    if $0.progress.totalBytes != nil { $0.progress.totalBytes = known }
                }
            case .end:
                inputEnded = true
            case .truncated:
                inputEnded = true
                wasTruncated = true
            case .replaced:
                inputEnded = true
                wasReplaced = true
            case .failed(let message):
                inputEnded = true
                failure = message
            }
        }

        let start: (dialect: Dialect, bomLength: Int64, preamble: [String])
        if let prepared = shared.withLock({ state in state.dialect.map { ($0, state.checkpoints[0].offset, state.preamble) } }) {
            start = prepared
        } else {
            // Pull until the start of the input can be judged: the BOM and the dialect
            // need a first line (or 64 KiB, or the end).
            while !inputEnded && !hasFirstLine(source: source, available: available) { pullMore() }
            var judged = judgeStart(source: source, available: available)
            if let json = jsonReport, json.isJSON {
                // CSV this program wrote: nothing to guess, and no key is a preamble.
                judged = (Dialect.madeFromJSON, 0, [])
            }
            let converted = encoding?()
            judged.dialect.encoding = converted?.name
            judged.dialect.overruledEncoding = converted?.overruled
            start = judged
            shared.withLock {
                $0.dialect = start.dialect
                $0.preamble = start.preamble
                $0.checkpoints = [Checkpoint(offset: start.bomLength, row: 0)]
            }
            progressSignal.notify()
        }
        let bomLength = start.bomLength
        var scanner = RecordScanner(dialect: start.dialect)
        onChange()

        var offset = bomLength
        var nextCheckpoint = bomLength + spacing
        var lastByte: UInt8 = 0
        var pending: [Checkpoint] = []
        var lastRecordEnd = bomLength
        // A file that only grew since its index was kept: on from the index's last
        // checkpoint, a record's start in bytes that are as they were.
        if let resume = shared.withLock({ state in defer { state.resumesAt = nil }; return state.resumesAt }) {
            offset = resume.checkpoint.offset
            nextCheckpoint = offset + spacing
            lastRecordEnd = offset
            let firstBlank = shared.withLock { $0.firstBlankRecord }
            scanner.resume(records: resume.checkpoint.row, widest: resume.widest,
                           firstBlank: firstBlank < resume.checkpoint.row ? firstBlank : nil)
        }
        let fieldLimit = RecordParser.Limits.fieldLimit
        var tooWide: Int?
        while !isStopped {
            waitWhileHeld()
            if offset >= available {
                if inputEnded { break }
                pullMore()
                continue
            }
            let count = source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(Int64(chunkSize), available - offset))]))
            if count <= 0 {
                // The file became shorter than it was: index what was there.
                break
            }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            lastByte = chunk[count - 1]
            let chunkStart = offset
            scanner.scan(chunk, at: chunkStart) { end, afterCR, records, fields in
                let position = chunkStart + Int64(end)
                lastRecordEnd = position
                if fields > fieldLimit && tooWide == nil { tooWide = records - 1 }
                guard position >= nextCheckpoint else { return }
                // Not between the CR and LF of a CRLF: a fresh parser there would see a
                // blank line. After a CR whose next byte is not in this chunk, wait.
                if afterCR && (end >= count || chunk[end] == 0x0A) { return }
                pending.append(Checkpoint(offset: position, row: records))
                nextCheckpoint = position + spacing
            }
            offset += Int64(count)
            let rows = scanner.recordCount
            let widest = scanner.widestRecord
            let checkpoints = pending
            pending.removeAll(keepingCapacity: true)
            let elapsed = Loader.now() - started
            let wellQuoted = scanner.firstProblem?.record ?? rows
            let firstBlank = scanner.firstBlankRecord ?? Int.max
            let wide = tooWide
            shared.withLock {
                $0.checkpoints.append(contentsOf: checkpoints)
                $0.wellQuotedRecords = wellQuoted
                $0.firstBlankRecord = firstBlank
                $0.progress.elapsed = elapsed
                $0.progress.bytesRead = offset
                $0.progress.rowCount = rows
                $0.progress.widestRow = widest
                $0.progress.tooWideRecord = wide
            }
            progressSignal.notify()
            // Each chunk is news; the event loop decides when to look (see `onChange`).
            onChange()
        }
        // Where compressed data breaks off, the bytes after the last record's end are a
        // record cut short: shown, it would pass for a whole one. It is left out.
        let cutShort = failure != nil && lastRecordEnd < offset
        if cutShort {
            let end = lastRecordEnd
            shared.withLock { $0.available = end }
        } else {
            scanner.finish()
        }
        let rows = scanner.recordCount
        let widest = scanner.widestRecord
        // The last record, ended by the end of the input, is not reported as a boundary.
        if widest > fieldLimit && tooWide == nil { tooWide = rows - 1 }
        let wide = tooWide
        let endsWithTerminator = cutShort || lastByte == 0x0A || lastByte == 0x0D || offset <= bomLength
        var problem: QuotingProblem?
        if let first = scanner.firstProblem {
            let kind: QuotingProblem.Kind
            switch first.kind {
            case .quoteInUnquotedField: kind = .quoteInUnquotedField
            case .textAfterClosingQuote: kind = .textAfterClosingQuote
            case .unclosedQuote: kind = .unclosedQuote
            }
            problem = QuotingProblem(kind: kind, record: first.record,
                                     line: Loader.line(at: first.offset, in: source,
                                                       preambleLines: start.preamble.count + (start.dialect.hasSeparatorLine ? 1 : 0),
                                                       from: bomLength))
        }
        let problemCount = scanner.problemCount
        let elapsed = Loader.now() - started
        let note = failure == nil ? endNote?() : nil
        shared.withLock {
            $0.progress.elapsed = elapsed
            $0.progress.bytesRead = offset
            $0.progress.rowCount = rows
            $0.progress.widestRow = widest
            $0.progress.tooWideRecord = wide
            $0.progress.endsWithTerminator = endsWithTerminator
            $0.progress.failure = failure ?? note
            $0.progress.wasTruncated = wasTruncated
            $0.progress.wasReplaced = wasReplaced
            if wasTruncated || wasReplaced {
                // The event loop opens it again at once; a store used alone says why it stopped.
                $0.progress.isCaughtUp = false
                $0.progress.notice = wasTruncated ? "file truncated: R reads it again" : "file replaced: R reads the new one"
            }
            $0.progress.quotingProblem = problem
            $0.progress.quotingProblemCount = problemCount
            $0.progress.isComplete = true
            // Readers read up to here: never into the record a break cut short.
            $0.available = cutShort ? lastRecordEnd : offset
        }
        progressSignal.notify()
        onChange()
    }

    /// The physical line (1-based) of byte `offset`: line ends (LF, CRLF or CR) counted
    /// from `start`, plus the preamble's lines. Run once, only when there is a problem.
    static func line(at offset: Int64, in source: ByteSource, preambleLines: Int, from start: Int64) -> Int {
        var lines = 1 + preambleLines
        var position = start
        var previous: UInt8 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        while position < offset {
            let wanted = Int(min(Int64(buffer.count), offset - position))
            let count = source.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted]))
            if count <= 0 { break }
            for index in 0..<count {
                let byte = buffer[index]
                if byte == 0x0D || (byte == 0x0A && previous != 0x0D) { lines += 1 }
                previous = byte
            }
            position += Int64(count)
        }
        return lines
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// What the JSON conversion found, when the input is made into CSV from JSON (or may be,
    /// a stream not decided yet).
    var jsonReport: JSONReport? {
        switch input {
        case .packed(let packed): return packed.json
        case .stream(let stream): return stream.packed?.json
        case .file, .memory: return nil
        }
    }

    /// The regular file the input is read from, plain or compressed (nil for a stream).
    static func regularFile(of input: Input) -> FileSource? {
        switch input {
        case .file(let file, _): return file
        case .packed(let packed): return packed.file
        case .stream, .memory: return nil
        }
    }
}
