#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Query
import Viewer

extension SessionStore {
    /// What is kept of `viewer`'s table over its file of `size` bytes: the view, the index
    /// thinned to at most 0.5 % of the file's size, and the rows of complete filters over
    /// the file's order when they take at most a sixteenth of the limit.
    func content(of viewer: Viewer, store: CellStore, size: Int64) -> SessionContent {
        var view = viewer.savedView()
        var index = store.indexSnapshot()
        if let whole = index {
            if whole.available != size {
                index = nil
            } else {
                index = whole.thinned(toAtMost: Int(max(1, size / 200 / 16)))
            }
        }
        // A complete sort of the file's own bytes (no edits), as its order, when it takes
        // at most a sixteenth of the limit (16 bytes a row) and the index is kept with it.
        var sorted: SortedRecords?
        if let order = view.sorted, index != nil, order.patch.isEmpty, Int64(order.count) * 16 <= limit / 16 {
            sorted = order
        }
        var bitmap: (words: [UInt64], length: Int)?
        if let filtered = view.filtered, filtered.base == nil ? view.sorted == nil : (sorted != nil && filtered.base === sorted) {
            let kept = filtered.bitmap
            if Int64(kept.words.count * 8) <= limit / 16 { bitmap = kept }
        }
        view.sorted = nil
        view.filtered = nil
        var content = SessionContent(view: view, index: index, filterBitmap: bitmap)
        content.sorted = sorted
        return content
    }
}
