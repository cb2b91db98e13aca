#if canImport(Glibc)
import Glibc
#endif

extension Loader {
    /// Indexes a stream that turns out to be compressed, decompressing it into `spool`;
    /// returns false, with the bytes read put in the spool, when it is plain text.
    ///
    /// Runs on the loader's thread: recognizing a stream reads its first bytes, which
    /// may wait for the producer, and opening must not.
    func indexCompressedStream(_ stream: FileSource, spool: SpoolSource) -> Bool {
        // Silence says so on the status line, as it does for a plain stream (StreamPull).
        let name = fileName == "stdin" ? nil : fileName
        let silence = name.map { stream.isFIFO ? "waiting for a writer to open \($0)" : "waiting for \($0)" }
            ?? "waiting for input on stdin"
        let packed = PackedInput.recognize(stream: stream, spool: spool, encoding: encoding, isStopped: { isStopped },
                                           waiting: { [self] in report($0 ? silence : nil) })
        let already = spool.length
        shared.withLock { $0.available = already }
        guard let packed else { return false }
        let started = streamUnpacking.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.input = packed
            return true
        }
        guard started else { return true }
        index(packed)
        return true
    }

    /// Indexes compressed input as it is decompressed (and text in another encoding as it
    /// is converted), counting compressed (or raw) bytes.
    func index(_ packed: PackedInput) {
        let size = packed.compressedSize, name = packed.compression?.name
        shared.withLock {
            $0.progress.packedSize = size
            $0.progress.compression = name
        }
        packed.start()
        index(source: packed.source, isGrowing: true, encodingName: { packed.encodingName },
              endNote: { packed.encodingProblem }, pull: { [self, packed] _, _ in
            var paused = false
            defer { if paused { report(nil) } }
            while !isStopped {
                let pulled = packed.pull()
                let read = packed.compressedBytesRead
                shared.withLock { $0.progress.packedBytesRead = read }
                if let pulled { return pulled }
                // The spool is full (`--spool-limit`, or the free space kept): wait, as a
                // pipe does, until there is room or the store goes.
                if !paused, let spool = packed.spool { report(spool.pauseReason) }
                paused = true
                usleep(UInt32(StreamPull.step) * 1000)
            }
            return .end
        })
    }

    /// Stops decompressing, and waits for the thread that does it: the store is going.
    func stopUnpacking() {
        if case .packed(let packed) = input { packed.stop() }
        let running = streamUnpacking.withLock { state -> PackedInput? in
            state.isStopped = true
            return state.input
        }
        running?.stop()
    }
}
