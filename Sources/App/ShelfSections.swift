import CellStore
import Synchronization
import Table

/// The open tables as a stacked view sees them: each table's count from its store or the
/// census, its rows from a store the shelf opens when they are wanted (and keeps a while
/// by recent use), and a reader for a search on another thread.
final class ShelfSections: StackSections {
    private let shelf: TableShelf
    let wake: @Sendable () -> Void
    /// The last table a search opened to read, kept for the next batch of its rows: one
    /// at a time, so a search through a thousand tables holds one descriptor.
    private let lastRead = LastReader()

    init(shelf: TableShelf, wake: @escaping @Sendable () -> Void) {
        self.shelf = shelf
        self.wake = wake
    }

    var count: Int { shelf.count }

    func name(_ index: Int) -> String { shelf.inputs[index].name }

    func settledCount(_ index: Int) -> Int? {
        if let store = shelf.openStore(index) {
            // A followed table takes its place as it is when it reaches its end.
            return store.isComplete || store.progress.isCaughtUp ? store.rowCount : nil
        }
        if case .done(let facts) = shelf.census.state(index) { return facts.records ?? 0 }
        return nil
    }

    func columnCount(_ index: Int) -> Int? {
        if let store = shelf.openStore(index) { return store.columnCount }
        if case .done(let facts) = shelf.census.state(index) { return facts.columns }
        return nil
    }

    func failure(_ index: Int) -> String? {
        var text: String?
        if let store = shelf.openStore(index) {
            text = store.progress.failure
        } else if case .done(let facts) = shelf.census.state(index) {
            text = facts.failure
        }
        // As `b.csv: why` (an error opening it names the path already, a reading one not).
        return text.map(shelf.inputs[index].shortly)
    }

    func source(_ index: Int) -> (any RowSource)? {
        guard index >= 0, index < shelf.count, let store = try? shelf.store(index) else { return nil }
        shelf.keep(index, store)
        return store
    }

    func reader(_ index: Int) -> @Sendable (Range<Int>) -> [Row] {
        if let store = shelf.openStore(index), let reader = store.recordReader() {
            return { range in Self.read(range, from: reader) }
        }
        let input = shelf.inputs[index], open = shelf.countOpener, lastRead = lastRead
        return { range in
            guard let reader = lastRead.reader(for: index, opening: {
                guard let store = try? open(input) else { return nil }
                store.indexOnCallingThread()
                return store.recordReader()
            }) else { return [] }
            return Self.read(range, from: reader)
        }
    }

    func searchInput(_ index: Int) -> StackSearchInput {
        if let store = shelf.openStore(index) {
            guard let reader = store.recordReader() else { return { _ in nil } }
            let progress = store.progress
            return { _ in (reader, progress) }
        }
        // Opened on the search's thread, indexed there (stopped if the search is), and let
        // go once searched.
        let input = shelf.inputs[index], open = shelf.countOpener
        return { running in
            guard let store = try? open(input) else { return nil }
            running({ store.indexOnCallingThread() }, store.stopIndexing)
            return store.recordReader().map { ($0, store.progress) }
        }
    }

    private static func read(_ range: Range<Int>, from reader: RecordReader) -> [Row] {
        var rows: [Row] = []
        guard !range.isEmpty else { return rows }
        reader.forEachRecord(from: range.lowerBound) { number, row in
            guard number < range.upperBound else { return false }
            rows.append(row)
            return number + 1 < range.upperBound
        }
        return rows
    }
}

/// One reader kept for the table read last, from any thread.
final class LastReader: Sendable {
    private let kept = Mutex<(index: Int, reader: RecordReader)?>(nil)

    /// The reader of table `index`: the one kept, or one `opening` makes (then kept).
    func reader(for index: Int, opening: () -> RecordReader?) -> RecordReader? {
        if let kept = kept.withLock({ $0 }), kept.index == index { return kept.reader }
        guard let reader = opening() else { return nil }
        kept.withLock { $0 = (index, reader) }
        return reader
    }
}
