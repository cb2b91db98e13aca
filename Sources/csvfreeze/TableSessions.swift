#if canImport(Glibc)
import Glibc
#endif
import App
import CellStore
import Viewer

/// The sessions of several tables opened together, or of a followed file: each file keeps
/// its own session, by its own key, as it would alone. It is read when its table is first
/// opened (its kept index adopted then), its view taken back when the table is first
/// shown, and kept again on quitting (or when its viewer is put away to bound memory).
/// Standard input, pipes and the tables inside a file (a database's table, a workbook's
/// sheet: one key for many tables) keep none.
///
/// A followed file is a log that grows: its index is kept up to its last checkpoint (a
/// record's start, past which a record may be half written), keyed by those bytes, so that
/// opened again it is a file that grew from them: that index is taken, the rest indexed
/// and followed. A cursor on the last row (following the end) follows it again.
final class TableSessions {
    let store: SessionStore
    let inputs: [TableInput]
    let follows: Bool
    /// What was read for each input (nil content and note: none kept).
    private var loaded: [Int: (content: SessionContent?, note: String?)] = [:]
    /// Inputs opened once: a kept index is taken the first time only (`R` reads again).
    private var opened: Set<Int> = []
    /// Inputs whose view was taken back (or refused) already.
    private var restored: Set<Int> = []

    init(store: SessionStore, inputs: [TableInput], follows: Bool) {
        self.store = store
        self.inputs = inputs
        self.follows = follows
    }

    /// True when input `index` keeps a session: a file, not a table inside one.
    func keeps(_ index: Int) -> Bool {
        guard index >= 0, index < inputs.count else { return false }
        let input = inputs[index]
        guard let path = input.path, path != "-", input.table == nil, !input.readsOnce else { return false }
        return true
    }

    /// What is kept for input `index`, read the first time it is asked for.
    func kept(_ index: Int) -> (content: SessionContent?, note: String?) {
        if let done = loaded[index] { return done }
        var result: (content: SessionContent?, note: String?) = (nil, nil)
        if keeps(index), let path = inputs[index].path, let key = SessionStore.key(ofFileAt: path) {
            result = store.load(for: key, file: path)
        }
        loaded[index] = result
        return result
    }

    /// Opens `input` for a store; the first time, with its kept index taken.
    func open(_ input: TableInput, reading: InputSettings, onChange: @escaping @Sendable () -> Void) throws(CellStoreError) -> CellStore {
        guard let index = inputs.firstIndex(of: input), !opened.contains(index) else { return try reading.open(input, onChange: onChange) }
        opened.insert(index)
        guard let content = kept(index).content, let snapshot = content.index else { return try reading.open(input, onChange: onChange) }
        let store = try reading.open(input, startsLoader: false, onChange: onChange)
        Session.take(snapshot, grew: content.fileGrew, into: store)
        return store
    }

    /// Takes back input `index`'s kept view into `viewer`, made for it the first time it is
    /// shown; what the status line says of it (nil: nothing kept).
    func restore(_ viewer: Viewer, _ index: Int) -> String? {
        guard keeps(index), !restored.contains(index) else { return nil }
        restored.insert(index)
        let (content, note) = kept(index)
        guard let content else { return note }
        let said = viewer.restore(session: content, following: follows)
        // It followed the end: it follows it again, from the rows known now.
        if follows && content.view.record == nil { viewer.handle(.lastRow) }
        return [note, said].compactMap { $0 }.joined(separator: "; ")
    }

    /// Keeps input `index`'s view (`viewer`'s) for its file as it is now, when the viewer
    /// reads that file still (not one that replaced it since).
    func save(_ viewer: Viewer, _ index: Int) {
        guard keeps(index), let path = inputs[index].path, let file = viewer.file, !viewer.options.isSheet,
              let openedFile = file.openedFile else { return }
        let key: SessionKey
        let content: SessionContent
        if file.follows {
            var view = viewer.savedView()
            view.sorted = nil
            view.filtered = nil
            if viewer.dataRowCount > 0 && viewer.cursorRow >= viewer.dataRowCount - 1 { view.record = nil }
            let snapshot = file.followedIndexSnapshot()
            guard let found = SessionStore.key(ofFileAt: path, prefix: snapshot?.available) else { return }
            key = found
            content = SessionContent(view: view, index: snapshot.map { $0.thinned(toAtMost: Int(max(1, $0.available / 200 / 16))) })
        } else {
            guard let found = SessionStore.key(ofFileAt: path) else { return }
            key = found
            content = store.content(of: viewer, store: file, size: key.size)
        }
        guard key.device == openedFile.device, key.inode == openedFile.inode else { return }
        store.save(content, for: key, previous: loaded[index]?.content)
    }

    /// On quitting: each table with a viewer keeps its session, and several tables which
    /// was shown and whether they were stacked (not when one is read once: it has no name
    /// to come back to).
    func saveAll(_ loop: AppLoop) {
        for (index, viewer) in loop.viewersByTable { save(viewer, index) }
        if inputs.count > 1, !inputs.contains(where: \.readsOnce) {
            store.saveTables(shown: loop.current, stacked: loop.isStacked, for: inputs)
        }
    }
}
