#if canImport(Glibc)
import Glibc
#endif

extension Loader {
    /// Indexes compressed input as it is decompressed (and text in another encoding as it
    /// is converted), counting compressed (or raw) bytes.
    func index(_ packed: PackedInput) {
        let size = packed.compressedSize, name = packed.compression?.name
        shared.withLock {
            $0.progress.packedSize = size
            $0.progress.compression = name
        }
        packed.start()
        index(source: packed.source, isGrowing: true, encoding: { (packed.encodingName, packed.overruledEncoding) },
              endNote: { packed.encodingProblem ?? packed.json?.breakNote }, pull: { [self, packed] _, _ in
            var paused = false
            defer { if paused { report(nil) } }
            while !isStopped {
                let pulled = packed.pull(caughtUp: { [self] in
                    shared.withLock { $0.progress.isCaughtUp = true }
                    onChange()
                })
                let read = packed.compressedBytesRead
                shared.withLock { $0.progress.packedBytesRead = read }
                if let pulled { return pulled }
                // The spool is full (`--spool-limit`, or the free space kept): wait, as a
                // pipe does, until there is room or the store goes.
                if !paused, let spool = packed.spool { report(spool.pauseReason) }
                paused = true
                usleep(UInt32(SharedStream.step) * 1000)
            }
            return .end
        })
    }

    /// Stops decompressing a file, and waits for the thread that does it: the store is
    /// going. (A stream's decoder is the stream's: it goes with it, see `SharedStream`.)
    func stopUnpacking() {
        if case .packed(let packed) = input { packed.stop() }
    }
}
