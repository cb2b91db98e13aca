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
        guard !loader.follows, Loader.regularFile(of: loader.input) != nil, let opened = loader.openedAs,
              let change = opened.change(at: name) else { return false }
        let text: String
        switch change {
        case .deleted: text = "file deleted: rows shown are from before"
        case .replaced: text = "file replaced on disk: R reloads"
        case .shorter: text = "file shorter on disk now: R reloads"
        case .changed: text = "file changed on disk: R reloads"
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
    /// The file this store reads as it was when opened (nil for a stream or bytes in
    /// memory): what a list of tables compares with the file now.
    package var openedIdentity: FileIdentity? { loader.openedAs }

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
