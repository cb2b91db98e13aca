#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Query
import Viewer

/// A session's data files: the kept sort order and filter rows beside the session file,
/// a checksum per block in it, opened to be checked as read; and the least recently used
/// sessions removed with their data files.
extension SessionStore {
    /// The data file of `section` of the session at `sessionPath`.
    static func dataPath(_ sessionPath: String, _ section: KeptSection) -> String {
        let hex = String(section.id, radix: 16)
        return sessionPath + "." + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Opens the data file of `section`: this user's, a regular file of its length; nil else.
    static func openData(_ sessionPath: String, _ section: KeptSection) -> Int32? {
        let descriptor = open(dataPath(sessionPath, section), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(),
              Int64(info.st_size) == section.length else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Opens the kept results' data files, each to be read (and checked) block by block as
    /// the view needs it: the sort's order, and the filters' rows (counted per block in the
    /// session: the row count, and where a row lies, are known with no read). One missing
    /// is left out, said in `dropped`, made again; one found damaged later is too (`Viewer`).
    func takeResults(into content: inout SessionContent, sessionPath path: String) {
        if let kept = content.keptBitmap {
            if let descriptor = Self.openData(path, kept.section),
               let bitmap = StoredBitmap(descriptor: descriptor, length: kept.length, section: kept.section, blockCounts: kept.blockCounts) {
                content.keptBitmap?.bitmap = bitmap
                _ = utimensat(AT_FDCWD, Self.dataPath(path, kept.section), nil, 0)
            } else {
                content.keptBitmap = nil
                content.dropped = "the saved filtered rows are damaged: filtering again"
            }
        }
        if let sort = content.keptSort {
            if let index = content.index, let descriptor = Self.openData(path, sort.section) {
                content.keptSort?.pairs = StoredPairs(descriptor: descriptor, offset: 0, count: sort.count,
                                                      records: 0..<index.rowCount, inputBytes: index.available, section: sort.section)
                _ = utimensat(AT_FDCWD, Self.dataPath(path, sort.section), nil, 0)
            } else {
                content.keptSort = nil
                content.dropped = "the saved sort order is damaged: sorting again"
            }
        }
    }

    /// Fills `buffer` from `descriptor` at `offset`: false when the file holds fewer bytes
    /// there now (cut short since it was looked at) or a read fails.
    static func readWhole(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var done = 0
        while done < buffer.count {
            let got = pread(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { return false }
            done += got
        }
        return true
    }

    /// True when `section`'s data file is there, whole (by its length; its blocks are
    /// checked when read).
    static func isIntact(_ sessionPath: String, _ section: KeptSection) -> Bool {
        guard let descriptor = openData(sessionPath, section) else { return false }
        close(descriptor)
        return true
    }

    /// Writes a data file for the session at `sessionPath` from the bytes `produce` emits
    /// (false: give up), a checksum per block as it goes; its place, or nil.
    func writeData(for sessionPath: String, _ produce: ((UnsafeRawBufferPointer) -> Void) -> Bool) -> KeptSection? {
        let id = UInt64.random(in: 1...UInt64.max)
        let section = KeptSection(id: id, length: 0, checksums: [])
        let final = Self.dataPath(sessionPath, section)
        let temporary = final + ".\(getpid()).tmp"
        HistoryFile.makeDirectories(for: directory + "/x")
        _ = chmod(directory, 0o700)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return nil }
        var block: [UInt8] = []
        block.reserveCapacity(KeptSection.blockSize)
        var sums: [UInt64] = []
        var length: Int64 = 0
        var failed = false
        func flush() {
            guard !block.isEmpty, !failed else { return }
            sums.append(block.withUnsafeBytes { KeptSection.checksum($0) })
            var done = 0
            while done < block.count {
                let wrote = block.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, $0.count - done) }
                if wrote <= 0 { failed = true; break }
                done += wrote
            }
            length += Int64(block.count)
            block.removeAll(keepingCapacity: true)
        }
        let finished = produce { bytes in
            var at = 0
            while at < bytes.count {
                let take = min(bytes.count - at, KeptSection.blockSize - block.count)
                block.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + take)]))
                at += take
                if block.count == KeptSection.blockSize { flush() }
            }
        }
        flush()
        _ = fchmod(descriptor, 0o600)
        close(descriptor)
        guard finished, !failed, rename(temporary, final) == 0 else {
            unlink(temporary)
            return nil
        }
        return KeptSection(id: id, length: length, checksums: sums)
    }

    /// Removes the session at `path` and its data files.
    func remove(sessionAt path: String) {
        unlink(path)
        removeData(of: path, keeping: [])
    }

    /// Removes the data files of the session at `sessionPath` but those of `keeping` (and
    /// another process's being written).
    func removeData(of sessionPath: String, keeping: Set<UInt64>) {
        guard let folder = opendir(directory) else { return }
        let base = String(sessionPath.split(separator: "/").last ?? "") + "."
        var doomed: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(base), !name.hasSuffix(".tmp"), let id = UInt64(name.dropFirst(base.count), radix: 16),
                  !keeping.contains(id) else { continue }
            doomed.append(directory + "/" + name)
        }
        closedir(folder)
        for path in doomed { unlink(path) }
    }

    /// Removes the least recently used sessions (by modification time: reading one touches
    /// it) until all together fit the limit; `keeping` goes last.
    func trim(keeping: String? = nil) {
        guard let folder = opendir(directory) else { return }
        // A session and its data files go together: by its name (theirs add `.` and an id).
        var groups: [String: (paths: [String], size: Int64, used: Int64)] = [:]
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(Self.prefix), !name.hasSuffix(".tmp") else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let group = directory + "/" + String(name.split(separator: ".", maxSplits: 1).first ?? Substring(name))
            var kept = groups[group] ?? ([], 0, 0)
            kept.paths.append(path)
            kept.size += Int64(info.st_size)
            kept.used = max(kept.used, Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
            groups[group] = kept
        }
        closedir(folder)
        var total = groups.values.reduce(0) { $0 + $1.size }
        for (group, files) in groups.sorted(by: { ($0.key == keeping ? 1 : 0, $0.value.used) < ($1.key == keeping ? 1 : 0, $1.value.used) }) {
            guard total > limit else { break }
            // The session first: its data files are nothing without it.
            for path in files.paths.sorted(by: { ($0 == group ? 0 : 1, $0) < ($1 == group ? 0 : 1, $1) }) { unlink(path) }
            total -= files.size
        }
    }
}
