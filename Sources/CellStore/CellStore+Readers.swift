/// Hands out readers of the records indexed so far, from any thread: what a background
/// pass that follows an input still loading (a sort, a filter) holds instead of the store,
/// which belongs to the UI thread.
public struct RecordReaders: Sendable {
    let loader: Loader

    /// A reader of the records known now (nil until the dialect is known).
    public func current() -> RecordReader? {
        loader.shared.withLock { state in
            state.dialect.map { dialect in
                RecordReader(source: loader.source, checkpoints: state.checkpoints, dialect: dialect,
                             end: state.available, isFinal: state.progress.isComplete,
                             wellQuotedRecords: state.wellQuotedRecords)
            }
        }
    }

    /// The loader's progress now.
    public var progress: LoadProgress { loader.shared.withLock { $0.progress } }
}

extension CellStore {
    /// Readers of this store's input for other threads, following its index as it grows.
    public var recordReaders: RecordReaders { RecordReaders(loader: loader) }
}
