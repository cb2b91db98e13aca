#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Query
import Viewer

/// Where and how sessions are kept: one file per input file in `$XDG_STATE_HOME/csvfreeze/`
/// (else `~/.local/state/csvfreeze/`), named by the file's device and inode, private to the
/// user (the folder 0700, each file 0600), written through a temporary file renamed into
/// place (two processes on one file: the last to quit wins, whole), and all of them
/// together within `limit` bytes, the least recently used removed first.
struct SessionStore {
    /// The folder the sessions are kept in.
    let directory: String
    /// The most all sessions together may take.
    let limit: Int64
    /// `--fresh`: the saved session is not read (it is replaced on quit).
    let fresh: Bool

    static let prefix = "session-"

    /// The store as the environment names it; nil when there is no home to keep it in.
    static func fromEnvironment(limit given: Int64?, fresh: Bool) -> SessionStore? {
        let directory: String
        if let base = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), base.hasPrefix("/") {
            directory = base + "/csvfreeze"
        } else if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty {
            directory = home + "/.local/state/csvfreeze"
        } else {
            return nil
        }
        return SessionStore(directory: directory, limit: given ?? defaultLimit(for: directory), fresh: fresh)
    }

    /// 1 GiB, or 1 % of the file system the sessions are kept on when that is less.
    static func defaultLimit(for directory: String) -> Int64 {
        var place = directory
        var info = statvfs()
        while !place.isEmpty {
            if statvfs(place, &info) == 0 {
                let size = Int64(info.f_blocks) * Int64(info.f_frsize)
                return size > 0 ? min(1 << 30, max(1 << 20, size / 100)) : 1 << 30
            }
            place = String(place[..<(place.lastIndex(of: "/") ?? place.startIndex)])
        }
        return 1 << 30
    }

    /// The key of the file at `path` as it is now: nil for anything but a regular file.
    /// With `prefix`, the key of its first `prefix` bytes (a followed file's part indexed
    /// whole: opened again, the file is one that grew from it).
    static func key(ofFileAt path: String, prefix: Int64? = nil) -> SessionKey? {
        // Looked at before it is opened: opening a FIFO with no writer would wait for one.
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard prefix.map({ $0 >= 0 && $0 <= Int64(info.st_size) }) ?? true else { return nil }
        let size = prefix ?? Int64(info.st_size)
        let span = 64 << 10
        func hash(at offset: Int64) -> UInt64? {
            let length = Int(min(Int64(span), max(0, size - offset)))
            var bytes = [UInt8](repeating: 0, count: length)
            var done = 0
            while done < length {
                let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, length - done, off_t(offset) + off_t(done)) }
                if got <= 0 { return nil }
                done += got
            }
            return SessionCodec.fnv(bytes[...])
        }
        guard let head = hash(at: 0), let tail = hash(at: max(0, size - Int64(span))) else { return nil }
        return SessionKey(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: size,
                          modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec),
                          headHash: head, tailHash: tail)
    }

    /// True when the file at `path` is `stored`'s file with bytes added at its end only:
    /// its first `stored.size` bytes hash as they did (its first and last 64 KiB of them).
    static func grew(_ path: String, from stored: SessionKey) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_dev) == stored.device,
              UInt64(info.st_ino) == stored.inode, Int64(info.st_size) > stored.size, stored.size >= 0 else { return false }
        let span = Int64(64 << 10)
        func hash(_ range: Range<Int64>) -> UInt64? {
            var bytes = [UInt8](repeating: 0, count: Int(range.count))
            var done = 0
            while done < bytes.count {
                let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(range.lowerBound) + off_t(done)) }
                if got <= 0 { return nil }
                done += got
            }
            return SessionCodec.fnv(bytes[...])
        }
        return hash(0..<min(span, stored.size)) == stored.headHash
            && hash(max(0, stored.size - span)..<stored.size) == stored.tailHash
    }

    /// The session's file for the file of `key` (by its device and inode).
    func path(for key: SessionKey) -> String {
        var identity = [UInt8]()
        for value in [key.device, key.inode] { for shift in stride(from: 0, to: 64, by: 8) { identity.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
        let hex = String(SessionCodec.fnv(identity[...]), radix: 16)
        return directory + "/" + Self.prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What was kept for the file of `key`: the content, or a one-line note of why it is
    /// not used (nil content and nil note: there is none).
    func load(for key: SessionKey, file: String? = nil) -> (content: SessionContent?, note: String?) {
        guard !fresh else { return (nil, nil) }
        let path = path(for: key)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return (nil, nil) }
        defer { close(descriptor) }
        var info = stat()
        // Only a file of this user's, private, and within the cap is read at all.
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(),
              Int64(info.st_size) <= limit else { return (nil, "the saved session cannot be used: ignored") }
        let length = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + done, length - done) }
            if got <= 0 { break }
            done += got
        }
        if done < length { bytes.removeLast(length - done) }
        switch SessionCodec.decode(bytes, key: key, grew: { stored in file.map { Self.grew($0, from: stored) } ?? false }) {
        case .success(var content):
            // Used now: the last to be removed when room is made.
            _ = utimensat(AT_FDCWD, path, nil, 0)
            takeResults(into: &content, sessionPath: path)
            return (content, nil)
        case .failure(let refusal):
            return (nil, refusal.description)
        }
    }

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

    /// Opens the kept results' data files: the sort's order to be read (and checked) block
    /// by block as the view needs it, the filters' bitmap read and checked whole (a bit a
    /// row: small). One missing or damaged is left out, said in `dropped`, made again.
    func takeResults(into content: inout SessionContent, sessionPath path: String) {
        if let bitmap = content.keptBitmap {
            var words: [UInt64]?
            if let descriptor = Self.openData(path, bitmap.section) {
                defer { close(descriptor) }
                var read = [UInt64](repeating: 0, count: Int(bitmap.section.length / 8))
                let good = read.withUnsafeMutableBytes { raw -> Bool in
                    var done = 0
                    while done < raw.count {
                        let got = pread(descriptor, raw.baseAddress! + done, raw.count - done, off_t(done))
                        if got <= 0 { return false }
                        done += got
                    }
                    let size = KeptSection.blockSize
                    for (block, sum) in bitmap.section.checksums.enumerated() {
                        let start = block * size
                        guard KeptSection.checksum(UnsafeRawBufferPointer(rebasing: raw[start..<min(raw.count, start + size)])) == sum else { return false }
                    }
                    return true
                }
                if good {
                    words = read.map { UInt64(littleEndian: $0) }
                    _ = utimensat(AT_FDCWD, Self.dataPath(path, bitmap.section), nil, 0)
                }
            }
            if let words {
                content.filterBitmap = (words, bitmap.length)
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

    /// Keeps `content` for the file of `key`, then removes the least recently used sessions
    /// until all fit the limit. Its results go to data files of their own; one kept
    /// unchanged since it was read (`previous`: the sort's order as restored, the same
    /// filters' rows) is referred to again, not written again. Quiet: a session that cannot
    /// be kept is not worth an error at exit.
    func save(_ content: SessionContent, for key: SessionKey, previous: SessionContent? = nil) {
        var content = content
        let path = path(for: key)
        content.keptSort = nil
        content.keptBitmap = nil
        // An order read from a data file that failed a check is not kept: it would be copied from it.
        if let sorted = content.sorted, !(sorted.stored?.hasFailed ?? false) {
            if let stored = sorted.stored, !stored.hasFailed, let section = stored.section, Self.isIntact(path, section) {
                content.keptSort = KeptSort(kinds: sorted.kinds, count: sorted.count, section: section)
            } else if let section = writeData(for: path, { emit in
                for start in stride(from: 0, to: sorted.count, by: KeptSection.blockSize / 16) {
                    let pairs = sorted.pairs(in: start..<min(sorted.count, start + KeptSection.blockSize / 16))
                    guard pairs.count == 2 * min(sorted.count - start, KeptSection.blockSize / 16), stride(from: 0, to: pairs.count, by: 2).allSatisfy({ pairs[$0] >= 0 }) else { return false }
                    pairs.map(\.littleEndian).withUnsafeBytes { emit($0) }
                }
                return true
            }) {
                content.keptSort = KeptSort(kinds: sorted.kinds, count: sorted.count, section: section)
            }
        }
        if let bitmap = content.filterBitmap {
            if let before = previous?.keptBitmap, let words = previous?.filterBitmap, words.length == bitmap.length,
               words.words == bitmap.words, Self.isIntact(path, before.section) {
                content.keptBitmap = KeptBitmap(length: bitmap.length, section: before.section)
            } else if let section = writeData(for: path, { emit in
                bitmap.words.map(\.littleEndian).withUnsafeBytes { emit($0) }
                return true
            }) {
                content.keptBitmap = KeptBitmap(length: bitmap.length, section: section)
            }
        }
        let bytes = SessionCodec.encode(content, key: key)
        let kept = [content.keptSort?.section, content.keptBitmap?.section].compactMap { $0 }
        let total = Int64(bytes.count) + kept.reduce(0) { $0 + $1.length }
        guard total <= limit, writePrivately(bytes, to: path) else {
            // The old session stands, with its own data files; those written now go.
            for section in kept where section != previous?.keptSort?.section && section != previous?.keptBitmap?.section {
                unlink(Self.dataPath(path, section))
            }
            return
        }
        removeData(of: path, keeping: Set(kept.map(\.id)))
        trim(keeping: path)
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
