/// Hands out readers of the records indexed so far, from any thread: what a background
/// pass that follows an input still loading (a sort, a filter) holds instead of the store,
/// which belongs to the UI thread.
package struct RecordReaders: Sendable {
    let loader: Loader
    /// A reader and progress fixed when these readers were made (see `asOfNow`).
    let frozen: (reader: RecordReader?, progress: LoadProgress)?
    /// The table's edits, spliced into every reader's bytes (see `RecordPatch`).
    package let patch: RecordPatch

    init(loader: Loader, frozen: (reader: RecordReader?, progress: LoadProgress)?, patch: RecordPatch = .empty) {
        self.loader = loader
        self.frozen = frozen
        self.patch = patch
    }

    /// A reader of the records known now (nil until the dialect is known).
    package func current() -> RecordReader? {
        if let frozen { return frozen.reader }
        let json = loader.jsonReport
        return loader.shared.withLock {
            RecordReader($0, source: loader.source, end: $0.available, isFinal: $0.progress.isComplete, json: json)
        }?
            .patched(patch)
    }

    /// The loader's progress now.
    package var progress: LoadProgress {
        frozen?.progress ?? loader.shared.withLock { $0.progress }.patched(patch)
    }

    /// True for readers of the records indexed when they were made (`recordReadersAsOfNow`):
    /// their input ends there, though the loader may not have finished.
    package var isSnapshot: Bool { frozen != nil }

    /// Runs `body` with the loader waiting before its next chunk: a pass that may make the
    /// index needless (a filter decided from raw bytes) has the cores and the memory
    /// bandwidth to itself meanwhile.
    package func holdingLoader<Result>(_ body: () -> Result) -> Result {
        loader.holds.add(1, ordering: .acquiringAndReleasing)
        defer {
            if loader.holds.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { loader.released.notify() }
        }
        return body()
    }

    /// True when the input is a regular file read as it is (not decompressed, converted,
    /// spooled or followed): its size is known from the start, and its bytes are the text.
    package var isPlainFile: Bool {
        guard frozen == nil, patch.isEmpty, !loader.follows, case .file = loader.input else { return false }
        return true
    }

    /// Published whenever the index grows or the loader ends: a pass that follows the
    /// input waits on it for more records.
    package var changes: ChangeSignal { loader.progressSignal }
}

extension CellStore {
    /// Published whenever the index grows or the loader ends (from the loader's thread).
    package var progressSignal: ChangeSignal { loader.progressSignal }

    /// Returns once `condition` holds or the input is read to its end (or its loader
    /// stopped), looking again each time the loader publishes: what a command-line run
    /// waits for before it starts (the header, the first rows, the whole index).
    package func waitForIndex(until condition: () -> Bool) {
        while true {
            // Read before looking: news after the look moves it on, and the wait returns.
            let version = progressSignal.version
            if condition() || isComplete { return }
            progressSignal.wait(past: version)
        }
    }

    /// Readers of this store's input for other threads, following its index as it grows,
    /// with the table's edits in their bytes (or those of `patch`, an older state of them).
    package var recordReaders: RecordReaders { RecordReaders(loader: loader, frozen: nil, patch: patch) }

    /// Readers of the records indexed now, as if the input ended there: for a pass over an
    /// input that is followed (it never ends), which then covers the rows read so far.
    package var recordReadersAsOfNow: RecordReaders {
        let json = loader.jsonReport
        return loader.shared.withLock { state in
            var progress = state.progress
            let end = state.checkpoints.isEmpty ? state.available : max(state.checkpoints.last!.offset, progress.bytesRead)
            progress.isComplete = true
            let reader = RecordReader(state, source: loader.source, end: min(end, state.available), isFinal: true, json: json)
            return RecordReaders(loader: loader, frozen: (reader?.patched(patch), progress.patched(patch)), patch: patch)
        }
    }
}

extension CellStore {
    /// The store's input for a thread that saves it: its progress, the signal of its
    /// growth, and its bytes as read (decompressed).
    package struct InputHandle: Sendable {
        let loader: Loader

        package var progress: LoadProgress { loader.shared.withLock { $0.progress } }
        package var changes: ChangeSignal { loader.progressSignal }
        /// The bytes read so far, how many, and the descriptor of the file itself when those
        /// bytes are its own (a plain file).
        package var bytes: (source: ByteSource, end: Int64, file: Int32?) {
            let end = loader.shared.withLock { $0.available }
            if case .file(let file, _) = loader.input { return (loader.source, end, file.descriptor) }
            return (loader.source, end, nil)
        }
    }

    package var inputHandle: InputHandle { InputHandle(loader: loader) }
}
