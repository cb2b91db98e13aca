#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Query
import Viewer

extension SessionStore {
    /// What is kept of `viewer`'s table over its file of `size` bytes: the view, the index
    /// thinned to at most 0.5 % of the file's size, and the rows of a complete sort (16
    /// bytes a row) and of complete filters (a bit a row) when, with the rest, they fit
    /// the limit (the sort first: the filters' rows over it are nothing without it). Rows
    /// kept by the session read at opening, unchanged, are named as they were (`keptBitmap`).
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
        // What the rest takes, roughly: the index's checkpoints and the marks, and room.
        var room = limit - Int64(index?.checkpoints.count ?? 0) * 16 - Int64(view.marks.count) * 8 - (64 << 10)
        // A complete sort of the file's own bytes (no edits), as its order, with the index.
        var sorted: SortedRecords?
        if let order = view.sorted, index != nil, order.patch.isEmpty, Int64(order.count) * 16 <= room {
            sorted = order
            room -= Int64(order.count) * 16
        }
        var bitmap: (words: [UInt64], length: Int)?
        var unchanged: KeptBitmap?
        if let filtered = view.filtered, filtered.base == nil ? view.sorted == nil : (sorted != nil && filtered.base === sorted) {
            if let stored = filtered.stored {
                // Kept from the session read at opening, as it was: its data file is referred to again.
                if !stored.hasFailed, stored.section.length <= room {
                    unchanged = KeptBitmap(length: stored.length, section: stored.section, blockCounts: stored.blockCounts, bitmap: stored)
                }
            } else {
                let kept = filtered.bitmap
                if Int64(kept.words.count * 8) <= room { bitmap = kept }
            }
        }
        view.sorted = nil
        view.filtered = nil
        var content = SessionContent(view: view, index: index, filterBitmap: bitmap)
        content.keptBitmap = unchanged
        content.sorted = sorted
        return content
    }
}
