/// The input behind a store, seen from the UI thread: stopping its loader, and noticing
/// that the file changed on disk after it was read.
extension CellStore {
    /// Stops the loader at its next wait for input (it waits in short steps), so that
    /// a store that is replaced or closed leaves no thread reading behind it.
    package func stopLoading() { loader.stop() }

    /// Looks whether the file changed on disk since it was opened (shorter, longer,
    /// rewritten or replaced) and, if so, says so on the status line, offering `R`.
    /// Followed files are expected to grow and are left to the loader. Cheap: two `stat`
    /// calls; meant to be called before the user's keys are handled.
    /// - Returns: true when the file changed.
    @discardableResult
    package func noticeChangeOnDisk() -> Bool {
        guard !loader.follows, let file = Loader.regularFile(of: loader.input), let opened = loader.openedAs else { return false }
        let now = FileIdentity(file)
        let atPath = FileIdentity(path: name)
        let replaced = atPath.map { $0.device != opened.device || $0.inode != opened.inode } ?? true
        guard replaced || now != opened else { return false }
        let text: String
        if replaced {
            text = atPath == nil ? "file deleted: rows shown are from before" : "file replaced on disk: R reloads"
        } else if let size = now?.size, size < opened.size {
            text = "file shorter on disk now: R reloads"
        } else {
            text = "file changed on disk: R reloads"
        }
        loader.shared.withLock { $0.progress.notice = text }
        return true
    }
}

extension CellStore {
    /// True when `path` names the file this store reads (the same device and inode), so
    /// that writing there would overwrite the input being viewed.
    package func isInput(_ path: String) -> Bool {
        guard let file = Loader.regularFile(of: loader.input), let now = FileIdentity(file),
              let there = FileIdentity(path: path) else {
            return false
        }
        return now.device == there.device && now.inode == there.inode
    }
}

extension CellStore {
    /// True when the input is followed as it grows (it never ends).
    package var follows: Bool { loader.follows }

    /// True when the bytes that may be read now are all the input will have: it is read
    /// whole, or it is a regular file read as it is (its size known from the start).
    package var endsWhereRead: Bool {
        if isComplete { return true }
        guard !loader.follows, case .file = loader.input else { return false }
        return true
    }
}
