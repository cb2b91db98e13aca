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
            let read = bytes.withUnsafeMutableBytes { readWhole(descriptor, into: $0, at: offset) }
            return read ? SessionCodec.fnv(bytes[...]) : nil
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
            let read = bytes.withUnsafeMutableBytes { readWhole(descriptor, into: $0, at: range.lowerBound) }
            return read ? SessionCodec.fnv(bytes[...]) : nil
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
        // Read, not mapped: a mapped file cut short in place (by another program) while it
        // is decoded raises SIGBUS; a short read is a session not used (MBs: under a ms).
        let length = Int(info.st_size)
        let grew = { (stored: SessionKey) in file.map { Self.grew($0, from: stored) } ?? false }
        let decoded: Result<SessionContent, SessionCodec.Refusal>
        if length == 0 {
            decoded = SessionCodec.decode([UInt8](), key: key)
        } else {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
            defer { buffer.deallocate() }
            guard Self.readWhole(descriptor, into: buffer, at: 0) else {
                return (nil, "the saved session cannot be used: ignored")
            }
            decoded = SessionCodec.decode(UnsafeRawBufferPointer(buffer), key: key, grew: grew)
        }
        switch decoded {
        case .success(var content):
            // Used now: the last to be removed when room is made.
            _ = utimensat(AT_FDCWD, path, nil, 0)
            takeResults(into: &content, sessionPath: path)
            return (content, nil)
        case .failure(let refusal):
            return (nil, refusal.description)
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
        let unchangedBitmap = content.keptBitmap?.bitmap
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
        if let stored = unchangedBitmap {
            // The rows read from this session's data file, none failed so far: named again, not copied.
            if !stored.hasFailed, Self.isIntact(path, stored.section) {
                content.keptBitmap = KeptBitmap(length: stored.length, section: stored.section, blockCounts: stored.blockCounts)
            }
        } else if let bitmap = content.filterBitmap {
            if let section = writeData(for: path, { emit in
                bitmap.words.map(\.littleEndian).withUnsafeBytes { emit($0) }
                return true
            }) {
                content.keptBitmap = KeptBitmap(length: bitmap.length, section: section, blockCounts: StoredBitmap.blockCounts(of: bitmap.words))
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

}
