/// Counting a table that is not shown: what a list of several open tables needs of each
/// (its records, columns and dialect), read by a background count at its own priority.
extension CellStore {
    /// Indexes the input to its end on the calling thread, for a store opened with
    /// `startsLoader: false`: a count in the background then needs no second thread and
    /// runs at its own thread's priority. A store that is complete already is left alone.
    package func indexOnCallingThread() {
        guard !isComplete else { return }
        loader.run()
    }

    /// Stops indexing from any thread (a count that is no longer wanted); the pass ends
    /// at its next chunk.
    package var stopIndexing: @Sendable () -> Void {
        let loader = self.loader
        return { loader.stop() }
    }
}
